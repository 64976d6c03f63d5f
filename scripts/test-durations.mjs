#!/usr/bin/env node
/**
 * Updates test/helpers/durations.json, the wall time of each test file in a
 * whole run, from the JSON report `npm test` leaves in .tmp/vitest-report.json
 * (the files of that report; the others keep their times).
 * The order `npm test` starts its files in comes from it
 * (test/helpers/sequencer.ts). Run after a whole `npm test`, on a machine
 * like CI's (2 cores), when files were added or their times changed much.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const report = JSON.parse(readFileSync(new URL('../.tmp/vitest-report.json', import.meta.url), 'utf8'))
// The table is merged into, not rewritten: a run of some files (`npm test -- test/x.test.ts`) updates those
// and keeps the others' times; a file that no longer exists leaves it.
const table = new URL('../test/helpers/durations.json', import.meta.url)
const seconds = existsSync(table) ? JSON.parse(readFileSync(table, 'utf8')) : {}
for (const path of Object.keys(seconds)) if (!existsSync(join(root, path))) delete seconds[path]
/** The file's path from the repository root (a report from another clone: from its `test/` folder). */
function pathOf(name) {
  const path = relative(root, name).split('\\').join('/')
  return path.startsWith('../') ? name.slice(name.indexOf('/test/') + 1) : path
}
for (const file of report.testResults) seconds[pathOf(file.name)] = Math.round((file.endTime - file.startTime) / 100) / 10
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)))
writeFileSync(table, `${JSON.stringify(sorted, null, 2)}\n`)
console.log(`test/helpers/durations.json: ${Object.keys(sorted).length} files`)

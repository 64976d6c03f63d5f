/**
 * Tools changed at run time without end (the issue: `addTool`/`removeTool`
 * of a hand-written tool kept ~2.7 KB each, `replaceTools` ~3.2 KB; 5 000
 * cycles held +19.6 MiB after gc, because one shared Ajv kept everything it
 * ever compiled). A built server in a child process (--expose-gc) runs
 * thousands of cycles of each kind; the heap after a full gc may keep only
 * a few hundred bytes per cycle (V8's caches, aging out), not kilobytes.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { bundleSelfContained } from '../bundlers/harness.ts'
import { scaled } from './scale.ts'

const dir = mkdtempSync(join(tmpdir(), 'reliability-churn-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Bytes a cycle may leave on the heap: a fraction of the 5 to 9 KB a cycle kept with one shared Ajv (measured here). */
const SLACK_PER_CYCLE = 1000

it('addTool/removeTool and replaceTools, thousands of times: the heap after gc does not grow per cycle', { timeout: 900_000 }, async () => {
  const file = await bundleSelfContained(
    fileURLToPath(new URL('../../fixtures/scripts/reliability/churn-server.mjs', import.meta.url)),
    join(dir, 'churn.mjs'),
  )
  const cycles = scaled(2000, 10_000)
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', file, String(cycles)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`churn server exited (${code}): ${stderr}`))))
  })
  const result = JSON.parse(out) as Record<'addRemove' | 'replaceToolsHandWritten' | 'replaceToolsProto', number>
  process.stdout.write(`[churn] bytes kept per cycle over ${cycles} cycles: ${JSON.stringify(result)}\n`)
  expect(result.addRemove).toBeLessThan(SLACK_PER_CYCLE)
  expect(result.replaceToolsHandWritten).toBeLessThan(SLACK_PER_CYCLE)
  expect(result.replaceToolsProto).toBeLessThan(SLACK_PER_CYCLE)
})

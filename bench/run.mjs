/**
 * `npm run bench`: runs every benchmark group of bench/registry.mjs against
 * dist/ (build it first: `npm run build && npm run bench`), prints a
 * markdown table and writes .tmp/bench/results.json (git-ignored):
 * `{"benchmarks":[{"id","ours","baseline","unit","ratio","higherIsBetter","target","met","runs","spread"}]}`.
 *
 *   node bench/run.mjs [--only id-or-group,...] [--save | --merge]
 *
 * `--save` writes the tracked bench/results.json instead; `--only` runs a
 * part and writes nothing, unless `--merge` puts its records in place of
 * those of the same ids in bench/results.json (the others stay).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groups } from './registry.mjs'
import { requireDist } from './lib/module.mjs'

const RESULTS = fileURLToPath(new URL('./results.json', import.meta.url))
/** Where a full run writes unless asked to save: a run on a busy machine must not rewrite the tracked figures. */
const SCRATCH = fileURLToPath(new URL('../.tmp/bench/results.json', import.meta.url))
/** The keys of a results.json record, in order: the file holds these and nothing else (notes are printed). */
const KEYS = ['id', 'ours', 'baseline', 'unit', 'ratio', 'higherIsBetter', 'target', 'met', 'runs', 'spread']

/** A record as results.json holds it: exactly {@link KEYS}. */
export function resultOf(record) {
  const missing = KEYS.filter((key) => !(key in record))
  if (missing.length > 0) throw new Error(`bench record "${record.id}" lacks ${missing.join(', ')}`)
  return Object.fromEntries(KEYS.map((key) => [key, record[key]]))
}

function parseOnly(argv) {
  const at = argv.indexOf('--only')
  return at >= 0 && argv[at + 1] ? new Set(argv[at + 1].split(',')) : undefined
}

/** `previous` with each of `fresh` replacing the record of its id in place, or appended when new. */
export function mergeResults(previous, fresh) {
  const byId = new Map(fresh.map((r) => [r.id, r]))
  const merged = previous.map((r) => byId.get(r.id) ?? r)
  for (const r of fresh) if (!previous.some((p) => p.id === r.id)) merged.push(r)
  return merged
}

/** The markdown table of benchmark records. */
export function markdownTable(records) {
  const rows = ['| id | ours | baseline | unit | ratio | target | met | runs | spread |', '|---|---:|---:|---|---:|---|---|---:|---:|']
  for (const r of records) {
    const target = r.target === null ? 'report' : `${r.higherIsBetter ? '≥' : '≤'} ${r.target}×`
    const met = r.met === null ? '–' : r.met ? 'yes' : '**no**'
    rows.push(`| ${r.id} | ${r.ours} | ${r.baseline} | ${r.unit} | ${r.ratio}× | ${target} | ${met} | ${r.runs} | ${r.spread} |`)
  }
  return rows.join('\n')
}

/** What each record compares (its `note`), one markdown list item per record that has one. */
export function markdownNotes(records) {
  return records
    .filter((r) => r.note)
    .map((r) => `- \`${r.id}\`: ${r.note}`)
    .join('\n')
}

async function main() {
  requireDist()
  const only = parseOnly(process.argv)
  const started = performance.now()
  const records = []
  for (const group of groups) {
    if (only && !only.has(group.name) && !group.ids.some((id) => only.has(id))) continue
    const t = performance.now()
    process.stderr.write(`bench: ${group.name} (${group.ids.join(', ')}) ...`)
    const out = await group.run()
    process.stderr.write(` ${((performance.now() - t) / 1000).toFixed(1)} s\n`)
    records.push(...out.filter((r) => !only || only.has(group.name) || only.has(r.id)))
  }
  const seconds = (performance.now() - started) / 1000
  // A partial run (--only) prints its table but leaves the full results file alone, unless told to merge.
  const merge = only && process.argv.includes('--merge')
  const target = process.argv.includes('--save') ? RESULTS : SCRATCH
  if (!only) {
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, `${JSON.stringify({ benchmarks: records.map(resultOf) }, null, 2)}\n`)
  } else if (merge)
    writeFileSync(
      RESULTS,
      `${JSON.stringify({ benchmarks: mergeResults(JSON.parse(readFileSync(RESULTS, 'utf8')).benchmarks, records.map(resultOf)) }, null, 2)}\n`,
    )
  console.log(markdownTable(records))
  console.log(`\n${markdownNotes(records)}`)
  console.log(
    `\n${records.length} benchmarks in ${seconds.toFixed(0)} s on Node ${process.versions.node}; ratios: ours vs a baseline measured in the same run.${!only ? ` Written to ${target === RESULTS ? 'bench/results.json' : '.tmp/bench/results.json (--save writes bench/results.json)'}.` : merge ? ' Merged into bench/results.json.' : ''}`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`\nbench failed: ${error instanceof Error ? error.stack : error}`)
    process.exit(1)
  })
}

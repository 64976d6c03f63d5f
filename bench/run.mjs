/**
 * `npm run bench`: runs every benchmark group of bench/registry.mjs against
 * dist/ (build it first: `npm run build && npm run bench`), prints a
 * markdown table and writes .tmp/bench/results.json (git-ignored):
 * `{"benchmarks":[{"id","ours","baseline","unit","ratio","higherIsBetter","target","met","runs","spread"}]}`.
 *
 *   node bench/run.mjs [--only id-or-group,...] [--save]
 *
 * `--save` writes the tracked bench/results.json instead. `--only` runs a
 * part and writes nothing, unless `--save` (or its older name `--merge`)
 * puts its records in place of those of the same ids in bench/results.json
 * (the others stay, in their order; a new id is appended).
 */
import { fileURLToPath } from 'node:url'
import { groups } from './registry.mjs'
import { requireDist } from './lib/module.mjs'
import { parseOnly, RESULTS, writeResults } from './lib/results.mjs'

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

const HELP = `node bench/run.mjs [--only id-or-group,...] [--save]

  (no option)   every group; writes .tmp/bench/results.json
  --save        a full run writes bench/results.json; with --only, its rows replace
                those of the same ids in bench/results.json (--merge: the same)
  --only a,b    only these groups or ids; prints the table, writes nothing unless --save

groups: ${groups.map((g) => `${g.name} (${g.ids.join(', ')})`).join('; ')}`

async function main() {
  if (process.argv.includes('--help')) {
    console.log(HELP)
    return
  }
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
  const written = writeResults(records, process.argv)
  console.log(markdownTable(records))
  console.log(`\n${markdownNotes(records)}`)
  console.log(
    `\n${records.length} benchmarks in ${seconds.toFixed(0)} s on Node ${process.versions.node}; ratios: ours vs a baseline measured in the same run.${written === undefined ? ' Nothing written (--save merges these rows into bench/results.json).' : written.merged ? ' Merged into bench/results.json.' : ` Written to ${written.file === RESULTS ? 'bench/results.json' : '.tmp/bench/results.json (--save writes bench/results.json)'}.`}`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`\nbench failed: ${error instanceof Error ? error.stack : error}`)
    process.exit(1)
  })
}

/**
 * bench/results.json and the run's scratch copy: the rows a run writes and
 * how a partial run's rows replace those of the same ids (bench/run.mjs).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The tracked results file. */
export const RESULTS = fileURLToPath(new URL('../results.json', import.meta.url))
/** Where a full run writes unless asked to save: a run on a busy machine must not rewrite the tracked figures. */
export const SCRATCH = fileURLToPath(new URL('../../.tmp/bench/results.json', import.meta.url))
/** The keys of a results.json record, in order: the file holds these and nothing else (notes are printed). */
const KEYS = ['id', 'ours', 'baseline', 'unit', 'ratio', 'higherIsBetter', 'target', 'met', 'runs', 'spread']

/** A record as results.json holds it: exactly {@link KEYS}. */
export function resultOf(record) {
  const missing = KEYS.filter((key) => !(key in record))
  if (missing.length > 0) throw new Error(`bench record "${record.id}" lacks ${missing.join(', ')}`)
  return Object.fromEntries(KEYS.map((key) => [key, record[key]]))
}

/** The ids or groups of `--only a,b`, or `undefined` for a full run. */
export function parseOnly(argv) {
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

/**
 * Writes a run's records as `argv` asks: a full run writes every record to
 * `files.scratch`, or with `--save` to `files.results`; a part (`--only`)
 * writes nothing unless `--save` (or `--merge`) asks, and then replaces the
 * rows of its ids in `files.results`. Returns what it wrote.
 */
export function writeResults(records, argv, files = { results: RESULTS, scratch: SCRATCH }) {
  const save = argv.includes('--save') || argv.includes('--merge')
  const rows = records.map(resultOf)
  const write = (file, benchmarks) => {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${JSON.stringify({ benchmarks }, null, 2)}\n`)
  }
  if (parseOnly(argv) === undefined) {
    const file = argv.includes('--save') ? files.results : files.scratch
    write(file, rows)
    return { file, merged: false }
  }
  // A partial run (--only) leaves the tracked file alone unless told to save its rows there.
  if (!save) return undefined
  write(files.results, mergeResults(JSON.parse(readFileSync(files.results, 'utf8')).benchmarks, rows))
  return { file: files.results, merged: true }
}

/**
 * Tool discovery (docs/guide/big-apis.md): `discovery-recall@5`, the share
 * of paraphrased questions (fixtures/corpus/discovery-queries.json, written
 * from the RPCs' comments in other words) whose tool `search_tools` answers
 * in its top 5, on servers the plugin built in `search` mode. Baseline, in
 * the same run: the same questions ranked by how many of their words a
 * tool's name and description share (ties in listing order), the ranking a
 * server without an index would give. The target is the absolute 0.9,
 * given as the ratio to this run's baseline that meets it. Deterministic:
 * one sample.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { record } from './lib/measure.mjs'
import { REPO, writeModule } from './lib/module.mjs'

const ROOT = dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'))
const QUERIES = JSON.parse(readFileSync(join(REPO, 'fixtures', 'corpus', 'discovery-queries.json'), 'utf8')).queries
const TOP = 5
const TARGET = 0.9

const words = (text) =>
  new Set(
    text
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  )

/** The baseline's top names: tools by shared words with the query. */
function overlapTop(tools, query) {
  const asked = words(query)
  const scored = tools.map((t, i) => {
    const own = words(`${t.name} ${t.description}`)
    let shared = 0
    for (const w of asked) if (own.has(w)) shared++
    return { name: t.name, shared, i }
  })
  return scored
    .sort((a, b) => b.shared - a.shared || a.i - b.i)
    .slice(0, TOP)
    .map((s) => s.name)
}

export default {
  name: 'discovery',
  ids: ['discovery-recall@5'],
  async run() {
    const servers = new Map()
    let ours = 0
    let baseline = 0
    const misses = []
    for (const { proto, tool, query } of QUERIES) {
      if (!servers.has(proto)) {
        const name = `discovery-${proto.replace(/[^A-Za-z0-9]+/g, '-')}`
        const file = await writeModule(join(ROOT, proto), name, { importPaths: [ROOT], discovery: 'search' })
        const { default: server } = await import(pathToFileURL(file).href)
        const all = await writeModule(join(ROOT, proto), `${name}-tools`, { importPaths: [ROOT], discovery: 'tools' })
        const { default: listed } = await import(pathToFileURL(all).href)
        servers.set(proto, { server, tools: listed.listTools() })
      }
      const { server, tools } = servers.get(proto)
      const result = await server.call('search_tools', { query, limit: TOP })
      const hits = result.structuredContent.tools.map((t) => t.name)
      if (hits.includes(tool)) ours++
      else misses.push(`${tool}: "${query}" → ${hits.join(', ')}`)
      if (overlapTop(tools, query).includes(tool)) baseline++
    }
    if (misses.length > 0) console.log(`discovery-recall@5 misses:\n  ${misses.join('\n  ')}`)
    const recall = ours / QUERIES.length
    const base = baseline / QUERIES.length
    const target = Number((TARGET / base).toPrecision(4))
    // record() reads samples as times (a "≥" ratio is baseline over ours); a recall is the other way up.
    const made = record({
      id: 'discovery-recall@5',
      samples: { ours: [1 / recall], baseline: [1 / base] },
      unit: 'recall',
      higherIsBetter: true,
      target,
      note: `${QUERIES.length} paraphrased questions over ${servers.size} protos, search_tools top ${TOP} (target ≥ ${TARGET}; baseline: word overlap with name and description)`,
    })
    return [{ ...made, ours: Number(recall.toPrecision(4)), baseline: Number(base.toPrecision(4)) }]
  },
}

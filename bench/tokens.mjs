/**
 * Tokens a model reads (docs/profiles.md, Token budget): the corpus of real
 * protos (fixtures/corpus/google-protos.json, from google-proto-files) built
 * by the plugin in `portable`, then listed by the generated server, each
 * tool's `name`, `description` and `inputSchema` counted with o200k
 * (gpt-tokenizer). Baseline: the same build without a budget
 * (`toolTokenBudget: false`, every message inlined as before the budget),
 * in the same run. Counts are deterministic: one sample each. Prints the
 * per-proto table (whole list and largest tool, before and after).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { quantile, record } from './lib/measure.mjs'
import { REPO, writeModule } from './lib/module.mjs'

const ROOT = dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'))
const CORPUS = JSON.parse(readFileSync(join(REPO, 'fixtures', 'corpus', 'google-protos.json'), 'utf8')).protos

/** The token count of every tool `proto` lists when built with `options`. */
async function listTokens(proto, options, tag) {
  const name = `tokens-${tag}-${proto.replace(/[^A-Za-z0-9]+/g, '-')}`
  const file = await writeModule(join(ROOT, proto), name, { importPaths: [ROOT], ...options })
  const { default: server } = await import(pathToFileURL(file).href)
  return server.listTools().map((t) => ({
    name: t.name,
    tokens: countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  }))
}

export default {
  name: 'tokens',
  ids: ['tokens-per-tool-p95', 'tokens-per-tool-max', 'tokens-per-server-max', 'tokens-per-server-max-40'],
  async run() {
    const ours = []
    const base = []
    const rows = ['| proto | tools | whole list before | after | largest tool before | after |', '|---|---:|---:|---:|---|---|']
    for (const proto of CORPUS) {
      const before = await listTokens(proto, { toolTokenBudget: false }, 'before')
      const after = await listTokens(proto, {}, 'after')
      const sum = (list) => list.reduce((n, t) => n + t.tokens, 0)
      const largest = (list) => list.reduce((a, b) => (b.tokens > a.tokens ? b : a))
      ours.push(after)
      base.push(before)
      rows.push(
        `| ${proto} | ${before.length} (+${after.length - before.length}) | ${sum(before)} | ${sum(after)} | ` +
          `${largest(before).name} ${largest(before).tokens} | ${largest(after).name} ${largest(after).tokens} |`,
      )
    }
    console.log(rows.join('\n'))
    const perTool = (lists) => lists.flat().map((t) => t.tokens)
    const total = (list) => list.reduce((n, t) => n + t.tokens, 0)
    // Servers of at most 40 RPC tools (counted without the type tool), before and after.
    const small = base.map((list, i) => i).filter((i) => base[i].length <= 40)
    // The targets are absolute token counts: `target` is the ratio to this run's baseline that meets them.
    const one = (id, ours, baseline, limit, note) =>
      record({
        id,
        samples: { ours: [ours], baseline: [baseline] },
        unit: 'tokens',
        higherIsBetter: false,
        target: Number((limit / baseline).toPrecision(4)),
        note: `${note} (target ≤ ${limit} tokens, the same run's portable without a budget as baseline)`,
      })
    const toolsOurs = perTool(ours)
    const toolsBase = perTool(base)
    return [
      one(
        'tokens-per-tool-p95',
        quantile(toolsOurs, 0.95),
        quantile(toolsBase, 0.95),
        1500,
        `p95 of the corpus's ${toolsOurs.length} tools`,
      ),
      one('tokens-per-tool-max', Math.max(...toolsOurs), Math.max(...toolsBase), 4000, 'the largest tool'),
      one('tokens-per-server-max', Math.max(...ours.map(total)), Math.max(...base.map(total)), 150000, 'the largest list'),
      one(
        'tokens-per-server-max-40',
        Math.max(...small.map((i) => total(ours[i]))),
        Math.max(...small.map((i) => total(base[i]))),
        60000,
        'the largest list of a server of at most 40 RPC tools',
      ),
    ]
  },
}

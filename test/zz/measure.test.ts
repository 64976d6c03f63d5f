import { it } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { buildProto } from '../../src/codegen/build-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { join } from 'node:path'
const ROOT = join(process.cwd(), 'node_modules/google-proto-files')
const FILES = (process.env.FILES ?? '').split(',').filter(Boolean)
it('measure', () => {
  const all: number[] = []
  for (const f of FILES) {
    const t0 = Date.now()
    let built
    try { built = buildProto(join(ROOT, f), { importPaths: [ROOT], profile: (process.env.PROFILE as any) ?? 'portable' }) } catch (e) { console.log('FAIL', f, (e as Error).message.slice(0, 200)); continue }
    const t1 = Date.now()
    const b = buildTools(built.model, { profile: (process.env.PROFILE as any) ?? 'portable', toolTokenBudget: process.env.OFF ? false : undefined, serverName: built.name })
    const listed = [...b.tools, ...(b.types ? [b.types.tool] : [])]
    const counts = listed.map((t) => [t.name, countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }))] as const)
    const total = counts.reduce((a, [, n]) => a + n, 0)
    const max = counts.reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0] as readonly [string, number])
    all.push(...counts.map(([, n]) => n))
    const answers = b.types ? Object.values(b.types.answers).map((a) => countTokens(a)) : []
    console.log(`${f}\t${counts.length}\t${total}\t${max[0]} ${max[1]}\t${t1 - t0}ms answers ${answers.length} max ${Math.max(0, ...answers)} ${b.warnings.map((w) => w.code).join(',')}`)
  }
  all.sort((a, b) => a - b)
  const q = (p: number) => all[Math.min(all.length - 1, Math.ceil(p * all.length) - 1)]
  console.log(`tools ${all.length} median ${q(0.5)} p95 ${q(0.95)} max ${all.at(-1)} over4000 ${all.filter((n) => n > 4000).length}`)
})

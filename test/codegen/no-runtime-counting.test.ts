/**
 * Generated modules count no tokens at run time (docs/internals.md, Token
 * counts): what a `?mcp` module loads (dist/codegen-v1.mjs, dist/runtime.mjs
 * and every chunk they import, statically or lazily) names no tokenizer,
 * and a module whose schemas the budget cut serves `tools/list` and the type
 * tool's answers over stdio with gpt-tokenizer never loaded.
 * Needs `npm run build`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { GOOGLE_PROTOS } from '../corpus/corpus.ts'

const REPO = join(import.meta.dirname, '..', '..')
const DIST = join(REPO, 'dist')
const OUT = join(REPO, '.tmp', 'modules')

/** Every dist file `entry` reaches through relative imports (`from "./x.mjs"`, `import("./x.mjs")`). */
function reachable(entry: string): string[] {
  const seen = new Set<string>()
  const queue = [entry]
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)["'](\.\.?\/[^"']+)["']/g)) queue.push(join(dirname(file), m[1]!))
  }
  return [...seen]
}

describe('generated modules count no tokens', () => {
  it('nothing a ?mcp module loads names the tokenizer', () => {
    const files = [...reachable(join(DIST, 'codegen-v1.mjs')), ...reachable(join(DIST, 'runtime.mjs'))]
    expect(files.length).toBeGreaterThan(3)
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      expect(text.includes('gpt-tokenizer'), file).toBe(false)
      expect(/\bo200k/.test(text), file).toBe(false)
    }
    // The build stages do name it: the check reads what it should.
    const all = reachable(join(DIST, 'gateway.mjs')).map((f) => readFileSync(f, 'utf8'))
    expect(all.some((t) => t.includes('gpt-tokenizer'))).toBe(true)
  })

  it('a module whose schemas the budget cut lists and answers the type tool with gpt-tokenizer never loaded', async () => {
    const built = buildModuleSource(join(GOOGLE_PROTOS, 'google/firestore/v1/firestore.proto'), { importPaths: [GOOGLE_PROTOS] })
    mkdirSync(OUT, { recursive: true })
    const module = join(OUT, `no-count-${process.pid}.mjs`)
    writeFileSync(module, built.code)
    // A preload that reports any load of gpt-tokenizer (CommonJS, as the schema stage loads it; an ESM import of it goes through here too).
    const hook = join(OUT, `no-count-hook-${process.pid}.cjs`)
    writeFileSync(
      hook,
      `const Module = require('node:module'); const load = Module._load;\n` +
        `Module._load = function (request, ...rest) { if (String(request).includes('gpt-tokenizer')) process.stderr.write('TOKENIZER LOADED ' + request + '\\n'); return load.call(this, request, ...rest) }\n` +
        `process.on('exit', () => { for (const k of Object.keys(require.cache)) if (k.includes('gpt-tokenizer')) process.stderr.write('TOKENIZER CACHED ' + k + '\\n') })\n`,
    )
    const child = join(OUT, `no-count-child-${process.pid}.mjs`)
    writeFileSync(child, `const { default: server } = await import(${JSON.stringify(module)})\nawait server.serveStdio()\n`)
    expect(existsSync(join(DIST, 'codegen-v1.mjs'))).toBe(true)
    const { answers, stderr } = await speak(child, hook, [
      { id: 2, method: 'tools/list', params: {} },
      { id: 3, method: 'tools/call', params: { name: 'describe_type', arguments: { type: 'google.firestore.v1.StructuredQuery' } } },
    ])
    const tools = (answers[2] as { tools: { name: string; inputSchema: unknown }[] }).tools
    expect(tools.map((t) => t.name)).toContain('describe_type')
    expect(JSON.stringify(tools)).toContain('schema: describe_type')
    expect(JSON.stringify(answers[3])).toContain('google.firestore.v1.StructuredQuery')
    expect(stderr).not.toContain('TOKENIZER')
  }, 120_000)
})

/** Runs `script` (with `hook` preloaded) as a stdio server, sends initialize then `requests`, and resolves their results by id and its stderr. */
function speak(script: string, hook: string, requests: { id: number; method: string; params: unknown }[]) {
  return new Promise<{ answers: Record<number, unknown>; stderr: string }>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--require', hook, script], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO })
    const line = (m: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`
    const answers: Record<number, unknown> = {}
    let buffer = ''
    let stderr = ''
    proc.stderr.on('data', (c) => (stderr += c))
    proc.on('error', reject)
    proc.on('exit', () => resolve({ answers, stderr }))
    proc.stdout.setEncoding('utf8')
    proc.stdout.on('data', (chunk: string) => {
      buffer += chunk
      let nl
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl)) as { id?: number; result?: unknown; error?: unknown }
        buffer = buffer.slice(nl + 1)
        if (message.id === 1) proc.stdin.write(line({ method: 'notifications/initialized' }) + requests.map(line).join(''))
        else if (message.id !== undefined) answers[message.id] = message.result ?? message.error
        if (requests.every((r) => r.id in answers)) {
          proc.stdin.end()
          setTimeout(() => proc.kill(), 5000).unref()
        }
      }
    })
    proc.stdin.write(
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      }),
    )
  })
}

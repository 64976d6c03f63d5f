/**
 * A bad `.proto` fails the build in every bundler, with an error naming
 * the `.proto` file and the line: a syntax error, a missing import, an
 * unknown type (one fixture file each, under fixtures/apps/errors/).
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BUNDLERS, bundle, createWorkspace } from './harness.ts'

const CASES = [
  { fixture: 'syntax', line: 7, reason: /illegal token|expected/ },
  { fixture: 'missing-import', line: 5, reason: /does\/not\/exist\.proto/ },
  { fixture: 'unknown-type', line: 10, reason: /NoSuchResponse/ },
] as const

let ws = ''
beforeAll(() => {
  ws = createWorkspace('errors')
})

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  // esbuild puts each message on `errors`; the webpack harness joins them into the message.
  const extra = (error as { errors?: { text?: string }[] }).errors?.map((e) => (typeof e === 'string' ? e : (e.text ?? ''))) ?? []
  return [error.message, ...extra].join('\n')
}

describe.each(BUNDLERS)('%s', (bundler) => {
  it.each(CASES)('fails on the $fixture fixture, naming the .proto file and the line', async ({ fixture: name, line, reason }) => {
    const dir = join(ws, 'fixtures', 'apps', 'errors')
    const result = bundle(bundler, join(dir, `${name}.mjs`), join(ws, 'out', `${bundler}-${name}`))
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, 'the build must fail').toBeDefined()
    const text = errorText(error)
    expect(text).toContain(join(dir, `${name}.proto`))
    expect(text).toMatch(new RegExp(`line ${line}\\b|:${line}:\\d+`))
    expect(text).toMatch(reason)
  })
})

describe('the thrown error points into the .proto (rollup)', () => {
  it('carries id, loc and a frame', async () => {
    const dir = join(ws, 'fixtures', 'apps', 'errors')
    const error = (await bundle('rollup', join(dir, 'syntax.mjs'), join(ws, 'out', 'rollup-loc')).then(
      () => undefined,
      (e: unknown) => e,
    )) as { id?: string; loc?: unknown; frame?: string; pluginCode?: string }
    expect(error.id).toBe(`${join(dir, 'syntax.proto')}?mcp`)
    expect(error.loc).toEqual({ file: join(dir, 'syntax.proto'), line: 7, column: 3 })
    expect(error.pluginCode).toBe('PROTO_SYNTAX')
    expect(error.frame).toContain('7 |   int32 size = 2;')
  })
})

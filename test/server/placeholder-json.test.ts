/**
 * A placeholder of the token budget (a message field advertised as JSON
 * text) given text that is not JSON: the error says the JSON is invalid and
 * where, not that a string is not an object.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { text } from '../helpers/result.ts'

const dir = mkdtempSync(join(tmpdir(), 'placeholder-json-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fields = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `string ${prefix}_${i} = ${i + 1};`).join(' ')

function budgeted(): ReturnType<typeof createProtoServer> {
  const file = join(dir, 'twig.proto')
  writeFileSync(
    file,
    `syntax = "proto3";\npackage beta.v1;\nmessage Twig { ${fields('b', 6)} }\nmessage Bud { ${fields('u', 6)} }\n` +
      'message Req { Twig twig = 1; Bud bud = 2; }\nservice B { rpc PutB(Req) returns (Req); }\n',
  )
  const built = buildServerSpec(file, { toolTokenBudget: 100 })
  return createProtoServer(built.spec).implement('B', { PutB: (req: unknown) => req })
}

describe('a placeholder given invalid JSON text', () => {
  it('says the JSON text is invalid, where in it, and what type it should hold', async () => {
    const server = budgeted()
    const cut = server.listTools()[0]!.inputSchema as { properties: Record<string, { type?: string }> }
    const placeholder = Object.keys(cut.properties).find((k) => cut.properties[k]!.type === 'string')!
    const result = await server.call('PutB', { [placeholder]: '{not json' })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(
      new RegExp(
        `^invalid arguments: /${placeholder}: not valid JSON text \\(.*position 1.*\\) \\(/${placeholder} is beta\\.v1\\.\\w+; schema: describe_type\\)$`,
      ),
    )
    // Valid JSON text of the type still goes through.
    const ok = await server.call('PutB', { [placeholder]: '{"b_0":"x"}' })
    expect(ok.isError, text(ok)).toBe(false)
  })
})

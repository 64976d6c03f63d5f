/**
 * Fields and RPCs named after `Object.prototype` members (`constructor`,
 * `toString`, `valueOf`, `hasOwnProperty`, ...): the generated module and the
 * CLI's spec never read them through the prototype chain, so a call that
 * leaves them out is valid and answers `{}`. `__proto__` as a name fails the
 * build with a clear error at its line instead of vanishing.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { Server } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { loadMcpModule } from '../helpers/load-module.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const PROTO = fileURLToPath(new URL('../../fixtures/protos/hardening/prototype-names.proto', import.meta.url))
const echo = (request: unknown): unknown => request

const servers: [string, () => Promise<Server>][] = [
  ['the generated module', async () => (await loadMcpModule(PROTO)).server],
  ['the CLI spec', async () => createProtoServer(buildServerSpec(PROTO).spec) as unknown as Server],
]

describe.each(servers)('prototype member names (%s)', (_title, make) => {
  it('lists every RPC as a tool', async () => {
    const server = await make()
    expect(
      server
        .listTools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['Echo', 'constructor', 'toString'])
  })

  it('accepts a call that leaves the fields out, at any depth, and echoes what was set', async () => {
    const server = await make()
    server.implement('NamedService', { Echo: echo, toString: echo, constructor: echo })
    for (const tool of ['Echo', 'toString', 'constructor']) {
      const empty = await server.call(tool, {})
      expect(empty.content[0].text, tool).toBe('{}')
    }
    const nested = await server.call('Echo', { inner: { vibe: 'x' } })
    expect(nested.content[0].text).toBe('{"inner":{"vibe":"x"}}')
    const set = await server.call('Echo', {
      constructor: 'c',
      toString: 't',
      valueOf: 'v',
      inner: { hasOwnProperty: 'h' },
      isPrototypeOf: { a: 'b' },
    })
    expect(JSON.parse(set.content[0].text)).toEqual({
      constructor: 'c',
      toString: 't',
      valueOf: 'v',
      inner: { hasOwnProperty: 'h' },
      isPrototypeOf: { a: 'b' },
    })
  })

  it('still checks the fields when they are set', async () => {
    const server = await make()
    server.implement('NamedService', { Echo: echo })
    expect((await server.call('Echo', { constructor: 5 })).content[0].text).toBe(
      'invalid arguments: /constructor: 5 is not of type "string"',
    )
  })

  it('answers a reply that leaves them out, and an unimplemented toString as unimplemented', async () => {
    const server = await make()
    server.implement('NamedService', { Echo: () => ({ inner: {} }) })
    expect((await server.call('Echo', {})).content[0].text).toBe('{"inner":{}}')
    expect((await server.call('toString', {})).content[0].text).toBe(
      'rpc error: code = Unimplemented desc = method toString not implemented',
    )
  })
})

describe('a hand-written tool with such property names', () => {
  it('accepts arguments that leave them out, and checks them when set', async () => {
    const server = Server.builder('hand')
      .tool(
        {
          name: 'Hand',
          inputSchema: {
            type: 'object',
            properties: { constructor: { type: 'string' }, toString: { type: 'string' } },
            required: ['toString'],
          },
        },
        (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }], isError: false }),
      )
      .build()
    expect((await server.call('Hand', { toString: 't' })).content[0].text).toBe('{"toString":"t"}')
    expect((await server.call('Hand', {})).content[0].text).toMatch(/^invalid arguments: .*toString/)
    expect((await server.call('Hand', { toString: 't', constructor: 5 })).content[0].text).toBe(
      'invalid arguments: /constructor: 5 is not of type "string"',
    )
  })
})

describe('__proto__ as a name', () => {
  const cases: [string, string][] = [
    ['an rpc', 'message M { string a = 1; }\nservice S {\n  rpc __proto__(M) returns (M);\n}'],
    ['a field', 'message M {\n  string __proto__ = 1;\n}\nservice S { rpc Get(M) returns (M); }'],
    ['a message', 'message __proto__ {\n  string a = 1;\n}\nservice S { rpc Get(__proto__) returns (__proto__); }'],
  ]
  it.each(cases)('fails the build for %s, naming the file and line', (_what, body) => {
    const dir = writeProtos({ 'p.proto': `syntax = "proto3";\npackage p;\n${body}\n` })
    const file = join(dir, 'p.proto')
    const line = body.split('\n').findIndex((l) => l.includes('__proto__')) + 3
    for (const build of [() => buildModuleSource(file), () => buildServerSpec(file)]) {
      expect(build).toThrow(
        `cannot parse "${file}": the name "__proto__" cannot be used: JavaScript objects cannot hold it as a key, so its declaration would vanish (rename it) (line ${line})`,
      )
    }
  })
})

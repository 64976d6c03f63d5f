/**
 * Messages nested past what the build can compile, and JSON numbers past the
 * double range, get clear messages: a 2 000-deep chain of messages used to
 * fail the CLI and the plugin with only `Maximum call stack size exceeded`
 * (no file, no message); `1e400` was reported as `number out of range: null`.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { MAX_MESSAGE_NESTING } from '../../src/proto/check-nesting.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { ECHO_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { builtCli, runCli } from '../helpers/cli.ts'

/** A file with a chain of `n` messages, each holding the next, and a service using the first. */
function chain(n: number): string {
  const lines = ['syntax = "proto3";', 'package deep.v1;', 'service S {', '  rpc Walk(M0) returns (M0);', '}']
  for (let i = 0; i < n; i++) lines.push(`message M${i} { ${i < n - 1 ? `M${i + 1} next = 1;` : 'string s = 1;'} }`)
  return join(writeProtos({ 'deep.proto': `${lines.join('\n')}\n` }), 'deep.proto')
}

describe('deep message nesting', () => {
  const expected = (file: string) =>
    `cannot parse "${file}": message "deep.v1.M0" (of rpc S.Walk) nests more than ${MAX_MESSAGE_NESTING} messages deep, ` +
    'more than the build compiles (protobuf JSON decodes 100 levels at most); flatten the chain or make it recursive (line 6)'

  it('a 2 000-deep chain fails the plugin and the CLI spec naming the file, the line and the message', () => {
    const file = chain(2000)
    expect(() => buildModuleSource(file)).toThrow(expected(file))
    expect(() => buildServerSpec(file)).toThrow(expected(file))
  })

  it('proto-mcp serve prints it as one line and exits 1', { timeout: 120_000 }, async () => {
    const file = chain(2000)
    const run = await runCli(builtCli(), ['serve', file, '--grpc', '127.0.0.1:1'])
    expect(run.code).toBe(1)
    // The command names the place as file:line:column, once.
    expect(run.stderr).toBe(`proto-mcp: ${file}:6:1: ${expected(file).replace(`cannot parse "${file}": `, '').replace(' (line 6)', '')}\n`)
  })

  it(`a chain of exactly ${MAX_MESSAGE_NESTING} builds, and a recursive message is not a chain`, () => {
    expect(() => buildModuleSource(chain(MAX_MESSAGE_NESTING))).not.toThrow()
    const dir = writeProtos({
      'r.proto':
        'syntax = "proto3";\npackage r;\nmessage Node { repeated Node children = 1; Node parent = 2; }\nservice S { rpc Get(Node) returns (Node); }\n',
    })
    expect(() => buildModuleSource(join(dir, 'r.proto'))).not.toThrow()
  })
})

describe('a JSON number beyond the double range', () => {
  const server = createProtoServer(specFromProto(ECHO_PROTO)).implement('EchoService', { Echo: () => ({}) })
  it.each([
    [
      'a double',
      '{"scalars":{"aDouble":1e400}}',
      'scalars.aDouble: number out of range: a JSON number beyond ±1.8e308 (such as 1e400) is not a number; an infinite float is written "Infinity" or "-Infinity"',
    ],
    ['an int32', '{"number":1e400}', 'number: number out of range: a JSON number beyond ±1.8e308 (such as 1e400) is not a number'],
    [
      'an int64, negative',
      '{"scalars":{"anInt64":-1e400}}',
      'scalars.anInt64: number out of range: a JSON number beyond ±1.8e308 (such as -1e400) is not a number',
    ],
  ])('in %s is named for what it is, not "null"', async (_what, json, reason) => {
    const result = await server.call('Echo', JSON.parse(json))
    expect(result.content[0].text).toBe(`decoding arguments: ${reason}`)
  })
})

describe('a JSON number beyond the double range where the schema wants a string', () => {
  it('says the number is out of range, not that null is not a string (the validation text)', async () => {
    const server = createProtoServer(specFromProto(ECHO_PROTO)).implement('EchoService', { Echo: () => ({}) })
    const result = await server.call('Echo', JSON.parse('{"name":1e400}'))
    expect(result.content[0].text).toBe(
      'invalid arguments: /name: number out of range: a JSON number beyond ±1.8e308 (such as 1e400) is not a number',
    )
  })
})

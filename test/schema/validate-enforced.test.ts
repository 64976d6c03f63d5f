/**
 * End to end: the standalone validators the code generator emits enforce
 * buf.validate rules and field_behavior REQUIRED; a violation is a tool
 * error naming the field, and the backend never sees the call.
 */
import { describe, expect, it } from 'vitest'
import { compileValidators } from '../../src/codegen/compile-validators.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import * as runtime from '../../src/entries/codegen-v1.ts'
import type { ProtoServerSpec, ValidateFunction } from '../../src/runtime/types.ts'
import { compile } from '../helpers/inline-proto.ts'

const model = compile(`import "buf/validate/validate.proto";
import "google/api/field_behavior.proto";
enum Level { LEVEL_UNSPECIFIED = 0; LOW = 1; HIGH = 2; }
message Req {
  string name = 1 [(buf.validate.field).string = { min_len: 3, max_len: 8 }, (google.api.field_behavior) = REQUIRED];
  string code = 2 [(buf.validate.field).string.pattern = "^[A-Z]{2}$"];
  string kind = 3 [(buf.validate.field).string = { in: ["a", "b"] }];
  string fixed = 4 [(buf.validate.field).string.const = "x"];
  string email = 5 [(buf.validate.field).string.email = true];
  string id = 6 [(buf.validate.field).string.uuid = true];
  string site = 7 [(buf.validate.field).string.uri = true];
  string host = 8 [(buf.validate.field).string.hostname = true];
  string v4 = 9 [(buf.validate.field).string.ipv4 = true];
  string v6 = 10 [(buf.validate.field).string.ipv6 = true];
  int32 count = 11 [(buf.validate.field).int32 = { gt: 0, lte: 10 }];
  int64 big = 12 [(buf.validate.field).int64.gte = 100];
  repeated string tags = 13 [(buf.validate.field).repeated = { min_items: 1, unique: true }];
  map<string, int32> weights = 14 [(buf.validate.field).map = { max_pairs: 1, keys: { string: { max_len: 2 } } }];
  Level level = 15 [(buf.validate.field).enum = { in: [2] }];
  string server_id = 16 [(google.api.field_behavior) = OUTPUT_ONLY];
  string status = 17 [(buf.validate.field).string.not_in = "bad"];
}
message Res { string name = 1; }
service S { rpc Put(Req) returns (Res); }`)

/** A server whose validators are the generated standalone code, evaluated with the runtime's helpers. */
function serverWithStandaloneValidators(profile: 'full' | 'portable' = 'full') {
  const { tools, lenient } = buildTools(model, { profile })
  const { code, names, helpers } = compileValidators(tools.map((t) => t.validationSchema ?? t.inputSchema))
  expect(code).not.toContain('require(')
  const values = helpers.map((name) => (runtime as Record<string, unknown>)[name])
  // eslint-disable-next-line no-new-func -- the point is to run generated code
  const table = new Function(...helpers, `${code}\nreturn { ${[...new Set(names)].join(', ')} }`)(...values) as Record<
    string,
    ValidateFunction
  >
  const spec: ProtoServerSpec = {
    name: 'rules',
    version: '0.0.0',
    profile,
    descriptor: model.descriptor,
    tools: tools.map(({ validationSchema: _, ...tool }, i) => ({ ...tool, validate: table[names[i]!]! })),
    services: { 't.S': ['Put'] },
    ...(lenient ? { lenient } : {}),
  }
  const server = runtime.createProtoServer(spec)
  const calls: unknown[] = []
  server.implement('S', {
    Put: (req: { name?: string }) => {
      calls.push(req)
      return { name: req.name }
    },
  })
  return { server, calls }
}

const VALID = { name: 'alice', tags: ['t'] }

describe('buf.validate rules enforced by the generated validator', () => {
  it('a min_len violation is a tool error naming the field; the backend is not called', async () => {
    const { server, calls } = serverWithStandaloneValidators()
    const result = await server.call('Put', { ...VALID, name: 'al' })
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'invalid arguments: /name: "al" is shorter than 3 characters' }],
    })
    expect(calls).toEqual([])
  })

  it('a valid request reaches the backend', async () => {
    const { server, calls } = serverWithStandaloneValidators()
    const result = await server.call('Put', {
      ...VALID,
      code: 'AB',
      kind: 'a',
      fixed: 'x',
      email: 'a@b.example',
      id: '123e4567-e89b-12d3-a456-426614174000',
      site: 'https://example.com/x',
      host: 'api.example.com',
      v4: '10.0.0.1',
      v6: '::1',
      count: 10,
      big: '5',
      level: 'HIGH',
    })
    expect(result.isError).toBe(false)
    expect(calls).toHaveLength(1)
  })

  it('each rule reads as a message naming its field', async () => {
    const { server, calls } = serverWithStandaloneValidators()
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'muchtoolong' }, '/name: "muchtoolong" is longer than 8 characters'],
      [{ code: 'abc' }, '/code: "abc" does not match "^[A-Z]{2}$"'],
      [{ kind: 'c' }, '/kind: "c" is not one of "a" or "b"'],
      [{ fixed: 'y' }, '/fixed: "x" was expected'],
      [{ email: 'nope' }, '/email: "nope" is not a "email"'],
      [{ id: 'nope' }, '/id: "nope" is not a "uuid"'],
      [{ site: 'no scheme' }, '/site: "no scheme" is not a "uri"'],
      [{ host: 'bad_host!' }, '/host: "bad_host!" is not a "hostname"'],
      [{ v4: '1.2.3' }, '/v4: "1.2.3" is not a "ipv4"'],
      [{ v6: 'zz::' }, '/v6: "zz::" is not a "ipv6"'],
      [{ count: 0 }, '/count: 0 is less than or equal to the minimum of 0'],
      [{ count: 11 }, '/count: 11 is greater than the maximum of 10'],
      [{ tags: [] }, '/tags: [] has less than 1 item'],
      [{ tags: ['a', 'a'] }, '/tags: ["a","a"] has non-unique elements'],
      [{ weights: { a: 1, b: 2 } }, '/weights: {"a":1,"b":2} has more than 1 property'],
      [{ weights: { abc: 1 } }, '/weights: "abc" is longer than 2 characters; /weights: {"abc":1} has an invalid property name "abc"'],
      [{ status: 'bad' }, '/status: "bad" should not be valid under {"enum":["bad"]}'],
      [{ level: 'LOW' }, '/level: "LOW" is not one of "HIGH"'],
      [{ serverId: 'x' }, '/serverId: unknown field'],
    ]
    expect((await server.call('Put', { tags: ['t'] })).content[0].text).toBe('invalid arguments: : "name" is a required property')
    for (const [args, text] of cases) {
      const result = await server.call('Put', { ...VALID, ...args })
      expect(result.content[0].text, JSON.stringify(args)).toBe(`invalid arguments: ${text}`)
    }
    // 64-bit bounds sit on the integer branch: a number below them fails, a decimal string is not checked.
    expect((await server.call('Put', { ...VALID, big: 99 })).content[0].text).toMatch(/^invalid arguments: \/big: 99 /)
    expect((await server.call('Put', { ...VALID, big: '99' })).isError).toBe(false)
    expect(calls).toHaveLength(1)
  })
})

describe('portable: the rules the advertised schema only describes are still enforced', () => {
  it('each rule reads as the same message naming its field', async () => {
    const { server, calls } = serverWithStandaloneValidators('portable')
    const listed = server.listTools()[0]!.inputSchema as { properties: Record<string, Record<string, unknown>> }
    // Said in the description, not as keywords Gemini or Cursor refuse.
    expect(listed.properties.email).not.toHaveProperty('format')
    expect(listed.properties.email!.description).toMatch(/format email/)
    expect(listed.properties.count).not.toHaveProperty('exclusiveMinimum')
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'muchtoolong' }, '/name: "muchtoolong" is longer than 8 characters'],
      [{ code: 'abc' }, '/code: "abc" does not match "^[A-Z]{2}$"'],
      [{ fixed: 'y' }, '/fixed: "x" was expected'],
      [{ email: 'nope' }, '/email: "nope" is not a "email"'],
      [{ id: 'nope' }, '/id: "nope" is not a "uuid"'],
      [{ count: 0 }, '/count: 0 is less than or equal to the minimum of 0'],
      [{ tags: ['a', 'a'] }, '/tags: ["a","a"] has non-unique elements'],
      [{ weights: { a: 1, b: 2 } }, '/weights: [{"key":"a","value":1},{"key":"b","value":2}] has more than 1 item'],
      [{ status: 'bad' }, '/status: "bad" should not be valid under {"enum":["bad"]}'],
      [{ serverId: 'x' }, '/serverId: unknown field'],
    ]
    for (const [args, text] of cases) {
      const result = await server.call('Put', { ...VALID, ...args })
      expect(result.content[0].text, JSON.stringify(args)).toBe(`invalid arguments: ${text}`)
    }
    expect(calls).toEqual([])
    expect((await server.call('Put', { ...VALID, email: 'a@b.example', weights: [{ key: 'ab', value: 1 }] })).isError).toBe(false)
    expect(calls).toHaveLength(1)
  })
})

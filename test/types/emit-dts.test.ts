/**
 * `emitModuleDeclarations`: one inline proto per rule, checked on the
 * declaration text (the tsc runs in typed.test.ts check what it means).
 */
import { describe, expect, it } from 'vitest'
import { emitModuleDeclarations } from '../../src/codegen/index.ts'
import { compile } from '../helpers/inline-proto.ts'

/** The declarations of `source` with a service `S { rpc M(Req) returns (Res); }` appended. */
function declare(source: string, service = 'service S { rpc M(Req) returns (Res); }'): string {
  return emitModuleDeclarations(compile(`${source}\n${service}`))
}

/** The body lines of the interface `name` (trimmed), without comments. */
function members(text: string, name: string): string[] {
  const start = Math.max(text.indexOf(`export interface ${name} {`), text.indexOf(`export type ${name} = {`))
  expect(start, `interface ${name}`).toBeGreaterThanOrEqual(0)
  const body = text.slice(start, text.indexOf('\n}', start)).split('\n').slice(1)
  return body.map((line) => line.trim()).filter((line) => line && !line.startsWith('/**'))
}

describe('emitModuleDeclarations', () => {
  it('writes scalars in canonical form for requests and in every accepted form for replies', () => {
    const fields = 'int32 i = 1; int64 l = 2; uint64 u = 3; double d = 4; bool b = 5; string s = 6; bytes y = 7; fixed32 f = 8;'
    const text = declare(`message Req { ${fields} } message Res { ${fields} }`)
    expect(members(text, 'ReqJson')).toEqual([
      'i?: number',
      'l?: string',
      'u?: string',
      `d?: number | 'NaN' | 'Infinity' | '-Infinity'`,
      'b?: boolean',
      's?: string',
      'y?: string',
      'f?: number',
    ])
    expect(members(text, 'ResInput')).toEqual([
      'i?: number | string | null | undefined',
      'l?: number | string | bigint | null | undefined',
      'u?: number | string | bigint | null | undefined',
      'd?: number | string | null | undefined',
      'b?: boolean | null | undefined',
      's?: string | null | undefined',
      'y?: string | Uint8Array | null | undefined',
      'f?: number | string | null | undefined',
    ])
  })

  it('keys fields by JSON name, quoting names that are not identifiers', () => {
    const text = declare('message Req { string previous_vibe = 1; string odd = 2 [json_name = "a-b"]; } message Res {}')
    expect(members(text, 'ReqJson')).toEqual(['previousVibe?: string', '"a-b"?: string'])
  })

  it('writes enums as their names, and replies may use numbers', () => {
    const text = declare('enum E { E_A = 0; E_B = 1; } message Req { E e = 1; repeated E es = 2; } message Res { E e = 1; }')
    expect(text).toContain(`export type EJson = 'E_A' | 'E_B'\n`)
    expect(text).toContain(`export type EInput = 'E_A' | 'E_B' | number\n`)
    expect(members(text, 'ReqJson')).toEqual(['e?: EJson', 'es?: EJson[]'])
    expect(members(text, 'ResInput')).toEqual(['e?: EInput | null | undefined'])
  })

  it('writes repeated fields as arrays and maps as string-keyed objects', () => {
    const text = declare(
      'message Req { repeated int64 a = 1; map<int32, Req> m = 2; } message Res { repeated int64 a = 1; map<bool, string> m = 2; }',
    )
    expect(members(text, 'ReqJson')).toEqual(['a?: string[]', 'm?: { [key: string]: ReqJson }'])
    expect(members(text, 'ResInput')).toEqual([
      'a?: readonly (number | string | bigint)[] | null | undefined',
      'm?: { readonly [key: string]: string } | null | undefined',
    ])
  })

  it('writes well-known types in their JSON forms', () => {
    const text = declare(`
      import "google/protobuf/timestamp.proto"; import "google/protobuf/duration.proto"; import "google/protobuf/struct.proto";
      import "google/protobuf/wrappers.proto"; import "google/protobuf/any.proto"; import "google/protobuf/field_mask.proto";
      message Req {
        google.protobuf.Timestamp t = 1; google.protobuf.Duration d = 2; google.protobuf.Struct s = 3;
        google.protobuf.Value v = 4; google.protobuf.ListValue l = 5; google.protobuf.Int64Value w = 6;
        google.protobuf.Any a = 7; google.protobuf.FieldMask f = 8; google.protobuf.NullValue n = 9;
      }
      message Res { google.protobuf.Int64Value w = 1; google.protobuf.Struct s = 2; }`)
    expect(members(text, 'ReqJson')).toEqual([
      't?: string',
      'd?: string',
      's?: { [key: string]: __JsonValue }',
      'v?: __JsonValue',
      'l?: __JsonValue[]',
      'w?: string',
      `a?: { '@type': string; [key: string]: unknown }`,
      'f?: string',
      'n?: null',
    ])
    expect(members(text, 'ResInput')).toEqual([
      'w?: number | string | bigint | null | undefined',
      's?: { readonly [key: string]: __JsonInput } | null | undefined',
    ])
    expect(text).not.toContain('TimestampJson')
  })

  it('names nested and recursive messages once', () => {
    const text = declare('message Req { message Inner { Inner next = 1; } Inner inner = 1; } message Res {}')
    expect(members(text, 'Req_InnerJson')).toEqual(['next?: Req_InnerJson'])
    expect(text.match(/export interface Req_InnerJson /g)).toHaveLength(1)
  })

  it('types each RPC under its name and its lowerCamel form, both optional', () => {
    const text = declare('message Req {} message Res {}', 'service S { rpc GetThing(Req) returns (Res); }')
    expect(members(text, 'SImplementation')).toEqual([
      'GetThing?: (request: ReqJson, context: __CallContext) => ResInput | Promise<ResInput>',
      'getThing?: (request: ReqJson, context: __CallContext) => ResInput | Promise<ResInput>',
    ])
    expect(members(text, 'Services')).toEqual(['"S": SImplementation', '"t.S": SImplementation'])
    expect(text).toContain('const server: __Server<Services>')
  })

  it('lets an Empty reply return nothing, types server-streaming RPCs as streams, leaves the other streaming RPCs untyped', () => {
    const text = declare(
      'import "google/protobuf/empty.proto"; message Req {} message Res {}',
      'service S { rpc Reset(Req) returns (google.protobuf.Empty); rpc Watch(Req) returns (stream Res); ' +
        'rpc Up(stream Req) returns (Res); rpc Chat(stream Req) returns (stream Res); }',
    )
    expect(members(text, 'SImplementation')).toEqual([
      'Reset?: (request: ReqJson, context: __CallContext) => Record<string, never> | void | Promise<Record<string, never> | void>',
      'reset?: (request: ReqJson, context: __CallContext) => Record<string, never> | void | Promise<Record<string, never> | void>',
      'Watch?: (request: ReqJson, context: __CallContext) => __Stream<ResInput> | Promise<__Stream<ResInput>>',
      'watch?: (request: ReqJson, context: __CallContext) => __Stream<ResInput> | Promise<__Stream<ResInput>>',
      'Up?: __RpcHandler',
      'up?: __RpcHandler',
      'Chat?: __RpcHandler',
      'chat?: __RpcHandler',
    ])
    expect(text).toContain('type __Stream<T> = readonly T[] | Iterable<T> | AsyncIterable<T>')
    expect(declare('message Req {}', 'service S { rpc Get(Req) returns (Req); }')).not.toContain('__Stream')
  })

  it('is deterministic: the same proto gives the same text', () => {
    const source = 'message Req { Res r = 1; } message Res { Req q = 1; }'
    expect(declare(source)).toBe(declare(source))
    const text = declare(source)
    const names = [...text.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]!)
    expect(names).toEqual(['ReqInput', 'ReqJson', 'ResInput', 'ResJson', 'SImplementation'])
    expect(text).toContain('export type Services = {')
  })

  it('keeps generated names apart when they would clash', () => {
    const text = declare('message A { message B {} } message A_B {} message Req { A.B x = 1; A_B y = 2; } message Res {}')
    expect(members(text, 'ReqJson')).toEqual(['x?: A_BJson', 'y?: A_BJson_2'])
    expect(text).toContain('export interface A_BJson {}')
    expect(text).toContain('export interface A_BJson_2 {}')
  })
})

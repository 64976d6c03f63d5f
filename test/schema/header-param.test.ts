/**
 * `(proto_mcp.field).header` (protos/proto_mcp/options.proto): a request
 * field mirrored into an `Mcp-Param-*` header (SEP-2243) gets
 * `x-mcp-header` in its tool's input schema; a field that cannot carry one
 * header value is a build error pointing at the field's line.
 */
import { describe, expect, it } from 'vitest'
import { isProtoError } from '../../src/proto/errors.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { checkClientRules } from '../../src/schema/client-rules.ts'
import { compile } from '../helpers/inline-proto.ts'

const proto = (fields: string) => `import "proto_mcp/options.proto";
message Inner { string zone = 1 [(proto_mcp.field) = { header: "Zone" }]; }
message Req {
${fields}
}
message Res {}
service S { rpc Deploy(Req) returns (Res); rpc Nested(Inner) returns (Res); }`

const propertiesOf = (source: string, profile: 'portable' | 'full' | 'strict' = 'portable') =>
  buildTools(compile(source), { profile }).tools.find((t) => t.name === 'Deploy')!.inputSchema.properties as Record<string, any>

describe('(proto_mcp.field).header', () => {
  it('string, bool, int32 and enum fields of the request message carry x-mcp-header', () => {
    const properties = propertiesOf(
      proto(`  string region = 1 [(proto_mcp.field) = { header: "Region" }];
  bool dry_run = 2 [(proto_mcp.field) = { header: "Dry-Run" }];
  int32 limit = 3 [(proto_mcp.field) = { header: "Limit" }];
  Mode mode = 4 [(proto_mcp.field) = { header: "Mode" }];
  string plain = 5;
  Inner inner = 6;
}
enum Mode { MODE_UNSPECIFIED = 0; FAST = 1;`),
    )
    expect(properties.region).toMatchObject({ type: 'string', 'x-mcp-header': 'Region' })
    expect(properties.dryRun['x-mcp-header']).toBe('Dry-Run')
    expect(properties.limit).toMatchObject({ type: 'integer', 'x-mcp-header': 'Limit' })
    expect(properties.mode['x-mcp-header']).toBe('Mode')
    expect(properties.plain['x-mcp-header']).toBeUndefined()
    // A nested message's option does not apply where it is not the request: its value is not one of the request's own.
    expect(properties.inner.properties.zone['x-mcp-header']).toBeUndefined()
  })

  it('the same message as a request of its own carries it', () => {
    const tools = buildTools(compile(proto('  string region = 1;'))).tools
    expect((tools.find((t) => t.name === 'Nested')!.inputSchema.properties as any).zone['x-mcp-header']).toBe('Zone')
  })

  it('int64 is a string in portable (a header can carry it) and anyOf in full (it cannot): a build error at the field', () => {
    const source = proto('  int64 id = 1 [(proto_mcp.field) = { header: "Id" }];')
    expect(propertiesOf(source).id).toMatchObject({ type: 'string', 'x-mcp-header': 'Id' })
    let error: unknown
    try {
      propertiesOf(source, 'full')
    } catch (e) {
      error = e
    }
    expect(isProtoError(error)).toBe(true)
    expect((error as Error).message).toContain(
      't.Req.id: (proto_mcp.field).header needs a singular field whose schema is a string, integer or boolean',
    )
    expect((error as { line: number }).line).toBe(6)
  })

  it('strict: a required field carries it, an optional one (nullable there) is a build error', () => {
    const source = (behavior: string) => `import "proto_mcp/options.proto";
import "google/api/field_behavior.proto";
message Req { string region = 1 [(proto_mcp.field) = { header: "Region" }${behavior}]; }
message Res {}
service S { rpc Deploy(Req) returns (Res); }`
    expect(propertiesOf(source(', (google.api.field_behavior) = REQUIRED'), 'strict').region['x-mcp-header']).toBe('Region')
    expect(() => propertiesOf(source(''), 'strict')).toThrow(
      't.Req.region: (proto_mcp.field).header needs a singular field whose schema is a string, integer or boolean; this one is of schema ["string","null"]',
    )
  })

  it('portable keeps it: of the client rule sets, gemini-legacy alone rejects the tool for it (Gemini’s parameters refuse unknown fields)', () => {
    const rejected = (options: string) => {
      const tool = buildTools(compile(proto(`  string region = 1${options};`))).tools.find((t) => t.name === 'Deploy')!
      return checkClientRules([{ name: tool.name, inputSchema: tool.inputSchema }])
        .filter((r) => r.rejected > 0)
        .map((r) => r.name)
    }
    const without = rejected('')
    const withHeader = rejected(' [(proto_mcp.field) = { header: "Region" }]')
    expect(withHeader.filter((name) => !without.includes(name))).toEqual(['gemini-legacy'])
  })

  it.each([
    ['a repeated field', '  repeated string tags = 1 [(proto_mcp.field) = { header: "Tags" }];', 'this one is repeated'],
    ['a double', '  double ratio = 1 [(proto_mcp.field) = { header: "Ratio" }];', 'of schema anyOf (several types)'],
    ['a message field', '  Inner inner = 1 [(proto_mcp.field) = { header: "Inner" }];', 'of schema "object"'],
    ['a name with a space', '  string region = 1 [(proto_mcp.field) = { header: "The Region" }];', 'is not a header name'],
  ])('%s is a build error', (_what, fields, message) => {
    expect(() => propertiesOf(proto(fields))).toThrow(message)
  })
})

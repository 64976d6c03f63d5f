/**
 * buildTools on fixture.proto: which RPCs become tools, name clashes, profiles.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { compile } from '../helpers/inline-proto.ts'

const model = loadProto(fileURLToPath(new URL('../../fixtures/topeka/fixture.proto', import.meta.url)))

describe('buildTools on fixture.proto', () => {
  it('gives unary RPCs a tool, not server-streaming ones; the last GetVibe wins at its own place', () => {
    const { tools, warnings } = buildTools(model, { profile: 'topeka' })
    expect(tools.map((t) => `${t.service}.${t.method}`)).toEqual([
      'mcpgen.VibeFixtureService.SetVibe',
      'mcpgen.VibeFixtureService.UpdateVibe',
      'mcpgen.OtherFixtureService.DoOther',
      'mcpgen.OtherFixtureService.GetVibe',
    ])
    expect(tools.find((t) => t.name === 'GetVibe')).toMatchObject({
      description: 'Shares its name with VibeFixtureService.GetVibe, on purpose.',
      requestType: 'mcpgen.OtherRequest',
    })
    expect(warnings).toEqual([
      {
        code: 'TOOL_NAME_CLASH',
        message:
          'tool "GetVibe" is declared by both mcpgen.VibeFixtureService and mcpgen.OtherFixtureService; the one of mcpgen.OtherFixtureService wins' +
          " (set the toolNames option to 'service' or 'qualified' to keep every RPC)",
        fix: "set the toolNames option to 'service' or 'qualified' to keep every RPC",
      },
    ])
    expect(model.warnings).toEqual([])
  })

  it('maps FieldMask at top level, nested and repeated', () => {
    const { tools } = buildTools(model, { profile: 'topeka' })
    const input = tools.find((t) => t.name === 'UpdateVibe')!.inputSchema as Record<string, any>
    expect(input.properties.updateMask).toEqual({ type: 'string', description: 'A top-level FieldMask field.' })
    expect(input.properties.details.properties.detailMask).toEqual({ type: 'string' })
    expect(input.properties.extraMasks).toEqual({ type: 'array', description: 'A repeated FieldMask field.', items: { type: 'string' } })
  })

  it('adds outputSchema in the default profile only', () => {
    const output = buildTools(model).tools.find((t) => t.name === 'UpdateVibe')!.outputSchema
    expect(output).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { appliedMask: { type: 'string' }, extraMasks: { type: 'array', items: { type: 'string' } } },
    })
    expect(buildTools(model, { profile: 'topeka' }).tools.filter((t) => t.outputSchema)).toEqual([])
  })
})

describe('outputSchema of responses whose JSON is not an object', () => {
  it('is left out for Timestamp and wrapper responses, kept for Empty and Struct', () => {
    const model = compile(`
      syntax = "proto3";
      package p;
      import "google/protobuf/timestamp.proto";
      import "google/protobuf/wrappers.proto";
      import "google/protobuf/empty.proto";
      import "google/protobuf/struct.proto";
      message Req {}
      service S {
        rpc Now(Req) returns (google.protobuf.Timestamp);
        rpc Count(Req) returns (google.protobuf.Int64Value);
        rpc Nothing(Req) returns (google.protobuf.Empty);
        rpc Bag(Req) returns (google.protobuf.Struct);
      }
    `)
    const { tools } = buildTools(model)
    const withOutput = Object.fromEntries(tools.map((t) => [t.name, t.outputSchema?.type]))
    expect(withOutput).toEqual({ Now: undefined, Count: undefined, Nothing: 'object', Bag: 'object' })
  })
})

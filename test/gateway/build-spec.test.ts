/**
 * `buildServerSpec`: the command's start-up pipeline (no bundler), checked
 * in process against the generated module's behaviour.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'
import { REPO } from '../helpers/repo.ts'

describe('buildServerSpec', () => {
  it('builds the Topeka tools with working validators and every service', async () => {
    const { spec, warnings, notes } = buildServerSpec(EXAMPLE_PROTO)
    expect(spec.name).toBe('example')
    expect(spec.tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
    expect(Object.keys(spec.services ?? {})).toEqual(['examples.v1.VibeService'])
    expect([warnings, notes]).toEqual([[], []])
    const server = createProtoServer(spec).implement('VibeService', { SetVibe: (r: { vibe?: string }) => ({ vibe: r.vibe }) })
    expect(text(await server.call('SetVibe', { vibe: 5 }))).toBe('invalid arguments: /vibe: 5 is not of type "string"')
    expect(text(await server.call('SetVibe', { vibe: 'ok' }))).toBe('{"vibe":"ok"}')
  })

  it('gathers validation errors linearly: no quadratic vErrors.concat in the compiled validators', async () => {
    // A recursive message: its schema is a $ref'd validator whose errors the caller gathers per item.
    const dir = writeProtos({
      'tree.proto':
        'syntax = "proto3";\npackage tree.v1;\nmessage Node { string s = 1; repeated Node kids = 2; }\n' +
        'message Req { repeated Node nodes = 1; }\nservice T { rpc Plant(Req) returns (Req); }\n',
    })
    const { spec } = buildServerSpec(join(dir, 'tree.proto'))
    const source = String(spec.tools[0]!.validate)
    expect(source).toMatch(/vErrors/)
    expect(source).not.toMatch(/vErrors\.concat\(/)
    const server = createProtoServer(spec)
    const result = await server.call('Plant', { nodes: Array.from({ length: 5000 }, () => ({ s: 1 })) })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^invalid arguments: \/nodes\/0\/s: 1 is not of type "string"/)
  })

  it('compiles every fixture proto with services (the rewrite accepts all the code Ajv makes for them)', () => {
    const protos = [
      'topeka/fixture.proto',
      'protos/grpc/shapes.proto',
      'protos/runtime/echo.proto',
      'protos/protojson/corpus.proto',
      'protos/bench/bench500.proto',
    ]
    for (const proto of protos) {
      const { spec } = buildServerSpec(join(REPO, 'fixtures', proto))
      expect(spec.tools.length, proto).toBeGreaterThan(0)
      for (const tool of spec.tools) expect(String(tool.validate), `${proto} ${tool.name}`).not.toMatch(/\.concat\(/)
    }
  }, 60_000)

  it('keeps the verbose report and Ajv warnings apart from the console', () => {
    const dir = writeProtos({
      'cel.proto':
        'syntax = "proto3";\npackage cel.v1;\nimport "buf/validate/validate.proto";\n' +
        'message M { int32 a = 1 [(buf.validate.field).cel = { id: "pos", expression: "this > 0" }]; }\n' +
        'service S { rpc Do(M) returns (M); }\n',
    })
    const { notes } = buildServerSpec(join(dir, 'cel.proto'))
    expect(notes).toEqual(['cel.v1.M.a: (buf.validate.field).cel is left out of the input schema (a CEL expression)'])
  })

  it('names tools as toolNames says', () => {
    const dir = writeProtos({
      'two.proto':
        'syntax = "proto3";\npackage two.v1;\nmessage M {}\nservice A { rpc Ping(M) returns (M); }\nservice B { rpc Ping(M) returns (M); }\n',
    })
    const method = buildServerSpec(join(dir, 'two.proto'))
    expect(method.spec.tools.map((t) => t.name)).toEqual(['Ping'])
    expect(method.warnings.map((w) => w.message).join('\n')).toMatch(/Ping/)
    const qualified = buildServerSpec(join(dir, 'two.proto'), { toolNames: 'qualified' })
    expect(qualified.spec.tools.map((t) => t.name)).toEqual(['two_v1_A_Ping', 'two_v1_B_Ping'])
    expect(qualified.warnings).toEqual([])
  })
})

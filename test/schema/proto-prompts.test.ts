/**
 * Prompts from the proto (docs/guide/resources.md, Prompts): what
 * `(proto_mcp.prompt)` and `(proto_mcp.service).prompt` options become, and
 * the build error, at its file and line, of each bad one.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderTemplate } from '../../src/contract/prompt-template.ts'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { isProtoError, protoErrorAt, type ProtoError } from '../../src/proto/errors.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildPrompts } from '../../src/schema/prompts.ts'
import { REPO } from '../helpers/repo.ts'
import { SET_VIBE_PROMPT } from '../helpers/vibes-prompts.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const VIBES = join(REPO, 'fixtures/apps/prompts/vibes.proto')

describe('prompts from the proto', () => {
  it('a service prompt, and RPC prompts taking the request fields or another message', () => {
    const prompts = buildPrompts(loadProto(VIBES))
    expect(prompts).toEqual([
      {
        name: 'vibe_report',
        title: 'Vibe report',
        description: 'Writes a report on the vibe of a region.',
        arguments: [
          { name: 'region', description: 'The region to report on.', required: true },
          { name: 'tone', description: "The report's tone: formal, casual, ..." },
        ],
        text: 'Write a {{tone}} report on the vibe in {{region}}.',
      },
      {
        ...SET_VIBE_PROMPT,
        // Written `{{ change_reason }}` (the proto name): kept by the argument's name.
        text: 'Set the vibe of {{region}} to {{vibe}}. Reason: {{changeReason}}.',
        // What completion/complete suggests for the enum argument.
        values: { vibe: ['CALM', 'LIVELY'] },
      },
      {
        name: 'explain_vibe',
        arguments: [{ name: 'vibe', description: 'The vibe to explain.', required: true }],
        text: 'Explain the vibe {{vibe}} in one sentence.',
      },
    ])
  })

  it('rendering fills placeholders, an argument not given is empty, other braces stay text', () => {
    expect(renderTemplate('a {{x}} b {{ y }} c {{x}} {not} {{1x}} {{}}', { x: 'X' })).toBe('a X b  c X {not} {{1x}} {{}}')
    // An argument's value is not read as a template again.
    expect(renderTemplate('{{x}}', { x: '{{y}}', y: 'no' })).toBe('{{y}}')
  })

  it('the ?mcp module carries the prompts in its spec; a file without any carries none', () => {
    expect(buildModuleSource(VIBES).code).toMatch(/prompts: \[\{"name":"vibe_report"/)
    expect(buildModuleSource(join(REPO, 'fixtures/protos/grpc/counter.proto')).code).not.toMatch(/prompts:/)
  })

  it('the methods filter leaves out the prompts of RPCs it leaves out (a service prompt stays)', () => {
    const names = buildPrompts(loadProto(VIBES), { methods: { exclude: ['prompts.v1.VibeService.SetVibe'] } }).map((p) => p.name)
    expect(names).toEqual(['vibe_report'])
  })
})

const HEADER = `syntax = "proto3";
package bad.v1;
import "proto_mcp/options.proto";
message Req {
  string region = 1;
  repeated string tags = 2;
  Req child = 3;
}
message Res {}
message Plain { string region = 1; }
`

/** The build error of a file of HEADER and `body`, its line counted from the file's start. */
function failure(body: string): ProtoError {
  const dir = writeProtos({ 'bad.proto': HEADER + body })
  try {
    buildPrompts(loadProto(join(dir, 'bad.proto')))
  } catch (error) {
    if (isProtoError(error)) return error
    throw error
  }
  throw new Error('no build error')
}

const lineOf = (body: string, needle: string): number => (HEADER + body).split('\n').findIndex((l) => l.includes(needle)) + 1

describe('bad prompt options are build errors at their line', () => {
  const cases = [
    {
      what: 'a placeholder naming no argument (at its own line)',
      body: `service S {\n  rpc Get(Plain) returns (Res) {\n    option (proto_mcp.prompt) = {\n      name: "p"\n      text: "Hello {{regoin}}"\n    };\n  }\n}\n`,
      at: 'Hello {{regoin}}',
      message:
        'prompt "p" ((proto_mcp.prompt) of RPC bad.v1.S.Get): the text names {{regoin}}, which is no argument (its arguments: region)',
    },
    {
      what: 'a missing name',
      body: `service S {\n  rpc Get(Req) returns (Res) {\n    option (proto_mcp.prompt) = { text: "Hi" };\n  }\n}\n`,
      at: 'rpc Get',
      message: '(proto_mcp.prompt) of RPC bad.v1.S.Get: a prompt needs a non-empty name',
    },
    {
      what: 'a missing text',
      body: `service S {\n  option (proto_mcp.service) = { prompt: { name: "p" } };\n  rpc Get(Req) returns (Res);\n}\n`,
      at: 'service S',
      message: 'prompt "p" ((proto_mcp.service).prompt of service bad.v1.S): a prompt needs a non-empty text',
    },
    {
      what: 'a field the option does not have',
      body: `service S {\n  rpc Get(Plain) returns (Res) {\n    option (proto_mcp.prompt) = { name: "p" txt: "a" };\n  }\n}\n`,
      at: 'rpc Get',
      message:
        'prompt "p" ((proto_mcp.prompt) of RPC bad.v1.S.Get): a prompt has no field "txt" (its fields: name, title, description, arguments, text)',
    },
    {
      what: 'a name twice',
      body: `service S {\n  option (proto_mcp.service) = { prompt: { name: "p" text: "a" } };\n  rpc Get(Plain) returns (Res) {\n    option (proto_mcp.prompt) = { name: "p" text: "b" };\n  }\n}\n`,
      at: 'rpc Get',
      message:
        'prompt "p" ((proto_mcp.prompt) of RPC bad.v1.S.Get) is defined twice: (proto_mcp.service).prompt of service bad.v1.S at line 11 has the name too; prompt names must be unique',
    },
    {
      what: 'arguments naming no message',
      body: `service S {\n  option (proto_mcp.service) = { prompt: { name: "p" arguments: "Nope" text: "a" } };\n  rpc Get(Req) returns (Res);\n}\n`,
      at: 'service S',
      message: 'prompt "p" ((proto_mcp.service).prompt of service bad.v1.S): arguments "Nope" names no message this file can see',
    },
    {
      what: 'an argument field no string can be (at the field)',
      body: `message Args { repeated string many = 1; }\nservice S {\n  option (proto_mcp.service) = { prompt: { name: "p" arguments: "Args" text: "a" } };\n  rpc Get(Req) returns (Res);\n}\n`,
      at: 'repeated string many',
      message:
        'prompt "p" ((proto_mcp.service).prompt of service bad.v1.S): argument field bad.v1.Args.many is repeated; prompt arguments are strings, so their fields must be singular scalars or enums (arguments names the message to take them from)',
    },
  ]
  for (const c of cases) {
    it(c.what, () => {
      const error = failure(c.body)
      expect(error.reason).toBe(c.message)
      expect(error.line).toBe(lineOf(c.body, c.at))
      expect(protoErrorAt(error)).toMatch(new RegExp(`bad\\.proto:${error.line}:\\d+: `))
    })
  }

  it("an RPC's own request gives the fields a string can be; a text naming another is refused at that field", () => {
    const body = `service S {\n  rpc Get(Req) returns (Res) {\n    option (proto_mcp.prompt) = { name: "p" text: "a {{region}}" };\n  }\n}\n`
    const dir = writeProtos({ 'ok.proto': HEADER + body })
    expect(buildPrompts(loadProto(join(dir, 'ok.proto')))).toEqual([{ name: 'p', text: 'a {{region}}', arguments: [{ name: 'region' }] }])
    const naming = body.replace('a {{region}}', 'a {{region}} {{tags}}')
    const error = failure(naming)
    expect(error.reason).toMatch(/argument field bad\.v1\.Req\.tags is repeated/)
    expect(error.line).toBe(lineOf(naming, 'repeated string tags'))
  })
})

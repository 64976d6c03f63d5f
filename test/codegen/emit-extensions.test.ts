/**
 * The emitted tool table carries the extension fields of the contract
 * (`ProtoToolSpec.title`, `annotations`, `serverStreaming`), and a server
 * built from it lists `title` and `annotations`.
 */
import { describe, expect, it } from 'vitest'
import { emitModule } from '../../src/codegen/index.ts'
import { buildTools } from '../../src/schema/index.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { ValidateFunction } from '../../src/runtime/types.ts'
import { compile } from '../helpers/inline-proto.ts'

const model = compile(`import "proto_mcp/options.proto";
message M { string s = 1; }
service S {
  rpc Read(M) returns (M) { option (proto_mcp.tool) = { title: "Read it", read_only_hint: true }; }
  rpc Watch(M) returns (stream M);
  rpc Secret(M) returns (M) { option (proto_mcp.tool).hidden = true; }
}`)
const { tools } = buildTools(model)

/** The `tools` literal of the emitted module, each entry's validate/codec identifiers dropped. */
function toolsOf(code: string): Record<string, unknown>[] {
  const literal = /^export const tools = (\[[\s\S]*?\n\])$/m.exec(code)
  if (!literal) throw new Error('no tools in the emitted module')
  return JSON.parse(literal[1]!.replace(/,\n\s*"(?:validate|decode|encode)": [\w$]+/g, '').replace(/,\n\]$/, '\n]'))
}

describe('extension fields in the emitted tools', () => {
  it('title, annotations and serverStreaming reach the module', () => {
    const emitted = toolsOf(emitModule(model, tools, { name: 'x' }))
    expect(emitted.map(({ name, title, annotations, serverStreaming }) => ({ name, title, annotations, serverStreaming }))).toEqual([
      { name: 'Read', title: 'Read it', annotations: { readOnlyHint: true }, serverStreaming: undefined },
      { name: 'Watch', title: undefined, annotations: undefined, serverStreaming: true },
    ])
  })

  it('tools/list shows title and annotations', () => {
    const server = createProtoServer({
      name: 'x',
      version: '0.0.0',
      profile: 'full',
      descriptor: model.descriptor,
      tools: tools.filter((t) => !t.serverStreaming).map((t) => ({ ...t, validate: (() => true) as ValidateFunction })),
      services: { 't.S': ['Read', 'Watch', 'Secret'] },
    })
    expect(server.listTools()).toEqual([expect.objectContaining({ name: 'Read', title: 'Read it', annotations: { readOnlyHint: true } })])
    // A hidden RPC has no tool but can still be implemented.
    expect(() => server.implement('S', { Secret: () => ({}) })).not.toThrow()
  })
})

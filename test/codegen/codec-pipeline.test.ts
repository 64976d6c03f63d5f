/**
 * The call pipeline gives the same result with generated codecs as without
 * (the reflection path alone): random arguments and random backend
 * responses, valid or not, through `callProtoTool`, compared whole
 * (text, isError, structuredContent), error texts included.
 */
import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ECHO_PROTO, EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { callProtoTool } from '../../src/runtime/pipeline.ts'
import { compileToolTable, type CompiledTool } from '../../src/runtime/tool-table.ts'
import type { ProtoServerSpec, ToolResult } from '../../src/runtime/types.ts'
import { loadCodecs, messageArb } from './codec-harness.ts'

const SEED = 51

/** Two tool tables of one proto: one whose tools carry the generated codecs, one without. */
function tables(file: string): { fast: Map<string, CompiledTool>; slow: Map<string, CompiledTool>; codecs: ReturnType<typeof loadCodecs> } {
  const spec = specFromProto(file)
  const codecs = loadCodecs(file)
  const withCodecs: ProtoServerSpec = {
    ...spec,
    tools: spec.tools.map((tool) => ({
      ...tool,
      decode: codecs.codecs.get(tool.requestType),
      encode: codecs.codecs.get(tool.responseType),
    })),
  }
  return { fast: new Map(compileToolTable(withCodecs).byName), slow: new Map(compileToolTable(spec).byName), codecs }
}

/** Binds `tool` to a backend answering `response` (and recording the request it got). */
function bind(tool: CompiledTool, response: unknown, seen: unknown[]): void {
  tool.handler = (request: unknown) => {
    seen.push(request)
    return response
  }
  tool.target = undefined
}

// proto2 `required` fields: a reply without one is an error on both paths.
const REQUIRED_PROTO = fileURLToPath(new URL('../../fixtures/protos/runtime/required.proto', import.meta.url))

describe.each([
  ['topeka example', EXAMPLE_PROTO],
  ['echo', ECHO_PROTO],
  ['required', REQUIRED_PROTO],
])('%s: codecs change no result', (_title, file) => {
  const { fast, slow, codecs } = tables(file)
  it.each([...fast.keys()])('%s', async (name) => {
    const fastTool = fast.get(name)!
    const slowTool = slow.get(name)!
    expect(fastTool.spec.decode).toBeTypeOf('function')
    const requestArb = messageArb(codecs.type(fastTool.spec.requestType), 0)
    const responseArb = fc.oneof(messageArb(codecs.type(fastTool.spec.responseType), 0), fc.constant(undefined))
    await fc.assert(
      fc.asyncProperty(requestArb, responseArb, async (args, response) => {
        const fastSeen: unknown[] = []
        const slowSeen: unknown[] = []
        bind(fastTool, response, fastSeen)
        bind(slowTool, response, slowSeen)
        const a: ToolResult = await callProtoTool(fastTool, args, { tool: name })
        const b: ToolResult = await callProtoTool(slowTool, args, { tool: name })
        expect(a).toStrictEqual(b)
        // The backend got the same canonical request (or was not called on both sides).
        expect(isDeepStrictEqual(fastSeen, slowSeen)).toBe(true)
      }),
      { seed: SEED, numRuns: 400 },
    )
  })
})

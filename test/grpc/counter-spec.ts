/**
 * The counter proto's spec with its server-streaming `Count` tool: as the
 * schema stage emits it when it does, else made by hand from the unary
 * `Once` tool (same request, the response wrapped in `messages`).
 */
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { COUNTER_PROTO } from './grpc-server.ts'

/** The spec of counter.proto with `Count` as a streaming tool. */
export function counterSpec(profile: 'default' | 'topeka' = 'default'): ProtoServerSpec {
  const spec = specFromProto(COUNTER_PROTO, { profile })
  if (spec.tools.some((tool) => tool.name === 'Count')) return spec
  const once = spec.tools.find((tool) => tool.name === 'Once')!
  const count = {
    ...once,
    name: 'Count',
    method: 'Count',
    description: 'Streams the numbers 1 to `to`',
    serverStreaming: true,
    ...(once.outputSchema ? { outputSchema: { type: 'object', properties: { messages: { type: 'array', items: once.outputSchema } } } } : {}),
  }
  return { ...spec, tools: [count, ...spec.tools] }
}

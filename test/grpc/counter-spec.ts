/**
 * The counter proto's spec (default profile), where the server-streaming
 * `Count` RPC is a tool built by the real schema stage.
 */
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { COUNTER_PROTO } from './grpc-server.ts'

/** The spec of counter.proto; throws if `Count` is not a streaming tool (the test would prove nothing). */
export function counterSpec(): ProtoServerSpec {
  const spec = specFromProto(COUNTER_PROTO)
  if (spec.tools.find((tool) => tool.name === 'Count')?.serverStreaming !== true) {
    throw new Error('counter.proto: Count is not a server-streaming tool in the default profile')
  }
  return spec
}

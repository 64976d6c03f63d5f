/** A backend that records every call and answers from a function per RPC. */
import type { CallContext } from '../../src/runtime/types.ts'

/** One recorded backend call. */
export interface RecordedCall {
  method: string
  request: unknown
  context: CallContext
}

/** Builds an implementation whose methods record their calls, then run `answers[method]` (default: `{}`). */
export function recordingBackend(
  methods: string[],
  answers: Record<string, (request: any) => unknown> = {},
): { impl: Record<string, (request: unknown, context: CallContext) => unknown>; calls: RecordedCall[] } {
  const calls: RecordedCall[] = []
  const impl: Record<string, (request: unknown, context: CallContext) => unknown> = {}
  for (const method of methods) {
    impl[method] = (request, context) => {
      calls.push({ method, request, context })
      const answer = answers[method]
      return answer ? answer(request) : {}
    }
  }
  return { impl, calls }
}

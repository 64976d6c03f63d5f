/**
 * What a handler can ask of the client it serves: log entries
 * (`notifications/message`, filtered by the client's level), elicitation
 * (`elicitation/create`) and sampling (`sampling/createMessage`), each tied
 * to the request being handled so it travels on that request's stream.
 */
import type { ServerContext } from '@modelcontextprotocol/server'
import type { CallContext, ElicitAnswer, ElicitRequest, LogLevel, SampleAnswer, SampleRequest } from '../runtime/types.ts'

/** The MCP log levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']

/** `context.log`: the SDK's filtered log, refusing a level MCP does not have. */
function logOf(ctx: ServerContext): NonNullable<CallContext['log']> {
  return (level, data, logger) => {
    if (!LOG_LEVELS.includes(level)) {
      return Promise.reject(new Error(`unknown log level ${JSON.stringify(level)}: use one of ${LOG_LEVELS.join(', ')}`))
    }
    // The SDK drops entries below the level the client set (logging/setLevel, or a 2026-07-28 request's own).
    return ctx.mcpReq.log(level, data, logger)
  }
}

/**
 * Sends `method` to the client as a request related to the one being
 * handled; the SDK refuses it on a 2026-07-28 request, whose answer to
 * "ask the client" is an `input_required` result, so say that.
 */
async function ask<T>(ctx: ServerContext, method: 'elicitation/create' | 'sampling/createMessage', params: Record<string, unknown>): Promise<T> {
  try {
    return await ctx.mcpReq.send({ method, params }, { signal: ctx.mcpReq.signal }) as T
  } catch (error) {
    if (ctx.mcpReq.envelope !== undefined && !(error as { code?: unknown }).code) {
      throw new Error(`${method} cannot be sent on a 2026-07-28 request: return an input_required result instead`, { cause: error })
    }
    throw error
  }
}

/** The `log`, `elicit` and `sample` of a request's context. */
export function clientRequests(ctx: ServerContext): Pick<CallContext, 'log' | 'elicit' | 'sample'> {
  return {
    log: logOf(ctx),
    elicit: (request: ElicitRequest) => ask<ElicitAnswer>(ctx, 'elicitation/create', { mode: 'form', ...request }),
    sample: (request: SampleRequest) => ask<SampleAnswer>(ctx, 'sampling/createMessage', { ...request }),
  }
}

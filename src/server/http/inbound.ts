/**
 * The edge of HTTP serving on Node (docs/internals.md, "One call path"): a
 * POST's body read once, its era decided once by the SDK's own classifier
 * (`classifyInboundRequest`, the rule `createMcpHandler` routes by), and
 * the request handed on with both, to a fast path or to the SDK path; no
 * step after this one reads the body or classifies it again.
 */
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { classifyInboundRequest, type InboundClassificationOutcome } from '@modelcontextprotocol/server'
import { MAX_BODY_BYTES } from '../serving/limits.ts'

/** The era of a request as the SDK's entry decides it: `legacy`, `modern`, or the rejection the SDK answers. */
export type Era = InboundClassificationOutcome

/**
 * The request body's chunks; `complete` is false past the body limit (the
 * rest is left unread). Read by `read()` as it becomes readable, not by
 * `for await` (that would destroy the stream when left early), in one
 * promise for the whole body (each is dearer under an SDK's
 * AsyncLocalStorage: docs/guide/production.md, "OpenTelemetry traces and metrics").
 */
function bodyOf(req: IncomingMessage): Promise<{ chunks: Buffer[]; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (complete: boolean): void => {
      req.off('readable', pull)
      req.off('end', end)
      req.off('error', fail)
      resolve({ chunks, complete })
    }
    function pull(): void {
      for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) {
        chunks.push(chunk)
        size += chunk.length
        if (size > MAX_BODY_BYTES) return finish(false)
      }
      if (req.readableEnded) finish(true)
    }
    const end = (): void => finish(true)
    const fail = (error: Error): void => {
      req.off('readable', pull)
      req.off('end', end)
      req.off('error', fail)
      reject(error)
    }
    req.on('readable', pull)
    req.on('end', end)
    req.on('error', fail)
    pull()
  })
}

/** A POST body as the edge read it. */
export interface ReadRequest {
  /** What was read of it (all of it unless past the limit): replayed to the SDK path when it is no JSON object or array. */
  readonly chunks: Buffer[]
  /** Its text (for exact 64-bit numbers). */
  readonly text: string
  /** Its JSON; `undefined` past the limit or when it is not JSON (the SDK path then says so, as for any request). */
  readonly message: unknown
}

/** Reads the body of `req` once (up to the limit) and parses it. */
export async function readRequest(req: IncomingMessage): Promise<ReadRequest> {
  const { chunks, complete } = await bodyOf(req)
  if (!complete) return { chunks, text: '', message: undefined }
  const text = Buffer.concat(chunks).toString('utf8')
  try {
    return { chunks, text, message: JSON.parse(text) as unknown }
  } catch {
    return { chunks, text, message: undefined }
  }
}

/**
 * The era of a request (`body`: its parsed JSON, for a POST), decided once
 * by the SDK's own rule: `header` reads a request header by its lower-case
 * name (a web `Request`'s `headers.get`, or {@link nodeHeader}).
 */
export function eraOf(httpMethod: string, header: (name: string) => string | null | undefined, body?: unknown): Era {
  const version = header('mcp-protocol-version') ?? undefined
  const method = header('mcp-method') ?? undefined
  const name = header('mcp-name') ?? undefined
  return classifyInboundRequest({
    httpMethod,
    ...(version === undefined ? {} : { protocolVersionHeader: version }),
    ...(method === undefined ? {} : { mcpMethodHeader: method }),
    ...(name === undefined ? {} : { mcpNameHeader: name }),
    ...(body === undefined ? {} : { body }),
  })
}

/** How {@link eraOf} reads a Node request's headers (Node joins a repeated custom header into one string). */
export const nodeHeader =
  (req: IncomingMessage) =>
  (name: string): string | undefined => {
    const value = req.headers[name]
    return typeof value === 'string' ? value : undefined
  }

/** A body the edge read whole and parsed, and its era, handed on to the SDK path with the request it came in. */
export interface ReadBody {
  /** The body's text (for exact 64-bit numbers). */
  readonly text: string
  /** The body's JSON: an object or an array. */
  readonly message: object
  /** Its era, when the edge decided it (the SDK path does not classify it again). */
  readonly era?: Era
}

/** How a request a fast path does not answer goes to the SDK path: its body replayed, or (`read`) already read and parsed. */
export type NextPath = (req: IncomingMessage, read?: ReadBody) => Promise<void>

/**
 * Hands a request whose body the edge read (`body`, as {@link readRequest}
 * gave it; `era`, when decided) to `next`: a body read whole and parsed goes
 * with it as it is (the SDK path does not read or parse it again, which cost
 * some 60 promises a request: docs/guide/production.md, "OpenTelemetry
 * traces and metrics"); any other (past the limit, not JSON, JSON but no
 * object or array) is replayed as it came, for the SDK path's own answer.
 */
export function declined(req: IncomingMessage, body: ReadRequest, next: NextPath, era?: Era): Promise<void> {
  const { message } = body
  if (message === null || typeof message !== 'object') return next(replayed(req, body.chunks))
  return next(req, era === undefined ? { text: body.text, message } : { text: body.text, message, era })
}

/**
 * The request again, its body replayed: `chunks` (what was read of it),
 * then whatever is left unread. What the SDK path reads when the fast path
 * declines, as it came (a body past the limit too: the SDK answers 413).
 */
export function replayed(req: IncomingMessage, chunks: readonly Buffer[]): IncomingMessage {
  const again = Readable.from(
    (async function* () {
      yield* chunks
      if (!req.readableEnded) yield* req as AsyncIterable<Buffer>
    })(),
  ) as Readable & Record<string, unknown>
  for (const key of ['method', 'url', 'headers', 'rawHeaders', 'httpVersion', 'socket', 'auth'] as const)
    again[key] = (req as unknown as Record<string, unknown>)[key]
  return again as unknown as IncomingMessage
}

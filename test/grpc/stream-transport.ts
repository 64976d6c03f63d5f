/**
 * A client transport over a pair of in-process streams speaking MCP's stdio
 * framing (one JSON-RPC message per line), for driving `serveStdio` with a
 * real SDK client without spawning a process.
 */
import { PassThrough } from 'node:stream'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'

/** The streams `serveStdio({ stdin, stdout })` takes, and a client transport on their other ends. */
export function streamPair(): { stdin: PassThrough; stdout: PassThrough; transport: Transport } {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  let buffer = ''
  const transport: Transport = {
    async start() {
      fromServer.setEncoding('utf8')
      fromServer.on('data', (chunk: string) => {
        buffer += chunk
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          const line = buffer.slice(0, end).trim()
          buffer = buffer.slice(end + 1)
          if (line) transport.onmessage?.(JSON.parse(line) as JSONRPCMessage)
        }
      })
      fromServer.on('end', () => transport.onclose?.())
    },
    async send(message: JSONRPCMessage) {
      toServer.write(`${JSON.stringify(message)}\n`)
    },
    async close() {
      toServer.end()
      transport.onclose?.()
    },
  }
  return { stdin: toServer, stdout: fromServer, transport }
}

/**
 * Records every message `transport` receives, from now on, as it arrives.
 * Tests check progress on the wire: the SDK client runs notification
 * handlers a microtask late, so a progress notification read in the same
 * chunk as the result can miss its (by then removed) `onprogress`.
 */
export function recordWire(transport: Transport): unknown[] {
  const wire: unknown[] = []
  const inner = transport.onmessage
  transport.onmessage = (message, extra) => {
    wire.push(message)
    inner?.(message, extra)
  }
  return wire
}

/**
 * The `[progress, message]` pairs of the `notifications/progress` received
 * before the first result response, checking that every one carries the
 * same progress token.
 */
export function progressBeforeResult(wire: readonly unknown[]): Array<[number, string | undefined]> {
  const end = wire.findIndex((m) => (m as { result?: unknown }).result !== undefined && (m as { id?: unknown }).id !== undefined)
  const notes = wire
    .slice(0, end === -1 ? wire.length : end)
    .filter((m) => (m as { method?: string }).method === 'notifications/progress')
    .map((m) => (m as { params: { progressToken: unknown; progress: number; message?: string } }).params)
  if (end === -1) throw new Error('no result on the wire')
  if (new Set(notes.map((p) => p.progressToken)).size > 1) throw new Error('progress notifications with different tokens')
  return notes.map((p) => [p.progress, p.message])
}

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

/**
 * Connecting one SDK server instance to a transport the caller made
 * (the SDK's `InMemoryTransport`, a custom transport, a test harness).
 */
import type { Transport } from '@modelcontextprotocol/server'
import { createSdkServer, notifyInstance } from '../serving/sdk-server.ts'
import type { ServerState } from '../serving/server-state.ts'

/** What `server.connect(transport)` resolves with: closes the connection and stops its list_changed announcements. */
export interface Connection {
  close(): Promise<void>
}

/**
 * Connects `transport` to a new SDK instance answering from `state`; list
 * changes reach it as they reach a stdio client, until the transport closes.
 * Transports the SDK connects this way speak the initialize era.
 */
export async function connectTransport(state: ServerState, transport: Transport): Promise<Connection> {
  const server = createSdkServer(state)
  const off = state.onChange((kind) => notifyInstance(server, kind))
  const onclose = server.onclose
  server.onclose = () => {
    off()
    onclose?.()
  }
  try {
    await server.connect(transport)
  } catch (error) {
    off()
    throw error
  }
  return { close: () => server.close() }
}

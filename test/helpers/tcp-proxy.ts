/**
 * A TCP proxy on loopback in front of a port, which a test cuts: the
 * connections through it are closed and new ones refused (as a database
 * restarting refuses them) until it is restored on the same port.
 */
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net'

/** A running proxy: its port, and the cut. */
export interface TcpProxy {
  readonly port: number
  /** Closes every connection and stops listening (new connections are refused). */
  cut(): Promise<void>
  /** Listens again on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

/** Starts a proxy to `127.0.0.1:port`. */
export async function tcpProxy(port: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: NetServer | undefined
  let listenPort = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(port, '127.0.0.1')
        sockets.add(client).add(upstream)
        const drop = () => {
          client.destroy()
          upstream.destroy()
          sockets.delete(client)
          sockets.delete(upstream)
        }
        client.on('error', drop).on('close', drop)
        upstream.on('error', drop).on('close', drop)
        client.pipe(upstream).pipe(client)
      })
      next.once('error', reject)
      next.listen(listenPort, '127.0.0.1', () => {
        listenPort = (next.address() as { port: number }).port
        server = next
        resolve()
      })
    })
  const cut = async () => {
    const closing = server
    server = undefined
    const closed = closing ? new Promise((resolve) => closing.close(resolve)) : Promise.resolve()
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    await closed
  }
  await listen()
  return { port: listenPort, cut, restore: listen, close: cut }
}

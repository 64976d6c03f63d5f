/**
 * Command-line serving for the playground: `--stdio`, or Streamable HTTP on
 * `--host`/`--port`/`--path`, with the client configuration printed. In
 * stdio mode stdout carries MCP messages only, so everything else goes to
 * stderr.
 */
import { parseArgs } from 'node:util'
import type { Server } from 'unplugin-proto-mcp/runtime'

/** How to serve, from the command line. */
export interface ServeArgs {
  /** Serve on stdin/stdout instead of HTTP. @default false */
  stdio: boolean
  /** @default '127.0.0.1' */
  host: string
  /** `0` picks a free port. @default 3000 */
  port: number
  /** @default '/mcp' */
  path: string
}

/** Parses `--stdio`, `--host H`, `--port N`, `--path P`; throws on anything else. */
export function parseServeArgs(argv: string[]): ServeArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean', default: false },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '3000' },
      path: { type: 'string', default: '/mcp' },
    },
    strict: true,
  })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid --port "${values.port}": expected an integer from 0 to 65535`)
  }
  return { stdio: values.stdio, host: values.host, port, path: values.path }
}

/** The MCP client configuration (`mcpServers`) for the HTTP URL and for the stdio command. */
export function clientConfig(url: string, entry: string): string {
  const http = { mcpServers: { vibe: { url } } }
  const stdio = { mcpServers: { vibe: { command: 'node', args: [entry, '--stdio'] } } }
  return [
    'MCP client configuration (HTTP):',
    JSON.stringify(http, null, 2),
    'or, to have the client start the server itself (stdio):',
    JSON.stringify(stdio, null, 2),
  ].join('\n')
}

/**
 * Serves `server` as `argv` says until stdin closes (stdio) or SIGINT/SIGTERM
 * (HTTP). `entry` is the absolute path of the built script, for the stdio
 * configuration.
 */
export async function serveFromArgs(server: Server, argv: string[], entry: string): Promise<void> {
  const args = parseServeArgs(argv)
  const log = (text: string): void => {
    process.stderr.write(`${text}\n`)
  }
  if (args.stdio) {
    log(`${String(server)} serving on stdio (stdout carries MCP messages only)`)
    const report = await server.serveStdio()
    log(`stdin closed: ${report.requests} requests, ${report.toolCalls} tool calls, ${report.errors} errors in ${report.durationMs} ms`)
    return
  }
  const handle = await server.serveHttp({ host: args.host, port: args.port, path: args.path })
  process.stdout.write(`${String(server)} listening on ${handle.url}\n\n${clientConfig(handle.url, entry)}\n\nCtrl-C to stop.\n`)
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      void handle.close().then(resolve)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

/**
 * Real MCP clients (SDK v1 and v2) driving a built program over stdio.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'

/**
 * The client flavours every build is driven with: SDK v1, SDK v2 in its
 * default `legacy` mode (the initialize era), SDK v2 pinned to 2026-07-28.
 */
export const CLIENTS = ['sdk-v1', 'sdk-v2', 'sdk-v2-2026'] as const
export type ClientName = (typeof CLIENTS)[number]

/** The subset of a client the tests use (the same in v1 and v2). */
export interface McpSession {
  listTools(): Promise<{ tools: { name: string; description?: string; inputSchema: unknown }[] }>
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown[] }>
  /** The protocol version the session settled on (v2 only). */
  protocolVersion(): string | undefined
  /** What the server printed on stderr so far. */
  stderr(): string
  close(): Promise<void>
}

/** Spawns `node file ...args` and connects the `flavour` client to it over stdio. */
export async function connectStdio(flavour: ClientName, file: string, args: string[] = []): Promise<McpSession> {
  const params = { command: process.execPath, args: [file, ...args], stderr: 'pipe' as const }
  const info = { name: 'bundler-test', version: '1.0.0' }
  let err = ''
  if (flavour === 'sdk-v1') {
    const transport = new StdioV1(params)
    transport.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    const client = new ClientV1(info)
    await client.connect(transport)
    return {
      listTools: () => client.listTools(),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: unknown[] },
      protocolVersion: () => undefined,
      stderr: () => err,
      close: () => client.close(),
    }
  }
  const transport = new StdioV2(params)
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString()
  })
  const client = new ClientV2(info, flavour === 'sdk-v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await client.connect(transport)
  return {
    listTools: () => client.listTools(),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: unknown[] },
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    stderr: () => err,
    close: () => client.close(),
  }
}

/**
 * The `proto-mcp` command as users run it: `src/cli.ts` built by tsdown into
 * a fresh folder under the repository's `.tmp/` (so a concurrent `npm run
 * build` cannot swap `dist/` under a running test; dependencies resolve from
 * the repository's node_modules), then spawned with node.
 */
import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'tsdown'

/** The repository root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url))

/** Builds the command (as tsdown.config.ts's `cli` entry) and resolves with the path of its `cli.mjs`. */
export async function buildCli(): Promise<string> {
  // A fresh clone has no .tmp/ yet.
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const outDir = mkdtempSync(join(REPO, '.tmp', 'cli-'))
  await build({
    config: false,
    cwd: REPO,
    entry: { cli: 'src/entries/cli.ts' },
    outDir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    dts: false,
    clean: true,
    logLevel: 'error',
  })
  return join(outDir, 'cli.mjs')
}

/** What a finished run printed, and its exit code. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `node cli args...` to the end. */
export function runCli(cli: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** A v2 client (named `name`) on `node cli serve args...` over stdio, with what the command wrote to stderr. */
export async function serveClient(
  cli: string,
  args: string[],
  name: string,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', ...args], cwd: REPO, stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString()
  })
  const client = new Client({ name, version: '1.0.0' })
  await client.connect(transport)
  return { client, transport, stderr: () => err }
}

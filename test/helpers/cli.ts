/**
 * The `proto-mcp` command as users run it: dist/cli.mjs (built once per run
 * by the global setup, test/setup/global.ts), spawned with node.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { built, REPO } from './repo.ts'

/** The path of the built command, dist/cli.mjs. */
export function builtCli(): string {
  return built('cli.mjs')
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

/** A running `proto-mcp serve ... --http 0`. */
export interface RunningCli {
  /** The URL it printed it serves at (`... at http://127.0.0.1:<port>/mcp`). */
  url: string
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Its exit code once it exits (null when a signal ended it). */
  exited: Promise<number | null>
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>
}

/**
 * Starts `node cli args...` (in `cwd`, the repository by default) and resolves
 * once it prints the URL it serves at, or rejects with its stderr when it exits first.
 */
export function startCli(cli: string, args: string[], cwd: string = REPO): Promise<RunningCli> {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = / at (http:\/\/\S+\/mcp)/.exec(stderr)
      if (match) {
        resolve({
          url: match[1]!,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          exited,
          stop: async () => {
            child.kill('SIGTERM')
            await exited
          },
        })
      }
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
  })
}

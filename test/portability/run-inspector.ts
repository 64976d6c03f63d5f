/**
 * Runs the MCP Inspector's CLI (`@modelcontextprotocol/inspector`,
 * `--cli <command> --method tools/list --strict --format json`) against a
 * stdio server and collects its schema-portability findings.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from '../helpers/repo.ts'

/** One finding of the Inspector's `--strict` check. */
export interface SchemaFinding {
  rule: string
  severity: 'error' | 'warning' | string
  schema: string
  path: string
  issue: string
}

/** What one `tools/list --strict` run gave. */
export interface InspectorReport {
  exitCode: number | null
  /** Tool names from the listed result, in server order. */
  tools: string[]
  /** Every finding, flattened, as `{ tool, ...finding }`. */
  findings: (SchemaFinding & { tool: string })[]
  stderr: string
}

const PACKAGE_DIR = join(REPO, 'node_modules', '@modelcontextprotocol', 'inspector')

/** The Inspector's launcher script (its `inspector` bin). */
export function inspectorBin(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  return join(PACKAGE_DIR, pkg.bin.inspector ?? 'clients/launcher/build/index.js')
}

/** The installed Inspector's version. */
export function inspectorVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version
}

/**
 * Runs `inspector --cli node <script> [...args] --method tools/list --strict
 * --format json`; kills the whole process group after `timeoutMs`.
 */
export function inspectTools(script: string, args: string[] = [], timeoutMs = 30_000): Promise<InspectorReport> {
  const argv = [inspectorBin(), '--cli', process.execPath, script, ...args, '--method', 'tools/list', '--strict', '--format', 'json']
  return new Promise((resolve, reject) => {
    // Its own process group, so a hung run takes the server it started down with it.
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        /* already gone */
      }
      reject(new Error(`the inspector did not finish within ${timeoutMs} ms: ${stderr}`))
    }, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (exitCode) => {
      clearTimeout(timer)
      let parsed: { result?: { tools?: { name: string }[] }; schemaFindings?: { toolName: string; findings: SchemaFinding[] }[] }
      try {
        parsed = JSON.parse(stdout) as typeof parsed
      } catch (cause) {
        reject(new Error(`the inspector printed no JSON (exit ${exitCode}): ${stdout}\n${stderr}`, { cause }))
        return
      }
      resolve({
        exitCode,
        tools: (parsed.result?.tools ?? []).map((tool) => tool.name),
        findings: (parsed.schemaFindings ?? []).flatMap((entry) => entry.findings.map((f) => ({ tool: entry.toolName, ...f }))),
        stderr,
      })
    })
  })
}

/**
 * Runs the official conformance suite's CLI (`conformance server --url`)
 * against a URL with the Node 22 that scripts/node22 finds (the
 * CLI needs `fs.globSync`), and reads back each scenario's checks from its
 * output directory.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { node22 } from 'dev-node22'
import { REPO } from '../bundlers/harness.ts'

/** The Node 22 binary the CLI runs on (where there is none, loading this file fails, saying why). */
export const NODE22 = node22()
const CLI = join(REPO, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

/** One check of a scenario, as the CLI saves it. */
export interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED'
  errorMessage?: string
}

/** What one run of the suite found: checks by scenario, and the CLI's summary text. */
export interface SuiteRun {
  scenarios: Map<string, Check[]>
  output: string
}

/** Runs the default (active) suite, or one scenario, against `url`. */
export async function runSuite(url: string, scenario?: string): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'))
  try {
    const args = [CLI, 'server', '--url', url, '-o', out, ...(scenario ? ['--scenario', scenario] : [])]
    const output = await new Promise<string>((resolve) => {
      // A failing scenario makes the CLI exit 1: the checks say which.
      execFile(NODE22, args, { timeout: 240_000, maxBuffer: 16 << 20 }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`))
    })
    const scenarios = new Map<string, Check[]>()
    for (const dir of readdirSync(out)) {
      // Folders are `server-<scenario>-<ISO time>`.
      const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '')
      scenarios.set(name, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[])
    }
    return { scenarios, output }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

/** Every scenario with a failing or warning check, with those checks' messages. */
export function problems(run: SuiteRun): Record<string, string[]> {
  const found: Record<string, string[]> = {}
  for (const [name, checks] of run.scenarios) {
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    if (bad.length > 0) found[name] = bad.map((c) => `${c.id} ${c.status}: ${c.errorMessage ?? ''}`)
  }
  return found
}

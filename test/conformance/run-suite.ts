/**
 * Runs the official conformance suite's CLI (`conformance server --url`)
 * against a URL with the Node 22 that scripts/node22 finds (the
 * CLI needs `fs.globSync`), and reads back each scenario's checks from its
 * output directory. `requirementSet` reads the suite's frozen requirement
 * sets (`requirements/<revision>.yaml` of the package).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { node22 } from 'dev-node22'
import { REPO } from '../helpers/repo.ts'

/** The Node 22 binary the CLI runs on (where there is none, loading this file fails, saying why). */
export const NODE22 = node22()
const PACKAGE = join(REPO, 'node_modules', '@modelcontextprotocol', 'conformance')
const CLI = join(PACKAGE, 'dist', 'index.js')

/** A revision the suite freezes a requirement set for. */
export type Revision = '2025-11-25' | '2026-07-28'

/** The server scenarios of a requirement set: the scored ones, and those run but not scored (with why). */
export interface RequirementSet {
  scored: string[]
  notScored: Array<{ scenario: string; reason: string }>
}

/**
 * The server leg of `requirements/<revision>.yaml`: the `server:` list, and
 * the `not_scored:` entries whose `leg` is `server`. The files are a flat
 * YAML subset (lists of names, lists of flat maps), read line by line.
 */
export function requirementSet(revision: Revision): RequirementSet {
  const lines = readFileSync(join(PACKAGE, 'requirements', `${revision}.yaml`), 'utf8').split('\n')
  const scored: string[] = []
  const notScored: Array<{ scenario: string; reason: string; leg?: string }> = []
  let section = ''
  for (const line of lines) {
    if (/^\S/.test(line) && !line.startsWith('#')) section = line.replace(/:.*$/, '')
    const item = /^ {2}- (\S.*)$/.exec(line)
    const entry = /^ {2}- scenario: (\S+)$/.exec(line)
    const field = /^ {4}(leg|reason): (\S+)$/.exec(line)
    if (section === 'server' && item) scored.push(item[1]!)
    else if (section === 'not_scored' && entry) notScored.push({ scenario: entry[1]!, reason: '' })
    else if (section === 'not_scored' && field && notScored.length > 0) (notScored.at(-1) as Record<string, string>)[field[1]!] = field[2]!
  }
  return { scored, notScored: notScored.filter((e) => e.leg === 'server').map(({ scenario, reason }) => ({ scenario, reason })) }
}

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

/** What to run: the scenarios a revision requires (scored and not), or one scenario. */
export type Selection = { requirements: Revision } | { scenario: string }

/** Runs a requirement set, or one scenario, against `url`. */
export async function runSuite(url: string, selection: Selection): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'))
  try {
    const chosen = 'requirements' in selection ? ['--requirements', selection.requirements] : ['--scenario', selection.scenario]
    const args = [CLI, 'server', '--url', url, '-o', out, ...chosen]
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

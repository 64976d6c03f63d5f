/**
 * npm as the package tests run it: the running node's own npm CLI, and the
 * versions of the tools the repository installed (test/helpers/packed-app.ts
 * installs the packed tarball with them, so npm takes them from its cache).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO } from './repo.ts'

/** npm's own CLI, next to the running node (as `npm` on PATH would be). */
const NPM = process.env.npm_execpath ?? 'npm'

/** The file and arguments that run npm with `args`. */
export function npmCommand(args: readonly string[]): [string, string[]] {
  return NPM.endsWith('.js') || NPM.endsWith('.cjs') ? [process.execPath, [NPM, ...args]] : [NPM, [...args]]
}

/** Runs npm with `args` in `cwd`; its stdout and stderr; throws with both when it fails. */
export function npm(args: readonly string[], cwd: string): { stdout: string; stderr: string } {
  const [file, argv] = npmCommand(args)
  const run = spawnSync(file, argv, { cwd, encoding: 'utf8', timeout: 180_000 })
  if (run.error) throw run.error
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} exited with ${run.status}:\n${run.stdout}${run.stderr}`)
  return { stdout: run.stdout, stderr: run.stderr }
}

/** The version of `name` the repository installed. */
export function repoVersion(name: string): string {
  return (JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

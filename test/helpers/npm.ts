/**
 * npm as the package tests run it: the running node's own npm CLI, and the
 * packed tarball installed into a fresh app with the repository's versions of
 * the tools it needs (so npm takes them from its cache).
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

/**
 * `npm pack` of the repository into the app `app`, then `npm install` there of
 * the tarball and of `tools` (package names) at the repository's versions:
 * the paths the tarball holds, and what the install printed.
 */
export function installPacked(app: string, tools: readonly string[]): { files: string[]; installOutput: string } {
  const { stdout } = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', app], REPO)
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  const install = npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `./${packed!.filename}`,
      ...tools.map((name) => `${name}@${repoVersion(name)}`),
    ],
    app,
  )
  return { files: packed!.files.map((file) => file.path), installOutput: `${install.stdout}${install.stderr}` }
}

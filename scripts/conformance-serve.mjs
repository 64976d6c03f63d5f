#!/usr/bin/env node
/**
 * `npm run -s conformance:serve -- --port <N>`: serves the conformance
 * fixture (test/conformance/serve.ts, from source, bundled by esbuild into
 * .tmp/) over HTTP on 127.0.0.1 and prints its URL as the first line on
 * stdout, for checks run from outside (the conformance suite's CLI, an
 * inspector). Serves until stopped.
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })
const port = Number(values.port)
if (values.port === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`conformance:serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n`)
  process.exit(2)
}
const repo = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url))
mkdirSync(repo('.tmp'), { recursive: true })
const outfile = repo('.tmp/conformance-serve.mjs')
await build({
  entryPoints: [repo('test/conformance/serve.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  logLevel: 'error',
  // CommonJS files of src/ `require` packages: give the bundle a real `require`.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
})
const { serveConformance } = await import(pathToFileURL(outfile).href)
const handle = await serveConformance(port, repo('test/conformance/conformance.proto'))
process.stdout.write(`${handle.url}\n`)
const stop = () => handle.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)

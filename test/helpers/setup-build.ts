/**
 * vitest's global setup for the projects whose tests use the package build
 * (vitest.config.ts): dist/ and the `proto-mcp` command (dist/cli.mjs), built
 * once per run by tsdown with the repository's tsdown.config.ts, as `npm run
 * build` does. No test file builds the package itself (test/architecture.test.ts).
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { once } from './setup-once.ts'
import { REPO } from './repo.ts'

function buildPackage(): Promise<{ value: undefined }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'node_modules', 'tsdown', 'dist', 'run.mjs')], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve({ value: undefined }) : reject(new Error(`the package build (tsdown) failed with ${code}:\n${output}`)),
    )
  })
}

export default async function setup(): Promise<() => Promise<void>> {
  return (await once('build', buildPackage)).teardown
}

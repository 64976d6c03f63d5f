/**
 * vitest's global setup for the projects whose tests install the packed
 * tarball (vitest.config.ts): an empty folder for the run's one packed app,
 * its path handed to the test files by `provide()`. The first test file that
 * asks for the app installs it there (test/helpers/packed-app.ts); the folder
 * goes when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { once } from './setup-once.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    packedApp: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value, teardown } = await once('packed-app', async () => {
    const root = mkdtempSync(join(tmpdir(), 'proto-mcp-packed-'))
    return { value: root, close: async () => rmSync(root, { recursive: true, force: true }) }
  })
  project.provide('packedApp', value)
  return teardown
}

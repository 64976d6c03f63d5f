#!/usr/bin/env node
/**
 * `npm test`: every test (`vitest run`, the projects of vitest.config.ts), and
 * meanwhile the type check and the lint (`npm run typecheck`, `npm run lint`:
 * tsc, eslint, prettier) at a low priority (nice 10). The tests wait on
 * processes, sockets and Postgres much of the time; the checks take the CPU
 * they leave idle and yield it whenever a test wants it, so they add little
 * to the run's time instead of a minute after it. The checks' output is
 * printed after the tests'; the exit code is non-zero when any of them
 * failed. Arguments are vitest's (`npm test -- test/docs.test.ts`).
 */
import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = (...path) => join(root, 'node_modules', ...path)
const CHECKS = [
  ['typecheck', bin('typescript', 'bin', 'tsc'), ['--noEmit', '-p', 'tsconfig.json']],
  ['eslint', bin('eslint', 'bin', 'eslint.js'), ['.']],
  ['prettier', bin('prettier', 'bin', 'prettier.cjs'), ['--check', '.']],
]

/** Runs `node script ...args` at nice 10, its output kept; resolves with its exit code, output and time. */
function lowPriority(script, args) {
  const started = Date.now()
  // `nice` starts node at the lower priority, with every thread it makes; where there is none (Windows), the process is lowered once started.
  const child =
    process.platform === 'win32'
      ? spawn(process.execPath, [script, ...args], { cwd: root })
      : spawn('nice', ['-n', '10', process.execPath, script, ...args], { cwd: root })
  if (process.platform === 'win32') setPriority(child.pid, 10)
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n`, seconds: 0 }))
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, output: signal ? `${output}killed by ${signal}\n` : output, seconds: (Date.now() - started) / 1000 }),
    )
  })
}

const checks = CHECKS.map(([name, script, args]) => lowPriority(script, args).then((result) => ({ name, ...result })))
const vitest = await new Promise((resolve) => {
  const child = spawn(process.execPath, [bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
  child.on('error', () => resolve(1))
  child.on('close', (code) => resolve(code ?? 1))
})

let failed = vitest !== 0
for (const { name, code, output, seconds } of await Promise.all(checks)) {
  if (code !== 0) failed = true
  process.stdout.write(`\n${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds.toFixed(0)} s\n`)
  if (code !== 0 || output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
}
process.exit(failed ? 1 : 0)

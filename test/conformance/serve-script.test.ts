/**
 * `npm run -s conformance:serve -- --port <N>` (scripts/conformance-serve.mjs):
 * the conformance fixture on 127.0.0.1, its URL the first line on stdout,
 * answering MCP there; a bad port is refused with exit code 2.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { modernRequest } from '../helpers/modern-wire.ts'
import { REPO } from '../helpers/repo.ts'

describe('npm run conformance:serve', () => {
  it('prints the URL first, on 127.0.0.1, and serves the fixture there until stopped', async () => {
    // Its own process group, so stopping npm stops the node it started too.
    const child = spawn('npm', ['run', '-s', 'conformance:serve', '--', '--port', '0'], { cwd: REPO, detached: true })
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve)
        child.once('exit', (code) => reject(new Error(`exited with ${String(code)} before printing a URL`)))
      })
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const tools = await modernRequest(first, 'tools/list')
      const names = (tools.body.result!.tools as Array<{ name: string }>).map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(['Count', 'test_simple_text', 'test_input_required_result_elicitation']))
    } finally {
      process.kill(-child.pid!, 'SIGTERM')
    }
  })

  it('a port that is not one is refused: exit code 2, the reason on stderr', async () => {
    const child = spawn('npm', ['run', '-s', 'conformance:serve', '--', '--port', 'x'], { cwd: REPO })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(2)
    expect(stderr).toContain('--port must be an integer from 0 to 65535, got "x"')
  })
})

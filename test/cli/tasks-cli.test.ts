/**
 * `proto-mcp serve` serves tasks with no flag of its own: a long-running
 * RPC called by a client that declares the Tasks extension answers a task,
 * which `tasks/get` follows to the operation's response (a real grpc-js
 * backend, the command over HTTP).
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modernRequest } from '../helpers/modern-wire.ts'
import { EXPORTS_PROTO, startExportsBackend, type ExportsBackend } from '../grpc/exports-server.ts'
import { builtCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let cli = ''
let backend: ExportsBackend
beforeAll(async () => {
  cli = builtCli()
  backend = await startExportsBackend()
}, 180_000)
afterAll(async () => {
  await backend?.server.stop()
})

describe('proto-mcp serve and tasks', () => {
  it('a long-running RPC runs as a task for a client declaring the extension, with no flag', async () => {
    const child = spawn(process.execPath, [cli, 'serve', EXPORTS_PROTO, '--grpc', backend.server.address, '--http', '0'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
        if (match) resolve(match[1]!)
      })
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    try {
      const created = (await modernRequest(url, 'tools/call', { name: 'ExportTable', arguments: { table: 'cli', steps: 2 } }, TASKS)).body
        .result!
      expect(created).toMatchObject({ resultType: 'task', status: 'working' })
      let task: any
      for (let i = 0; i < 300; i++) {
        task = (await modernRequest(url, 'tasks/get', { taskId: created.taskId }, TASKS)).body.result!
        if (task.status === 'completed') break
        await sleep(50)
      }
      expect(task.status).toBe('completed')
      expect(task.result.structuredContent).toEqual({ uri: 'gs://exports/cli.csv', rows: '9007199254740993' })
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })
})

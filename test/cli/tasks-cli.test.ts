/**
 * `proto-mcp serve` serves tasks with no flag of its own: a long-running
 * RPC called by a client that declares the Tasks extension answers a task,
 * which `tasks/get` follows to the operation's response (a real grpc-js
 * backend, the command over HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modernRequest } from '../helpers/modern-wire.ts'
import { EXPORTS_PROTO, startExportsBackend, type ExportsBackend } from '../grpc/exports-server.ts'
import { builtCli, startCli } from '../helpers/cli.ts'

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
    const running = await startCli(cli, ['serve', EXPORTS_PROTO, '--grpc', backend.server.address, '--http', '0'])
    const { url } = running
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
      running.child.kill('SIGTERM')
    }
    expect(await running.exited).toBe(0)
  })
})

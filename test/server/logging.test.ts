/**
 * The `logger` and `onError` options (docs/serving.md, "Logging"): on every serving
 * path a custom logger receives the message that would go to stderr, and
 * nothing reaches stderr; `onError` receives the errors themselves with
 * where they happened; `logger: false` silences; the default still writes
 * the same line to stderr.
 */
import { createServer, type IncomingMessage, type Server as NodeServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Server, type ErrorSource } from '../../src/entries/runtime.ts'
import { Log } from '../../src/server/base/logging.ts'
import { ServerState } from '../../src/server/serving/server-state.ts'

const HIDDEN = 'notes: call to tool "Secret" hidden from this caller (requires {"scopes":["admin"]}), answered as unknown'

/** A server with one tool hidden from callers without the `admin` scope. */
const build = () =>
  Server.builder('notes').tool({ name: 'Secret', inputSchema: { type: 'object' }, requires: { scopes: ['admin'] } }, () => ({
    content: [],
    isError: false,
  }))

/** A logger recording what it receives. */
function recorder() {
  const seen: string[] = []
  const errors: unknown[] = []
  return {
    seen,
    errors,
    logger: {
      warn: (message: string) => void seen.push(`warn ${message}`),
      error: (message: string, error?: unknown) => {
        seen.push(`error ${message}`)
        errors.push(error)
      },
    },
  }
}

/** Spies on stderr for the rest of the test. */
function spyStderr() {
  return vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
}

afterEach(() => {
  vi.restoreAllMocks()
})

const CALL_SECRET = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Secret', arguments: {} } })
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }

/** POSTs `body` to `url` as an initialize-era client outside a session. */
const post = (url: string, body: string): Promise<Response> => fetch(url, { method: 'POST', headers: HEADERS, body })

describe('the server-level logger', () => {
  it('builder logging(): an in-process call to a hidden tool warns the logger, not stderr', async () => {
    const stderr = spyStderr()
    const { seen, logger } = recorder()
    const server = build().logging({ logger }).build()
    await expect(server.call('Secret', {})).rejects.toMatchObject({ code: -32602 })
    expect(seen).toEqual([`warn ${HIDDEN}`])
    expect(stderr).not.toHaveBeenCalled()
  })

  it('Server.logging() sets it on a built server, and fetch() uses it', async () => {
    const stderr = spyStderr()
    const { seen, logger } = recorder()
    const server = build().build().logging({ logger })
    const response = await server.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: HEADERS, body: CALL_SECRET }))
    expect(await response.text()).toContain('Tool Secret not found')
    expect(seen).toEqual([`warn ${HIDDEN}`])
    expect(stderr).not.toHaveBeenCalled()
  })

  it('logger: false and a logger without methods silence it', async () => {
    const stderr = spyStderr()
    await expect(build().logging({ logger: false }).build().call('Secret', {})).rejects.toMatchObject({ code: -32602 })
    await expect(build().logging({ logger: {} }).build().call('Secret', {})).rejects.toMatchObject({ code: -32602 })
    expect(stderr).not.toHaveBeenCalled()
  })

  it('by default the same line goes to stderr', async () => {
    const stderr = spyStderr()
    await expect(build().build().call('Secret', {})).rejects.toMatchObject({ code: -32602 })
    expect(stderr.mock.calls.map((call) => String(call[0]))).toEqual([`${HIDDEN}\n`])
  })

  it('a failing list_changed listener is an error for onError, with where it happened', () => {
    const stderr = spyStderr()
    const got: [unknown, ErrorSource][] = []
    const core = new ServerState({
      name: 'notes',
      version: '1',
      tools: [],
      logging: { onError: (error, where) => void got.push([error, where]) },
    })
    const boom = new Error('listener exploded')
    core.onChange(() => {
      throw boom
    })
    core.announce('tools')
    expect(got).toEqual([[boom, 'list_changed']])
    expect(stderr).not.toHaveBeenCalled()
  })

  it('an onError or a logger that throws does not stop the listeners after it', () => {
    const seen: string[] = []
    const core = new ServerState({
      name: 'notes',
      version: '1',
      tools: [],
      logging: {
        logger: {
          error: (message) => {
            seen.push(message)
            throw new Error('the logger too')
          },
        },
        onError: () => {
          throw new Error('onError exploded')
        },
      },
    })
    core.onChange(() => {
      throw new Error('first listener')
    })
    core.onChange(() => void seen.push('second listener ran'))
    expect(() => core.announce('tools')).not.toThrow()
    expect(seen).toHaveLength(2)
    expect(seen[0]).toMatch(/\(and onError threw: onError exploded\)$/)
    expect(seen[1]).toBe('second listener ran')
  })

  it('a transport log falls back on the server log option by option, and follows a later logging()', () => {
    const server = recorder()
    const own = recorder()
    const base = new Log({ logger: server.logger })
    const log = new Log({ onError: () => own.seen.push('onError') }, base)
    log.warn('w')
    log.error('e', new Error('e'), 'http')
    expect(server.seen).toEqual(['warn w'])
    expect(own.seen).toEqual(['onError'])
    base.set({ logger: own.logger })
    log.warn('again')
    expect(own.seen).toEqual(['onError', 'warn again'])
  })
})

describe('serveStdio', () => {
  it('its logger receives a hidden-tool warning and a transport error; onError gets the error itself', async () => {
    const stderr = spyStderr()
    const { seen, logger } = recorder()
    const got: [unknown, ErrorSource][] = []
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const lines: string[] = []
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)))
    const server = build().build()
    const serving = server.serveStdio({ stdin, stdout, logger })
    stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      })}\n`,
    )
    await vi.waitFor(() => expect(lines.length).toBe(1))
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    stdin.write(`${CALL_SECRET}\n`)
    await vi.waitFor(() => expect(lines.length).toBe(2))
    expect(seen).toEqual([`warn ${HIDDEN}`])
    const broken = new Error('stdin broke')
    stdin.emit('error', broken)
    expect(seen).toEqual([`warn ${HIDDEN}`, 'error notes: stdin broke'])
    // A broken stdin is fatal: serveStdio rejects with it (the command then exits 1).
    await expect(serving).rejects.toBe(broken)
    expect(stderr).not.toHaveBeenCalled()

    // onError takes the errors; the logger keeps the warnings.
    const again = new PassThrough()
    const done = server.serveStdio({
      stdin: again,
      stdout: new PassThrough(),
      logger,
      onError: (error, where) => void got.push([error, where]),
    })
    // The transport listens once it has started.
    await vi.waitFor(() => expect(again.listenerCount('error')).toBeGreaterThan(0))
    again.emit('error', broken)
    await expect(done).rejects.toBe(broken)
    expect(got).toEqual([[broken, 'stdio']])
    expect(seen).toHaveLength(2)
    expect(stderr).not.toHaveBeenCalled()
  })
})

describe('serveHttp and nodeHandler', () => {
  let node: NodeServer | undefined
  afterEach(async () => {
    await new Promise<void>((resolve) => (node ? node.close(() => resolve()) : resolve()))
    node = undefined
  })

  it('serveHttp: its logger receives the allowAnyHost warning and hidden-tool warnings', async () => {
    const stderr = spyStderr()
    const { seen, logger } = recorder()
    const server = build().build()
    const handle = await server.serveHttp({ host: '0.0.0.0', port: 0, allowAnyHost: true, logger })
    try {
      await post(handle.url.replace('0.0.0.0', '127.0.0.1'), CALL_SECRET)
    } finally {
      await handle.close()
    }
    expect(seen).toEqual([
      'warn notes: serving on non-loopback address 0.0.0.0 with allowAnyHost: the Host header is not checked (DNS rebinding)',
      `warn ${HIDDEN}`,
    ])
    expect(stderr).not.toHaveBeenCalled()
  })

  it('serveHttp: one info line with the URL once it listens, to the logger that takes info, else stderr by default', async () => {
    const stderr = spyStderr()
    const infos: string[] = []
    const told = await build()
      .build()
      .serveHttp({ port: 0, logger: { info: (m) => void infos.push(m) } })
    await told.close()
    expect(infos).toEqual([`notes: serving on ${told.url}`])
    expect(stderr).not.toHaveBeenCalled()
    const byDefault = await build().build().serveHttp({ port: 0 })
    await byDefault.close()
    expect(stderr.mock.calls.map((call) => String(call[0]))).toEqual([`notes: serving on ${byDefault.url}\n`])
  })

  it('nodeHandler: a request its handler cannot serve is an error for the logger, then for onError', async () => {
    const stderr = spyStderr()
    const { seen, logger, errors } = recorder()
    const got: [unknown, ErrorSource][] = []
    const server = build().build()
    const withLogger = server.nodeHandler({ logger })
    const withOnError = server.nodeHandler({ logger, onError: (error, where) => void got.push([error, where]) })
    node = createServer((req: IncomingMessage, res) => {
      // An auth middleware whose `req.auth` throws: the SDK's Node adapter reports it and answers 500.
      Object.defineProperty(req, 'auth', {
        get: () => {
          throw new Error('auth exploded')
        },
      })
      const handler = req.url === '/on-error' ? withOnError : withLogger
      handler(req, res)
    })
    await new Promise<void>((resolve) => node!.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(node.address() as AddressInfo).port}`
    try {
      expect((await post(`${base}/mcp`, CALL_SECRET)).status).toBe(500)
      expect(seen).toEqual(['error notes: auth exploded'])
      expect((errors[0] as Error).message).toBe('auth exploded')
      expect((await post(`${base}/on-error`, CALL_SECRET)).status).toBe(500)
      expect(got.map(([error, where]) => [(error as Error).message, where])).toEqual([['auth exploded', 'http']])
      expect(seen).toHaveLength(1)
    } finally {
      await withLogger.close()
      await withOnError.close()
    }
    expect(stderr).not.toHaveBeenCalled()
  })

  it('nodeHandler: hidden-tool warnings go to its logger', async () => {
    const stderr = spyStderr()
    const { seen, logger } = recorder()
    const handler = build().build().nodeHandler({ logger })
    node = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => node!.listen(0, '127.0.0.1', resolve))
    try {
      await post(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`, CALL_SECRET)
    } finally {
      await handler.close()
    }
    expect(seen).toEqual([`warn ${HIDDEN}`])
    expect(stderr).not.toHaveBeenCalled()
  })
})

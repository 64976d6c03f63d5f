/**
 * Faults mid-run, under a stream of calls forwarded to a real grpc-js
 * backend on 127.0.0.1 (test/grpc/ covers each fault on a single call):
 * the backend killed and restarted (Unavailable, then recovery), a slow
 * backend among fast calls (DeadlineExceeded for the slow ones only, which
 * the backend sees cancelled), clients cancelling calls over HTTP (the
 * backend sees exactly those cancels, the other calls complete), and the
 * HTTP gateway (`proto-mcp serve --http`) under clients of both eras while
 * its backend is killed and restarted twice: no call unanswered.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import * as grpcJs from '@grpc/grpc-js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { serviceDefinition, startGrpcServer } from '../grpc/grpc-server.ts'
import { scaled } from './scale.ts'
import { text } from '../helpers/result.ts'
import { builtCli, startCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

const cleanups: Array<() => unknown> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const spec = specFromProto(EXAMPLE_PROTO)
const definition = serviceDefinition(EXAMPLE_PROTO, 'examples.v1.VibeService')
const UNAVAILABLE_RE = /^rpc error: code = Unavailable desc = /

/** A grpc-js VibeService whose SetVibe echoes, with `slow` deciding which calls never answer on their own. */
function backend(slow: (vibe: string) => boolean = () => false) {
  const cancelled: string[] = []
  const received: string[] = []
  const impl: grpcJs.UntypedServiceImplementation = {
    SetVibe: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) => {
      const vibe = call.request.vibe as string
      received.push(vibe)
      let answered = false
      // grpc-js also emits 'cancelled' when the client resets an answered call's stream: only a cancel before the answer counts.
      call.on('cancelled', () => {
        if (!answered) cancelled.push(vibe)
      })
      if (!slow(vibe)) {
        answered = true
        callback(null, { previousVibe: '', vibe })
      }
    },
    GetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<any>) => callback(null, { vibe: 'steady' }),
  }
  return { impl, cancelled, received }
}

async function forwarded(impl: grpcJs.UntypedServiceImplementation, options: Parameters<typeof grpc>[1] = {}) {
  const grpcServer = await startGrpcServer([{ definition, impl }])
  cleanups.push(() => grpcServer.stop())
  const target = grpc(grpcServer.address, options)
  cleanups.push(() => target.close())
  const server = createProtoServer(spec).forward('VibeService', target)
  return { server, grpcServer }
}

describe('the backend killed mid-run', () => {
  it(
    'calls in the outage are Unavailable (none hang, no other error), and the stream recovers after the restart',
    { timeout: 120_000 },
    async () => {
      // A short reconnect wait: each call of the outage waits that long for the channel before it fails.
      const { server, grpcServer } = await forwarded(backend().impl, { deadlineMs: 10_000, reconnectWaitMs: 100 })
      const phases: Array<'down' | 'back'> = []
      // Each call is logged in the phase it completed in: one in flight at the kill belongs to the outage.
      const log: Array<{ phase: 'up' | 'down' | 'back'; text: string; isError: boolean }> = []
      let phase: 'up' | 'down' | 'back' = 'up'
      const PER_PHASE = scaled(40, 400)
      const count = (p: typeof phase, errors?: boolean): number =>
        log.filter((e) => e.phase === p && (errors === undefined || e.isError === errors)).length
      let n = 0
      // Four callers share one stream of calls; the phase changes are driven by its progress.
      const caller = async (c: number): Promise<void> => {
        while (phase !== 'back' || count('back', false) < PER_PHASE) {
          const result = await server.call('SetVibe', { vibe: `c${c}-${n++}` })
          log.push({ phase, text: text(result), isError: result.isError })
          if (phase === 'up' && count('up') >= PER_PHASE) {
            phase = 'down'
            phases.push('down')
            await grpcServer.stop()
          } else if (phase === 'down' && count('down') >= PER_PHASE) {
            phase = 'back'
            phases.push('back')
            await grpcServer.start()
          }
        }
      }
      await Promise.all([0, 1, 2, 3].map(caller))
      expect(phases).toEqual(['down', 'back'])
      const wrong = log.filter((e) => e.isError && !UNAVAILABLE_RE.test(e.text))
      expect(wrong.map((e) => `${e.phase}: ${e.text}`)).toEqual([])
      // Before the kill every call succeeded; once it was down, calls got Unavailable.
      expect(log.filter((e) => e.phase === 'up' && e.isError)).toEqual([])
      const down = log.filter((e) => e.phase === 'down')
      expect(down.filter((e) => e.isError).length).toBeGreaterThanOrEqual(PER_PHASE - 4)
      // After the restart the stream recovered: once a call succeeded, every later one did.
      const back = log.filter((e) => e.phase === 'back')
      const firstOk = back.findIndex((e) => !e.isError)
      expect(firstOk).toBeGreaterThanOrEqual(0)
      expect(
        back
          .slice(firstOk)
          .filter((e) => e.isError)
          .map((e) => e.text),
      ).toEqual([])
    },
  )
})

describe('a slow backend among fast calls', () => {
  it(
    'slow calls end in DeadlineExceeded and are cancelled at the backend; fast calls in between all succeed',
    { timeout: 120_000 },
    async () => {
      const probe = backend((vibe) => vibe.startsWith('slow'))
      // Loose enough for a fast call on a loaded machine; a slow one only ends by it.
      const { server } = await forwarded(probe.impl, { deadlineMs: 2_000 })
      // The channel's first connect is not a fast call's to pay for.
      expect(await server.call('SetVibe', { vibe: 'warm-up' })).toMatchObject({ isError: false })
      const COUNT = scaled(60, 600)
      const results = await Promise.all(
        Array.from({ length: COUNT }, async (_, i) => {
          const vibe = i % 5 === 0 ? `slow-${i}` : `fast-${i}`
          return { vibe, result: await server.call('SetVibe', { vibe }) }
        }),
      )
      for (const { vibe, result } of results) {
        if (vibe.startsWith('slow')) expect(text(result), vibe).toMatch(/^rpc error: code = DeadlineExceeded desc = /)
        else expect(result, vibe).toMatchObject({ isError: false, structuredContent: { vibe } })
      }
      const slow = results
        .filter((r) => r.vibe.startsWith('slow'))
        .map((r) => r.vibe)
        .sort()
      await vi.waitFor(() => expect([...probe.cancelled].sort()).toEqual(slow), { timeout: 10_000 })
    },
  )
})

describe('clients cancelling calls over HTTP', () => {
  it('the backend sees every cancel and only those; the other calls of the same sessions complete', { timeout: 120_000 }, async () => {
    const arrived = new Map<string, () => void>()
    const probe = backend((vibe) => vibe.startsWith('held'))
    const impl = {
      ...probe.impl,
      SetVibe: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) => {
        ;(probe.impl.SetVibe as grpcJs.handleUnaryCall<any, any>)(call, callback)
        arrived.get(call.request.vibe)?.()
      },
    }
    // A deadline far past the test's timeout: only the client's cancel can end a held call.
    const { server } = await forwarded(impl, { deadlineMs: 600_000 })
    const http = await server.serveHttp({ port: 0 })
    cleanups.push(() => http.close())
    const clients = await Promise.all(
      [undefined, { mode: { pin: '2026-07-28' as const } }].map(async (mode) => {
        const client = new ClientV2({ name: 'cancel', version: '0' }, mode ? { versionNegotiation: mode } : {})
        await client.connect(new HttpV2(new URL(http.url)))
        cleanups.push(() => client.close())
        return client
      }),
    )
    const ROUNDS = scaled(10, 100)
    const held: string[] = []
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < ROUNDS; i++) {
          const vibe = `held-${c}-${i}`
          held.push(vibe)
          const reached = new Promise<void>((resolve) => arrived.set(vibe, resolve))
          const abort = new AbortController()
          const pending = client.callTool({ name: 'SetVibe', arguments: { vibe } }, { signal: abort.signal })
          // A fast call on the same session while the held one waits at the backend.
          const fast = await client.callTool({ name: 'SetVibe', arguments: { vibe: `fast-${c}-${i}` } })
          expect(fast).toMatchObject({ isError: false, structuredContent: { vibe: `fast-${c}-${i}` } })
          await reached
          abort.abort()
          await expect(pending).rejects.toThrow()
        }
      }),
    )
    await vi.waitFor(() => expect([...probe.cancelled].sort()).toEqual([...held].sort()), { timeout: 10_000 })
    expect(probe.received.filter((v) => v.startsWith('fast'))).toHaveLength(held.length)
  })
})

describe('the HTTP gateway under load, its backend killed and restarted twice', () => {
  it(
    'clients of both eras calling through proto-mcp serve --http: every call is answered (its result, Unavailable, or Canceled when the shutdown cut it), none is lost, and calls succeed again after each restart',
    { timeout: 600_000 },
    async () => {
      const cli = builtCli()
      const grpcServer = await startGrpcServer([{ definition, impl: backend().impl }])
      cleanups.push(() => grpcServer.stop())
      const gateway = await startCli(
        cli,
        ['serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0', '--deadline', '10000'],
        REPO,
      )
      cleanups.push(() => gateway.stop())
      // The run: 20 clients, the backend killed twice in 30 s; npm test runs 4 clients through shorter phases.
      const CLIENTS = scaled(4, 20)
      const PHASE_MS = scaled(1200, 6000)
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          const client = new ClientV2(
            { name: `fault-${i}`, version: '0' },
            i % 2 === 0 ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' as const } } },
          )
          await client.connect(new HttpV2(new URL(gateway.url)))
          cleanups.push(() => client.close())
          return client
        }),
      )
      let phase = 0
      let running = true
      let started = 0
      let answered = 0
      const results: Array<{ phase: number; ok: boolean; text: string }> = []
      const caller = async (client: ClientV2, c: number): Promise<void> => {
        for (let n = 0; running; n++) {
          started++
          try {
            const result = (await client.callTool({ name: 'SetVibe', arguments: { vibe: `c${c}-${n}` } })) as {
              isError?: boolean
              content: Array<{ text: string }>
            }
            // Logged in the phase it completed in: one in flight at a kill belongs to the outage.
            results.push({ phase, ok: !result.isError, text: result.content[0]!.text })
          } catch (error) {
            // A protocol error is an answer too, but a wrong one: it is reported below.
            results.push({ phase, ok: false, text: `thrown: ${(error as Error).message}` })
          }
          answered++
        }
      }
      const calling = clients.map((client, c) => caller(client, c))
      const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
      // up, down, up, down, up
      for (const next of [() => grpcServer.stop(), () => grpcServer.start(), () => grpcServer.stop(), () => grpcServer.start()]) {
        await sleep(PHASE_MS)
        phase++
        await next()
      }
      await sleep(PHASE_MS)
      running = false
      // Every call in flight ends within the deadline; one that does not is lost.
      await Promise.race([Promise.all(calling), sleep(30_000)])
      process.stdout.write(`[faults] gateway: ${CLIENTS} clients, ${started} calls, ${started - answered} unanswered\n`)
      expect(started - answered).toBe(0)
      // A call in flight when the server shuts down is cancelled by it (grpc-js: Canceled); the rest of the outage is Unavailable.
      expect(
        results
          .filter((r) => !r.ok && !/^rpc error: code = (?:Unavailable|Canceled) desc = /.test(r.text))
          .map((r) => `phase ${r.phase}: ${r.text}`),
      ).toEqual([])
      // Before the first kill every call succeeded; after each restart calls succeed again.
      expect(results.filter((r) => r.phase === 0 && !r.ok)).toEqual([])
      for (const up of [2, 4])
        expect(
          results.filter((r) => r.phase === up),
          `phase ${up}`,
        ).toContainEqual(expect.objectContaining({ ok: true }))
      for (const down of [1, 3])
        expect(
          results.filter((r) => r.phase === down),
          `phase ${down}`,
        ).toContainEqual(expect.objectContaining({ ok: false }))
    },
  )
})

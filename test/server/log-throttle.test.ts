/**
 * Floods reach the logger throttled (the issue: every rejected HTTP request
 * wrote a stderr line, with no limit): at most 10 lines of a kind in 10 s,
 * then one line with the count when the window ends; `onError` still gets
 * every error.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { Server } from '../../src/entries/runtime.ts'
import { Log } from '../../src/server/base/logging.ts'

afterEach(() => vi.useRealTimers())

it('30 rejected HTTP requests are at most 10 logger lines; onError, when given, gets all 30', async () => {
  const errors: string[] = []
  const server = Server.builder('flood').build()
  const http = await server.serveHttp({ port: 0, logger: { error: (line) => errors.push(line) } })
  const seen: unknown[] = []
  const counted = await server.serveHttp({ port: 0, onError: (error) => void seen.push(error) })
  try {
    for (const url of [http.url, counted.url]) {
      for (let i = 0; i < 30; i++) {
        // Not JSON: the SDK refuses it (415) and reports it.
        const refused = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
          body: '{}',
        })
        expect(refused.status).toBe(415)
        await refused.text()
      }
    }
    expect(errors).toHaveLength(10)
    expect(errors[0]).toMatch(/^flood: Unsupported Media Type/)
    expect(seen).toHaveLength(30)
  } finally {
    await http.close()
    await counted.close()
  }
})

it('the lines held back are told in one line when the 10 s end', () => {
  vi.useFakeTimers()
  const lines: string[] = []
  const log = new Log({ logger: { warn: (line) => lines.push(line) } })
  for (let i = 1; i <= 25; i++) log.warnThrottled('failed call', `call ${i} failed`)
  expect(lines).toEqual(Array.from({ length: 10 }, (_, i) => `call ${i + 1} failed`))
  vi.advanceTimersByTime(10_000)
  expect(lines.slice(10)).toEqual(['call 25 failed (and 14 more like it in 10 s, not logged one by one)'])
  // A new window starts afresh.
  log.warnThrottled('failed call', 'call 26 failed')
  expect(lines.at(-1)).toBe('call 26 failed')
})

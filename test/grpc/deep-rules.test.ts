/**
 * `buf.validate` rules hold at every depth of a recursive message, in every
 * profile (issue 36, item 2): past `recursionDepth`, `portable` and `strict`
 * advertise JSON text of the message, and what the client sends there
 * (a nested object or JSON text) is still checked against every rule
 * before a real grpc-js server sees it, as `full` checks it.
 */
import * as protoLoader from '@grpc/proto-loader'
import type * as grpcJs from '@grpc/grpc-js'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc, type GrpcBackend } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import type { Server } from '../../src/server/index.ts'
import { loadMcpModule } from '../helpers/load-module.ts'
import { text } from '../helpers/result.ts'
import { startGrpcServer, type GrpcTestServer } from './grpc-server.ts'

const PROTO = fileURLToPath(new URL('../../fixtures/protos/grpc/deep-rules.proto', import.meta.url))
const PROTOS = fileURLToPath(new URL('../../protos', import.meta.url))

const received: unknown[] = []
let grpcServer: GrpcTestServer
let backend: GrpcBackend
/** The built package's backend, for the `?mcp` module (which runs on the built runtime). */
let builtBackend: GrpcBackend

beforeAll(async () => {
  const loaded = protoLoader.loadSync(PROTO, { includeDirs: [PROTOS], defaults: false, oneofs: true })
  const definition = loaded['deep.v1.Trees'] as grpcJs.ServiceDefinition
  const impl: grpcJs.UntypedServiceImplementation = {
    Put: (call: grpcJs.ServerUnaryCall<{ root?: unknown }, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
      received.push(call.request)
      callback(null, call.request.root ?? {})
    },
  }
  grpcServer = await startGrpcServer([{ definition, impl }])
  backend = grpc(grpcServer.address)
  const built = (await import('unplugin-proto-mcp/grpc')) as { grpc: typeof grpc }
  builtBackend = built.grpc(grpcServer.address)
})
afterAll(async () => {
  backend.close()
  builtBackend.close()
  await grpcServer.stop()
})

/** A chain of `depth` children below the root, the last one `leaf`. */
const chain = (depth: number, leaf: unknown): Record<string, unknown> => {
  let node: unknown = leaf
  for (let i = 0; i < depth; i++) node = { child: node }
  return node as Record<string, unknown>
}

const LONG = `: "toolong" is longer than 5 characters`
const NEGATIVE = `: -1 is less than the minimum of 0`
/** What the token budget adds to an error below one of its placeholders. */
const HINT = String.raw`(?: \(/root(?:/child)* is deep\.v1\.Node; schema: describe_type\))?`
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
/** The one error at `path`, with the budget's hint when it cut there. */
const only = (path: string, message: string): RegExp => new RegExp(`^invalid arguments: ${escape(path + message)}${HINT}$`)
const profiles = ['portable', 'strict', 'full'] as const
const budgets = [{ budget: 'default' }, { budget: 'off', toolTokenBudget: false as const }] as const

const servers: Array<[string, () => Promise<Server>]> = []
for (const profile of profiles) {
  for (const { budget, ...rest } of budgets) {
    const options = { profile, ...('toolTokenBudget' in rest ? { toolTokenBudget: rest.toolTokenBudget } : {}) }
    servers.push([
      `${profile}, budget ${budget}, compiled in process (the command)`,
      async () => createProtoServer(buildServerSpec(PROTO, options).spec).forward('Trees', backend),
    ])
    servers.push([
      `${profile}, budget ${budget}, the ?mcp module`,
      async () => (await loadMcpModule(PROTO, options)).server.forward('Trees', builtBackend),
    ])
  }
}

describe.each(servers)('every rule at every depth: %s', (_, make) => {
  let server: Server
  beforeAll(async () => {
    server = await make()
  })

  /** Calls Put and says what the backend saw: nothing when refused. */
  async function put(root: unknown): Promise<{ error?: string; reached: boolean }> {
    const before = received.length
    const result = await server.call('Put', { root })
    return { ...(result.isError ? { error: text(result) } : {}), reached: received.length > before }
  }

  it.each([1, 2, 3, 4, 6])('max_len at depth %i, as a nested object', async (depth) => {
    const path = `/root${'/child'.repeat(depth)}/name`
    const { error, reached } = await put(chain(depth, { name: 'toolong' }))
    expect(reached).toBe(false)
    expect(error).toMatch(only(path, LONG))
  })

  it.each([3, 5])('gte at depth %i, as JSON text', async (depth) => {
    const path = `/root${'/child'.repeat(depth)}/weight`
    // The node at depth 3 (and below) as JSON text, as a client reading the placeholder sends it.
    const text3 = JSON.stringify(chain(depth - 3, { weight: -1 }))
    const { error, reached } = await put(chain(3 - 1, { child: text3 }))
    expect(reached).toBe(false)
    expect(error).toMatch(only(path, NEGATIVE))
  })

  it('in a list and a map below the cut, and several errors at once', async () => {
    const deep = chain(2, { child: { kids: [{ name: 'fine' }, { name: 'toolong' }], weight: -1 } })
    const kids = await put(deep)
    expect(kids.reached).toBe(false)
    expect(kids.error).toMatch(
      new RegExp(
        `^invalid arguments: ${escape(`/root/child/child/child/kids/1/name${LONG}`)}${HINT}; ${escape(`/root/child/child/child/weight${NEGATIVE}`)}${HINT}$`,
      ),
    )
    const mapped = await put(chain(3, { byName: { a: { name: 'toolong' } } }))
    expect(mapped.reached).toBe(false)
    expect(mapped.error).toMatch(new RegExp(`^invalid arguments: /root/child/child/child/byName/(a|0/value)/name${escape(LONG)}${HINT}$`))
  })

  it('a deep tree that keeps every rule reaches the backend whole', async () => {
    const before = received.length
    const root = chain(5, { name: 'leaf', weight: 2, kids: [{ name: 'k' }], byName: { x: { weight: 1 } } })
    const result = await server.call('Put', { root })
    expect(result.isError, text(result)).toBe(false)
    expect(received.length).toBe(before + 1)
    expect(JSON.stringify(received.at(-1))).toContain('"name":"leaf"')
    expect(JSON.parse(text(result))).toEqual(root)
  })
})

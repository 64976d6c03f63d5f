/**
 * A fleet for tests: instance processes (fixtures/scripts/cluster/instance.ts, bundled as
 * a user's bundler would) behind a small round-robin HTTP proxy with no
 * affinity, so consecutive requests of one client land on different
 * instances. The proxy skips an instance that refuses connections (a load
 * balancer's health check), cuts a client's streams when their instance
 * dies, and can cut them on purpose (`cut`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'esbuild'
import protoMcp from '../../src/entries/esbuild.ts'

const root = join(import.meta.dirname, '..', '..')
const script = join(root, '.tmp', 'cluster', 'instance.mjs')
let bundled: Promise<void> | undefined

/** Bundles the instance fixture once per test process (`pg` stays a package, as a user installs it). */
function bundle(): Promise<void> {
  bundled ??= (async () => {
    mkdirSync(join(root, '.tmp', 'cluster'), { recursive: true })
    await build({
      entryPoints: [join(import.meta.dirname, '..', '..', 'fixtures', 'scripts', 'cluster', 'instance.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: script,
      logLevel: 'silent',
      external: ['pg'],
      // The `?mcp` module as a user's build makes it, its runtime imports the sources under test (one copy).
      plugins: [protoMcp()],
      alias: {
        'unplugin-proto-mcp/codegen-v1': join(root, 'src', 'entries', 'codegen-v1.ts'),
        'unplugin-proto-mcp/runtime': join(root, 'src', 'entries', 'runtime.ts'),
      },
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    })
  })()
  return bundled
}

/** A proxied request: the instance that served it, its HTTP method, and whether its body was a client's JSON-RPC response. */
export interface Served {
  instance: string
  method: string
  response: boolean
}

/** One instance process. */
export interface Instance {
  readonly name: string
  readonly url: string
  readonly process: ChildProcessWithoutNullStreams
  /** Sends a command line and resolves with the first reply line starting with `reply`. */
  command(line: string, reply: string): Promise<string>
  /** Whether it still runs. */
  readonly alive: boolean
}

/** How the instances share state: Postgres (a database URL) or the control, each process on its own memory. */
export type FleetKind = { cluster: 'postgres'; databaseUrl: string } | { cluster: 'memory' }

export interface FleetOptions {
  instances?: number
  idleMs?: number
  sweepMs?: number
  /** The exports backend (test/grpc/exports-server.ts) the long-running tool forwards to. */
  grpcTarget?: string
  /** The issuer of the `auth` option (the fleet's URL is the resource). */
  authIssuer?: string
}

/** A running fleet behind its proxy. */
export interface Fleet {
  readonly url: string
  readonly instances: Instance[]
  /** The file each handler run is appended to (`<tool>:<tag> <instance>` a line). */
  runs(): string[]
  /** Cuts every client stream the proxy holds to `instance` (the instance keeps running). */
  cut(instance: Instance): number
  /** Takes `instance` out of the rotation, kills it with SIGKILL and waits for it to be gone. */
  kill(instance: Instance): Promise<void>
  /** Each proxied request, in order: the instance that served it and what it carried. */
  readonly served: Served[]
  /** Takes `instance` out of the rotation (`false`: back in), as a balancer draining it. */
  drain(instance: Instance, draining?: boolean): void
  close(): Promise<void>
}

async function startInstance(name: string, kind: FleetKind, options: FleetOptions, runs: string, publicUrl: string): Promise<Instance> {
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      INSTANCE: name,
      RUNS: runs,
      CLUSTER: kind.cluster,
      DATABASE_URL: kind.cluster === 'postgres' ? kind.databaseUrl : '',
      IDLE_MS: String(options.idleMs ?? 600_000),
      SWEEP_MS: String(options.sweepMs ?? 5000),
      GRPC_TARGET: options.grpcTarget ?? '',
      AUTH_ISSUER: options.authIssuer ?? '',
      PUBLIC_URL: publicUrl,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    if (process.env.FLEET_DEBUG) process.stderr.write(chunk)
  })
  const lines = createInterface({ input: child.stdout })
  const waiting: Array<{ reply: string; resolve: (line: string) => void }> = []
  let ready: (url: string) => void
  let failed: (error: Error) => void
  const started = new Promise<string>((resolve, reject) => {
    ready = resolve
    failed = reject
  })
  lines.on('line', (line) => {
    if (line.startsWith('{')) return ready(JSON.parse(line).url as string)
    const index = waiting.findIndex((w) => line.startsWith(w.reply))
    if (index !== -1) waiting.splice(index, 1)[0]!.resolve(line)
  })
  let exited = false
  child.on('exit', (code, signal) => {
    exited = true
    failed(new Error(`instance ${name} exited (${code ?? signal}) before serving: ${stderr}`))
  })
  const timer = setTimeout(() => failed(new Error(`instance ${name} did not start in 30 s: ${stderr}`)), 30_000)
  const url = await started.finally(() => clearTimeout(timer))
  return {
    name,
    url,
    process: child,
    get alive() {
      return !exited
    },
    command(line, reply) {
      return new Promise((resolve) => {
        waiting.push({ reply, resolve })
        child.stdin.write(`${line}\n`)
      })
    },
  }
}

/** The proxy: round robin over the instances still accepting connections, no affinity. */
function startProxy(
  instances: Instance[],
  served: Served[],
  drained: Set<Instance>,
): Promise<{ server: HttpServer; url: string; cut: (i: Instance) => number }> {
  let next = 0
  const open = new Map<Instance, Set<ServerResponse>>()
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number): void => {
    const live = instances.filter((i) => i.alive && !drained.has(i))
    if (live.length === 0 || tries > instances.length) {
      res.writeHead(502).end()
      return
    }
    const instance = live[next++ % live.length]!
    const target = new URL(instance.url)
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        let response = false
        try {
          const parsed = JSON.parse(body.toString() || 'null') as { method?: unknown; id?: unknown } | null
          response = parsed !== null && typeof parsed === 'object' && !('method' in parsed) && 'id' in parsed
        } catch {
          // Not JSON: not a response.
        }
        served.push({ instance: instance.name, method: req.method ?? '', response })
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.flushHeaders()
        let set = open.get(instance)
        if (set === undefined) open.set(instance, (set = new Set()))
        set.add(res)
        answer.pipe(res)
        // The instance died mid-response: the client's connection breaks, as behind a real balancer.
        answer.on('error', () => res.destroy())
        answer.on('close', () => {
          if (!answer.complete) res.destroy()
        })
        res.on('close', () => {
          set.delete(res)
          answer.destroy()
        })
      },
    )
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (process.env.FLEET_DEBUG)
        console.error(`proxy: ${req.method} to ${instance.name}: ${error.code} ${error.message} (headers sent: ${res.headersSent})`)
      // Refused: the request never reached it, so the next instance takes it (anything else may have run: not retried).
      if (!res.headersSent && error.code === 'ECONNREFUSED') return forward(req, res, body, tries + 1)
      res.destroy()
    })
    // The client went away: so does the request to the instance.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy()
    })
    upstream.end(body)
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({
        server,
        url: `http://127.0.0.1:${port}/mcp`,
        cut: (instance) => {
          const set = open.get(instance) ?? new Set()
          for (const res of set) res.destroy()
          const n = set.size
          set.clear()
          return n
        },
      })
    })
  })
}

/** Starts `options.instances` (3) instances of `kind` and the proxy in front of them. */
export async function startFleet(kind: FleetKind, options: FleetOptions = {}): Promise<Fleet> {
  await bundle()
  const dir = join(root, '.tmp', 'cluster')
  const runs = join(dir, `runs-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`)
  writeFileSync(runs, '')
  const names = ['A', 'B', 'C', 'D', 'E'].slice(0, options.instances ?? 3)
  const served: Served[] = []
  const drained = new Set<Instance>()
  // The proxy first: its URL is the fleet's, which the instances' auth option names as the resource.
  const instances: Instance[] = []
  const proxy = await startProxy(instances, served, drained)
  instances.push(...(await Promise.all(names.map((name) => startInstance(name, kind, options, runs, proxy.url)))))
  return {
    url: proxy.url,
    instances,
    served,
    runs: () => readFileSync(runs, 'utf8').split('\n').filter(Boolean),
    cut: proxy.cut,
    drain: (instance, draining = true) => void (draining ? drained.add(instance) : drained.delete(instance)),
    async kill(instance) {
      if (!instance.alive) return
      // The balancer stops sending it new requests as it dies (its health check's business, not the servers');
      // the requests and streams it holds die with it.
      drained.add(instance)
      const gone = new Promise((resolve) => instance.process.once('exit', resolve))
      instance.process.kill('SIGKILL')
      await gone
    },
    async close() {
      proxy.server.closeAllConnections()
      await new Promise((resolve) => proxy.server.close(resolve))
      await Promise.all(
        instances.map(async (instance) => {
          if (!instance.alive) return
          const gone = new Promise((resolve) => instance.process.once('exit', resolve))
          instance.process.stdin.end()
          const timer = setTimeout(() => instance.process.kill('SIGKILL'), 5000)
          await gone
          clearTimeout(timer)
        }),
      )
    },
  }
}

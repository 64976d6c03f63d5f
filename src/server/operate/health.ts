/**
 * `GET /healthz` and `GET /readyz` of `serveHttp()` and the command
 * (docs/guide/production.md): liveness (the process answers) and readiness
 * (tools built, every backend reachable, the cluster's store reachable).
 * Never behind auth, and the bodies say only which check failed: no
 * addresses, no error texts.
 */
import type { Backend } from '../../runtime/backend.ts'
import type { Cluster } from '../cluster/cluster.ts'

/** The paths answered. */
export const HEALTH_PATH = '/healthz'
export const READY_PATH = '/readyz'

/** How long one readiness check may take before it counts as failing. */
export const READY_CHECK_MS = 2000

const backends = new WeakMap<object, Set<Backend>>()

/** Notes a backend bound to a server state (`Server.forward`): readiness asks it. */
export function noteBackend(state: object, backend: Backend): void {
  let set = backends.get(state)
  if (set === undefined) backends.set(state, (set = new Set()))
  set.add(backend)
}

type Check = 'ok' | 'failing'

/** What `/readyz` answers. */
export interface Readiness {
  status: 'ready' | 'not ready'
  checks: { tools: Check; backends: Check; cluster?: Check }
}

/** Whether `check` resolves true within {@link READY_CHECK_MS}. */
async function within(check: () => Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_CHECK_MS)
  })
  try {
    return await Promise.race([check().catch(() => false), late])
  } finally {
    clearTimeout(timer)
  }
}

/** The readiness of a server state (its tool snapshot, its backends) and of its cluster. */
export async function readiness(state: { tools: { byName: ReadonlyMap<string, unknown> } }, cluster?: Cluster): Promise<Readiness> {
  const tools: Check = state.tools.byName.size > 0 ? 'ok' : 'failing'
  const ready = await Promise.all([...(backends.get(state) ?? [])].map((b) => (b.ready === undefined ? true : within(() => b.ready!()))))
  const checks: Readiness['checks'] = { tools, backends: ready.every(Boolean) ? 'ok' : 'failing' }
  // A query the store must answer (an instance id no one has): reachable or not, nothing else.
  if (cluster !== undefined)
    checks.cluster = (await within(() => cluster.isAlive(`${cluster.instanceId}:readyz`).then(() => true))) ? 'ok' : 'failing'
  const status = Object.values(checks).every((c) => c === 'ok') ? 'ready' : 'not ready'
  return { status, checks }
}

/** The answer of a health path (`undefined` for another path): status and JSON body. */
export async function healthAnswer(
  path: string,
  state: { tools: { byName: ReadonlyMap<string, unknown> } },
  cluster?: Cluster,
): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  if (path === HEALTH_PATH) return { status: 200, body: { status: 'ok' } }
  if (path !== READY_PATH) return undefined
  const ready = await readiness(state, cluster)
  return { status: ready.status === 'ready' ? 200 : 503, body: { ...ready } }
}

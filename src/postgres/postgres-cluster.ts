/**
 * `postgresCluster()`: the `Cluster` of a fleet on Postgres
 * (docs/cluster.md). Sessions, events and message bodies in tables;
 * `LISTEN`/`NOTIFY` for the bus, session ends and routed responses, with
 * ids only in the payloads; an advisory lock per instance, held by its
 * listening connection, says it is alive; a sweeper on every instance
 * removes expired rows. The only folder that imports `pg`.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type {
  Cluster,
  ClusterListeners,
  ClusterMessage,
  EventLimits,
  FleetEvent,
  SessionRecord,
  StreamRequest,
  StreamTail,
} from '../server/cluster/cluster.ts'
import { runtimeError } from '../runtime/errors.ts'
import { checkOptions, integerRule, stringRule, type OptionRule } from '../runtime/check-options.ts'
import { statements, type Statements } from './schema.ts'
import { postgresTasks } from './task-store.ts'
import { isRecord } from '../contract/is-record.ts'

/** Options of {@link postgresCluster}. */
export interface PostgresClusterOptions {
  /** `postgres://user:password@host:port/database`; or give `config`. */
  connectionString?: string
  /** node-postgres connection options (host, port, user, password, database, ssl, ...), merged under `connectionString`. */
  config?: pg.ClientConfig
  /** Prefix of the tables, the function and the channel (letters, digits, `_`). @default 'mcp_' */
  tablePrefix?: string
  /** Connections of the query pool. @default 10 */
  poolSize?: number
  /** How often each instance removes expired sessions and old messages. @default 5000 */
  sweepMs?: number
  /** How long a routed response or a published body is kept for the instance it is for. @default 60000 */
  messageTtlMs?: number
  /** Tasks the fleet keeps at once, expired ones aside (the Tasks extension). @default 10000 */
  maxTasks?: number
  /** Bytes of one task's JSON (its result included); a result larger fails its task saying so. @default 4194304 (4 MiB) */
  maxTaskBytes?: number
}

/** The defaults of {@link PostgresClusterOptions}, applied by {@link postgresCluster}. */
const DEFAULT_TABLE_PREFIX = 'mcp_'
const DEFAULT_POOL_SIZE = 10
const DEFAULT_SWEEP_MS = 5000
const DEFAULT_MESSAGE_TTL_MS = 60_000
const DEFAULT_MAX_FLEET_TASKS = 10_000
/** Bytes of one task's JSON in the Postgres store (4 MiB); the memory store bounds all its tasks together instead (server/cluster/task-store.ts). */
const DEFAULT_MAX_BYTES_PER_TASK = 4 * 1024 * 1024

/** The options of `postgresCluster()`, with their defaults (the docs show them: test/option-docs.test.ts). */
export const POSTGRES_CLUSTER_RULES: Record<keyof PostgresClusterOptions, OptionRule> = {
  connectionString: stringRule,
  config: { accepts: 'an object of node-postgres client options', test: (v) => isRecord(v) },
  tablePrefix: {
    accepts: 'letters, digits and "_", starting with a letter or "_"',
    test: (v) => typeof v === 'string' && /^[a-z_][a-z0-9_]*$/i.test(v),
    default: DEFAULT_TABLE_PREFIX,
  },
  poolSize: { ...integerRule(1), default: DEFAULT_POOL_SIZE },
  sweepMs: { ...integerRule(10), default: DEFAULT_SWEEP_MS },
  messageTtlMs: { ...integerRule(1000), default: DEFAULT_MESSAGE_TTL_MS },
  maxTasks: { ...integerRule(1), default: DEFAULT_MAX_FLEET_TASKS },
  maxTaskBytes: { ...integerRule(1024), default: DEFAULT_MAX_BYTES_PER_TASK },
}

/** A 31-bit key of `text` (FNV-1a): advisory lock keys are int4 pairs. */
function key(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash & 0x7fffffff
}

/** Whether `error` is a lost connection rather than a failed statement (SQLSTATE class 57 is an operator intervention, 08 a connection exception). */
function isBrokenConnection(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && /^(57P0[123]|08...)$/.test(code)) return true
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)
}

/** An event id: the instance that wrote it and its number there (ordered per instance). */
const EVENT_ID = /^([A-Za-z0-9_-]{1,32})\.(\d{1,15})$/
/** How long a resume waits for another live instance to store the event it names, and how often it looks. */
const PENDING_WAIT_MS = 2000
const PENDING_POLL_MS = 20
/** How long `endSession` waits to hear its own end announced. */
const END_HEARD_MS = 1000

/** An event waiting to be written. */
interface PendingEvent {
  n: number
  id: string
  sessionId: string
  limits: EventLimits
  streamId: string
  text: string
  requests: StreamRequest[] | undefined
}

/** The events an instance appended and has not stored yet, and the waits for them. */
interface EventWriter {
  /** Queues an event; its id (`<instance>.<n>`) at once. */
  add(sessionId: string, limits: EventLimits, streamId: string, message: ClusterMessage, requests?: StreamRequest[]): string
  /** Resolves once event number `n` and every one before it was written (or failed to be). */
  settled(n: number): Promise<void>
  /** The number of the last event queued. */
  readonly last: number
}

/**
 * Event ids allocated here, so an event is sent without waiting for the
 * store: the events queued while a write runs go in the next one, a batch
 * of any sessions in one statement (`write`), in the order they were
 * appended. A write that fails is reported: those events were sent but
 * cannot be resumed from.
 */
function eventWriter(
  instanceId: string,
  write: (batch: PendingEvent[], upTo: number) => Promise<void>,
  report: (error: unknown) => void,
): EventWriter {
  let last = 0
  let done = 0
  let queue: PendingEvent[] = []
  let running = false
  let waits: Array<{ n: number; resolve: () => void }> = []
  const flush = (): void => {
    if (queue.length === 0) {
      running = false
      return
    }
    const batch = queue
    queue = []
    const upTo = batch.at(-1)!.n
    write(batch, upTo)
      .catch(report)
      .finally(() => {
        done = upTo
        const ready = waits.filter((w) => w.n <= done)
        waits = waits.filter((w) => w.n > done)
        for (const w of ready) w.resolve()
        flush()
      })
  }
  return {
    add(sessionId, limits, streamId, message, requests) {
      const n = ++last
      const id = `${instanceId}.${n}`
      queue.push({ n, id, sessionId, limits, streamId, text: JSON.stringify(message), requests })
      if (!running) {
        running = true
        // After this turn: the events a response brings (its priming event, its result) mostly go together.
        setImmediate(flush)
      }
      return id
    },
    settled(n) {
      if (n <= done) return Promise.resolve()
      return new Promise((resolve) => waits.push({ n, resolve }))
    },
    get last() {
      return last
    },
  }
}

/** Events of a bus payload: `<origin> e <kind>`. */
const LIST_KINDS = new Set(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed'])

/** A named statement run on the query pool (prepared once per connection). */
type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>

/** What the parts of one cluster share: its statements, this instance, the transports attached and the query pool. */
interface ClusterParts {
  readonly sql: Statements
  readonly instanceId: string
  /** The advisory lock space of the instances' liveness locks. */
  readonly lockSpace: number
  readonly attachments: Set<ClusterListeners>
  /** Tells every attached transport of a failure. */
  report(error: unknown): void
  query: Query
}

/** The settings of the connections: the resolved options of {@link postgresCluster}. */
interface ConnectionSettings {
  config: pg.ClientConfig
  tablePrefix: string
  poolSize: number
  sweepMs: number
  messageTtlMs: number
}

/** The pool and the listening connection of a cluster. */
interface Connections {
  query: Query
  /** Opens the pool, creates the tables, listens and takes this instance's lock, starts the sweeper. */
  start(): Promise<void>
  /** Closes both, once `beforeStop` resolved. */
  stop(): Promise<void>
  /** Whether the listening connection is up (this instance's lock held). */
  readonly listening: boolean
}

/**
 * A cluster on Postgres: `serveHttp({ cluster: postgresCluster({ connectionString }), requestStateKey })`
 * on every instance. Tables are created on first use.
 */
export function postgresCluster(options: PostgresClusterOptions = {}): Cluster {
  checkOptions('postgresCluster()', options, POSTGRES_CLUSTER_RULES)
  const {
    tablePrefix = DEFAULT_TABLE_PREFIX,
    poolSize = DEFAULT_POOL_SIZE,
    sweepMs = DEFAULT_SWEEP_MS,
    messageTtlMs = DEFAULT_MESSAGE_TTL_MS,
    maxTasks = DEFAULT_MAX_FLEET_TASKS,
    maxTaskBytes = DEFAULT_MAX_BYTES_PER_TASK,
  } = options
  const sql = statements(tablePrefix.toLowerCase())
  const config: pg.ClientConfig = { ...options.config, ...(options.connectionString ? { connectionString: options.connectionString } : {}) }
  const instanceId = randomBytes(9).toString('base64url')
  const attachments = new Set<ClusterListeners>()
  /** Sessions this instance is ending, until it hears the end back. */
  const ending = new Map<string, () => void>()
  let starting: Promise<void> | undefined
  const report = (error: unknown): void => {
    const failure = error instanceof Error ? error : new Error(String(error))
    for (const listeners of attachments) listeners.error(failure)
  }
  const parts: ClusterParts = {
    sql,
    instanceId,
    lockSpace: key(`${tablePrefix}instances`),
    attachments,
    report,
    query: (text, values) => connections.query(text, values),
  }
  const tasks = postgresTasks(sql, parts.query, instanceId, { maxTasks, maxTaskBytes })
  const connections = clusterConnections(
    parts,
    { config, tablePrefix, poolSize, sweepMs, messageTtlMs },
    {
      notification: notificationHandler(parts, tasks, ending),
      // What was sent is stored before the connections close.
      beforeStop: () => writes.settled(writes.last),
    },
  )
  const writes = eventWriter(instanceId, (batch, upTo) => appendEvents(parts, batch, upTo), report)

  return {
    instanceId,
    async attach(listeners) {
      starting ??= connections.start().catch((error: unknown) => {
        starting = undefined
        throw error
      })
      await starting
      attachments.add(listeners)
      return async () => {
        if (!attachments.delete(listeners) || attachments.size > 0) return
        starting = undefined
        await connections.stop()
      }
    },
    async publish(event) {
      if (event.kind === 'resource_updated') await parts.query(sql.publishBody, [JSON.stringify(event), `${instanceId} m`])
      else await parts.query(sql.notify, [`${instanceId} e ${event.kind}`])
    },
    async createSession(record, idleMs) {
      await parts.query(sql.createSession, [record.id, JSON.stringify(record), idleMs])
    },
    async touchSession(id, idleMs) {
      const { rows } = await parts.query<{ record: string }>(sql.touchSession, [id, idleMs])
      return rows[0] === undefined ? undefined : (JSON.parse(rows[0].record) as SessionRecord)
    },
    async endSession(id) {
      // Answered once the end is heard back, so the other instances were told too: one that served the
      // session within the last second answers from its copy without asking the store (http/session-handler.ts).
      let heard = (): void => {}
      const back = new Promise<void>((resolve) => (heard = resolve))
      ending.set(id, heard)
      try {
        const { rowCount } = await parts.query(sql.endSession, [id, instanceId])
        if (rowCount && connections.listening)
          await Promise.race([back, new Promise((resolve) => setTimeout(resolve, END_HEARD_MS).unref?.())])
      } finally {
        if (ending.get(id) === heard) ending.delete(id)
      }
    },
    events: (sessionId, limits) => sessionEvents(parts, writes, sessionId, limits),
    async sendResponse(target, sessionId, message) {
      await parts.query(sql.publishBody, [JSON.stringify(message), `${instanceId} r ${target} ${sessionId}`])
    },
    async isAlive(id) {
      if (id === instanceId) return connections.listening
      const { rows } = await parts.query<{ alive: boolean }>(sql.isAlive, [parts.lockSpace, key(id)])
      return rows[0]?.alive === true
    },
    tasks: () => tasks,
  }
}

/**
 * The query pool and the listening connection (LISTEN, this instance's
 * liveness lock), reconnected with backoff when lost; the sweeper of
 * expired rows while started.
 */
function clusterConnections(
  parts: Omit<ClusterParts, 'query'>,
  settings: ConnectionSettings,
  hooks: { notification: (payload: string) => void; beforeStop: () => Promise<void> },
): Connections {
  const { sql, instanceId, lockSpace, attachments, report } = parts
  const { config, tablePrefix } = settings
  let pool: pg.Pool | undefined
  let listener: pg.Client | undefined
  let sweeper: ReturnType<typeof setInterval> | undefined
  let reconnecting: ReturnType<typeof setTimeout> | undefined
  let closed = false

  const query: Query = async (text, values) => {
    if (pool === undefined) throw runtimeError('BAD_OPTION', 'postgresCluster(): used before a transport attached it')
    // Named: each connection prepares a statement once, then only binds it.
    const statement = { name: `${tablePrefix}${key(text).toString(36)}`, text, values }
    try {
      return await pool.query(statement)
    } catch (error) {
      // A pooled connection Postgres closed (a restart) fails once: the statement runs again on a fresh one.
      if (!isBrokenConnection(error) || pool === undefined) throw error
      return pool.query(statement)
    }
  }

  /** Connects the listening connection: LISTEN, and this instance's liveness lock. */
  const listen = async (): Promise<void> => {
    const client = new pg.Client(config)
    client.on('error', (error) => {
      if (listener !== client) return
      report(error)
      lost()
    })
    client.on('end', () => {
      if (listener === client) lost()
    })
    client.on('notification', (message) => {
      if (message.channel === sql.channel && message.payload) hooks.notification(message.payload)
    })
    await client.connect()
    try {
      await client.query(`LISTEN ${sql.channel}`)
      await client.query('SELECT pg_advisory_lock($1, $2)', [lockSpace, key(instanceId)])
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
    listener = client
  }

  /** The listening connection is gone: reconnect with backoff, then tell every transport. */
  const lost = (): void => {
    const client = listener
    listener = undefined
    client?.end().catch(() => {})
    if (closed || reconnecting !== undefined) return
    let delay = 100
    const retry = (): void => {
      reconnecting = setTimeout(() => {
        listen().then(
          () => {
            reconnecting = undefined
            for (const listeners of attachments) listeners.reconnected()
          },
          () => {
            delay = Math.min(delay * 2, 2000)
            if (!closed) retry()
          },
        )
      }, delay)
      reconnecting.unref?.()
    }
    retry()
  }

  const sweep = async (): Promise<void> => {
    await query(sql.sweepSessions, [instanceId])
    await query(sql.sweepMessages, [settings.messageTtlMs])
    await query(sql.sweepTasks, [Date.now()])
  }

  return {
    query,
    async start() {
      closed = false
      // Commits need not wait for the disk: the rows are UNLOGGED (schema.ts), and a crash ends sessions anyway.
      pool = new pg.Pool({
        ...config,
        max: settings.poolSize,
        options: [config.options, '-c synchronous_commit=off'].filter(Boolean).join(' '),
      })
      // An idle connection that fails (Postgres restarting) leaves the pool; without a listener it would crash the process.
      pool.on('error', report)
      try {
        await createTables(pool, sql, tablePrefix)
        await listen()
      } catch (error) {
        const failed = pool
        pool = undefined
        await failed.end().catch(() => {})
        throw error
      }
      sweeper = setInterval(() => sweep().catch(report), settings.sweepMs)
      sweeper.unref?.()
    },
    async stop() {
      await hooks.beforeStop()
      closed = true
      clearInterval(sweeper)
      clearTimeout(reconnecting)
      reconnecting = undefined
      const client = listener
      listener = undefined
      await client?.end().catch(() => {})
      const stopped = pool
      pool = undefined
      await stopped?.end().catch(() => {})
    },
    get listening() {
      return listener !== undefined
    },
  }
}

/** Creates the tables (if they are not there), one instance at a time. */
async function createTables(pool: pg.Pool, sql: Statements, tablePrefix: string): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [key(`${tablePrefix}schema`)])
    await client.query(sql.schema)
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/**
 * What a notification on the channel says (`<origin> <type> ...`): a
 * session ended (`x`), a task changed (`t`), a list changed (`e`), a bus
 * event (`m`) or a response routed to this instance (`r`), the last two
 * read from the messages table by id.
 */
function notificationHandler(
  parts: Omit<ClusterParts, 'lockSpace'>,
  tasks: { heard(taskId: string): void },
  ending: ReadonlyMap<string, () => void>,
): (payload: string) => void {
  const { sql, instanceId, attachments, report, query } = parts
  return (payload) => {
    const [origin, type, first, second, third] = payload.split(' ')
    if (type === 'x') {
      if (origin === instanceId) ending.get(first!)?.()
      for (const listeners of attachments) listeners.ended(first!)
      return
    }
    if (origin === instanceId) return
    if (type === 't') tasks.heard(first!)
    else if (type === 'e' && LIST_KINDS.has(first!)) {
      for (const listeners of attachments) listeners.event({ kind: first } as FleetEvent)
    } else if (type === 'm') {
      query<{ body: string }>(sql.readBody, [first]).then(({ rows }) => {
        if (rows[0] === undefined) return
        const event = JSON.parse(rows[0].body) as FleetEvent
        for (const listeners of attachments) listeners.event(event)
      }, report)
    } else if (type === 'r' && first === instanceId) {
      query<{ body: string }>(sql.readBody, [third]).then(({ rows }) => {
        if (rows[0] === undefined) return
        const message = JSON.parse(rows[0].body) as ClusterMessage
        for (const listeners of attachments) listeners.response(second!, message)
      }, report)
    }
  }
}

/** Writes a batch of events (any sessions) in one statement, and that this instance wrote up to event `upTo`. */
async function appendEvents(parts: ClusterParts, batch: PendingEvent[], upTo: number): Promise<void> {
  await parts.query(parts.sql.append, [
    parts.instanceId,
    upTo,
    batch.map((e) => e.sessionId),
    batch.map((e) => e.id),
    batch.map((e) => e.streamId),
    batch.map((e) => e.text),
    batch.map((e) => e.text.length),
    batch.map((e) => (e.requests === undefined ? null : JSON.stringify(e.requests))),
    batch.map((e) => e.limits.maxEvents),
    batch.map((e) => e.limits.maxBytes),
  ])
}

/** The event store of session `sessionId`: appends through `writes`, resumes from the table. */
function sessionEvents(parts: ClusterParts, writes: EventWriter, sessionId: string, limits: EventLimits): ReturnType<Cluster['events']> {
  const { sql, instanceId, lockSpace, query } = parts
  /** The stream of event `eventId` and its events after it, as stored now. */
  const readTail = async (eventId: string): Promise<StreamTail | undefined> => {
    const { rows } = await query<{
      id: string
      stream_id: string
      message: string
      owner: string | null
      requests: StreamTail['requests'] | null
    }>(sql.tail, [sessionId, eventId])
    if (rows[0] === undefined) return undefined
    return {
      streamId: rows[0].stream_id,
      owner: rows[0].owner ?? instanceId,
      requests: rows[0].requests ?? [],
      events: rows.slice(1).map((row) => ({ id: row.id, message: JSON.parse(row.message) as ClusterMessage })),
    }
  }
  return {
    async append(streamId, message, requests) {
      return writes.add(sessionId, limits, streamId, message, requests)
    },
    async tail(eventId): Promise<StreamTail | undefined> {
      const named = EVENT_ID.exec(eventId)
      if (named === null) return undefined
      const [, writer, n] = named as unknown as [string, string, string]
      // This instance's own event: read once its write is done (a number it never gave is unknown).
      if (writer === instanceId) {
        if (Number(n) > writes.last) return undefined
        return writes.settled(Number(n)).then(() => readTail(eventId))
      }
      // Another's: it may be on its way (written after it was sent). Read again while its instance lives and has not got that far.
      const deadline = Date.now() + PENDING_WAIT_MS
      for (;;) {
        const found = await readTail(eventId)
        if (found !== undefined) return found
        const { rows } = await query<{ flushed: string | null; alive: boolean }>(sql.writer, [writer, lockSpace, key(writer)])
        const flushed = rows[0]?.flushed
        // Written (or dropped) by now, or never will be: what the store holds is the answer.
        if ((flushed !== null && flushed !== undefined && Number(flushed) >= Number(n)) || rows[0]?.alive !== true) return readTail(eventId)
        if (Date.now() >= deadline) return undefined
        await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS))
      }
    },
    async clear() {
      // Events appended before are stored first, so none lands after the clear.
      await writes.settled(writes.last)
      await query(sql.clear, [sessionId])
    },
  }
}

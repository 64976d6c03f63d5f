/**
 * The tables, the append function and the statements of the Postgres
 * cluster, named with the adapter's table prefix. Bodies live in tables;
 * `NOTIFY` carries ids only (its payload stops at 8000 bytes). The tables
 * are UNLOGGED: what they hold lives minutes (sessions, their last events,
 * messages in flight), and a crash of Postgres ending the sessions (clients
 * initialize again) costs less than writing each event to the WAL.
 */

/** The statements of one table prefix (`mcp_` by default). */
export interface Statements {
  readonly channel: string
  /** Creates what is missing; run under an advisory lock (concurrent `CREATE ... IF NOT EXISTS` can collide). */
  readonly schema: string
  readonly createSession: string
  readonly touchSession: string
  readonly endSession: string
  readonly append: string
  readonly tail: string
  /** How far instance $1 stored its events, and whether it is alive (lock $2, $3). */
  readonly writer: string
  readonly clear: string
  readonly notify: string
  readonly publishBody: string
  readonly readBody: string
  readonly sweepSessions: string
  readonly sweepMessages: string
  readonly isAlive: string
  readonly createTask: string
  readonly dropEndedTask: string
  readonly getTask: string
  readonly updateTask: string
  readonly dueTasks: string
  readonly sweepTasks: string
}

/** Whether the advisory lock (`space`, `key`) of an instance's listening connection is held: the instance is alive. */
const ALIVE = (space: string, key: string): string =>
  `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${space} AND objid = ${key} AND objsubid = 2
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`

/** The statements for table prefix `p` (checked by the caller: `[a-z_][a-z0-9_]*`). */
export function statements(p: string): Statements {
  const channel = `${p}fleet`
  return {
    channel,
    schema: `
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}sessions (
  id text PRIMARY KEY,
  record text NOT NULL,
  expires_at timestamptz NOT NULL,
  event_count integer NOT NULL DEFAULT 0,
  event_bytes bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS ${p}sessions_expires ON ${p}sessions (expires_at);
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}streams (
  session_id text NOT NULL REFERENCES ${p}sessions (id) ON DELETE CASCADE,
  stream_id text NOT NULL,
  owner text NOT NULL,
  requests jsonb NOT NULL,
  PRIMARY KEY (session_id, stream_id)
);
-- Event ids are the writing instance's (<instance>.<n>); seq orders a session's events as they were stored.
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}events (
  seq bigserial PRIMARY KEY,
  session_id text NOT NULL REFERENCES ${p}sessions (id) ON DELETE CASCADE,
  id text NOT NULL,
  stream_id text NOT NULL,
  message text NOT NULL,
  bytes integer NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS ${p}events_id ON ${p}events (session_id, id);
CREATE INDEX IF NOT EXISTS ${p}events_seq ON ${p}events (session_id, seq);
-- Per instance: the last of its event numbers whose write is done (a resume elsewhere waits for it).
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}writers (
  instance text PRIMARY KEY,
  flushed bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}messages (
  id bigserial PRIMARY KEY,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ${p}messages_created ON ${p}messages (created_at);
-- Tasks are logged: a result clients come back for over an hour outlives a Postgres restart.
-- Times are the instances' milliseconds since the epoch; due_at is the runner's lease end of a task not terminal.
CREATE TABLE IF NOT EXISTS ${p}tasks (
  id text PRIMARY KEY,
  task text NOT NULL,
  version integer NOT NULL DEFAULT 0,
  expires_at bigint NOT NULL,
  due_at bigint
);
CREATE INDEX IF NOT EXISTS ${p}tasks_expires ON ${p}tasks (expires_at);
CREATE INDEX IF NOT EXISTS ${p}tasks_due ON ${p}tasks (due_at) WHERE due_at IS NOT NULL;
-- One call stores a batch of one instance's events (of any sessions, in order), then records how far it got.
CREATE OR REPLACE FUNCTION ${p}append_events(
  p_writer text, p_flushed bigint, p_sessions text[], p_ids text[], p_streams text[], p_messages text[], p_bytes integer[],
  p_requests text[], p_max_events integer[], p_max_bytes integer[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  v_count integer;
  v_total bigint;
  v_dropped integer;
  v_trimmed boolean;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    -- An event larger than its session's allowance is sent, never kept.
    CONTINUE WHEN p_bytes[i] > p_max_bytes[i];
    -- The session row is the lock that orders a session's appends and holds its totals; none, nothing is kept.
    UPDATE ${p}sessions SET event_count = event_count + 1, event_bytes = event_bytes + p_bytes[i]
      WHERE id = p_sessions[i] RETURNING event_count, event_bytes INTO v_count, v_total;
    CONTINUE WHEN NOT FOUND;
    -- A stream's first event names its requests (the transport's priming event); later ones do not.
    IF p_requests[i] IS NOT NULL THEN
      INSERT INTO ${p}streams (session_id, stream_id, owner, requests) VALUES (p_sessions[i], p_streams[i], p_writer, p_requests[i]::jsonb)
        ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO ${p}events (session_id, id, stream_id, message, bytes) VALUES (p_sessions[i], p_ids[i], p_streams[i], p_messages[i], p_bytes[i]);
    v_trimmed := false;
    WHILE v_count > p_max_events[i] OR v_total > p_max_bytes[i] LOOP
      DELETE FROM ${p}events WHERE seq = (SELECT min(seq) FROM ${p}events WHERE session_id = p_sessions[i]) RETURNING bytes INTO v_dropped;
      EXIT WHEN v_dropped IS NULL;
      v_count := v_count - 1;
      v_total := v_total - v_dropped;
      v_trimmed := true;
    END LOOP;
    IF v_trimmed THEN UPDATE ${p}sessions SET event_count = v_count, event_bytes = v_total WHERE id = p_sessions[i]; END IF;
  END LOOP;
  INSERT INTO ${p}writers (instance, flushed) VALUES (p_writer, p_flushed)
    ON CONFLICT (instance) DO UPDATE SET flushed = greatest(${p}writers.flushed, EXCLUDED.flushed), updated_at = now();
END $$;`,
    createSession: `INSERT INTO ${p}sessions (id, record, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')`,
    // A touch never shortens: another instance may have slid the expiry further.
    touchSession: `UPDATE ${p}sessions SET expires_at = greatest(expires_at, now() + $2 * interval '1 millisecond')
  WHERE id = $1 AND expires_at > now() RETURNING record`,
    endSession: `WITH gone AS (DELETE FROM ${p}sessions WHERE id = $1 RETURNING id) SELECT pg_notify('${channel}', $2 || ' x ' || id) FROM gone`,
    append: `SELECT ${p}append_events($1, $2, $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::text[], $9::integer[], $10::integer[])`,
    tail: `WITH last AS (SELECT stream_id, seq FROM ${p}events WHERE session_id = $1 AND id = $2)
SELECT e.id, e.stream_id, e.message, s.owner, s.requests
FROM last JOIN ${p}events e ON e.session_id = $1 AND e.stream_id = last.stream_id AND e.seq >= last.seq
LEFT JOIN ${p}streams s ON s.session_id = $1 AND s.stream_id = last.stream_id
ORDER BY e.seq`,
    writer: `SELECT (SELECT flushed FROM ${p}writers WHERE instance = $1)::text AS flushed, ${ALIVE('$2', '$3')} AS alive`,
    clear: `WITH s AS (DELETE FROM ${p}streams WHERE session_id = $1), e AS (DELETE FROM ${p}events WHERE session_id = $1)
UPDATE ${p}sessions SET event_count = 0, event_bytes = 0 WHERE id = $1`,
    notify: `SELECT pg_notify('${channel}', $1)`,
    publishBody: `WITH m AS (INSERT INTO ${p}messages (body) VALUES ($1) RETURNING id) SELECT pg_notify('${channel}', $2 || ' ' || id) FROM m`,
    readBody: `SELECT body FROM ${p}messages WHERE id = $1`,
    sweepSessions: `WITH gone AS (DELETE FROM ${p}sessions WHERE expires_at <= now() RETURNING id) SELECT pg_notify('${channel}', $1 || ' x ' || id) FROM gone`,
    sweepMessages: `WITH w AS (DELETE FROM ${p}writers WHERE updated_at < now() - interval '1 hour')
DELETE FROM ${p}messages WHERE created_at < now() - $1 * interval '1 millisecond'`,
    createTask: `INSERT INTO ${p}tasks (id, task, expires_at, due_at)
SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM ${p}tasks WHERE expires_at > $5) < $6`,
    // The oldest task that ended makes room for a new one (a full table only: the scan is the exception).
    dropEndedTask: `DELETE FROM ${p}tasks WHERE id = (SELECT id FROM ${p}tasks WHERE due_at IS NULL
  AND (task::jsonb)->>'status' IN ('completed', 'failed', 'cancelled') ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED)`,
    getTask: `SELECT task, version FROM ${p}tasks WHERE id = $1 AND expires_at > $2`,
    // Optimistic: the row changes only if no other change came in between; the NOTIFY names the task (its body stays in the table).
    updateTask: `WITH changed AS (UPDATE ${p}tasks SET task = $3, version = version + 1, expires_at = $4, due_at = $5
  WHERE id = $1 AND version = $2 RETURNING id) SELECT pg_notify('${channel}', $6 || ' t ' || id) FROM changed`,
    dueTasks: `SELECT id FROM ${p}tasks WHERE due_at < $1 AND expires_at > $1 ORDER BY due_at LIMIT $2`,
    sweepTasks: `DELETE FROM ${p}tasks WHERE expires_at <= $1`,
    isAlive: `SELECT ${ALIVE('$1', '$2')} AS alive`,
  }
}

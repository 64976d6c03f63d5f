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
  readonly clear: string
  readonly notify: string
  readonly publishBody: string
  readonly readBody: string
  readonly sweepSessions: string
  readonly sweepMessages: string
  readonly isAlive: string
  readonly createTask: string
  readonly getTask: string
  readonly updateTask: string
  readonly dueTasks: string
  readonly sweepTasks: string
}

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
CREATE UNLOGGED TABLE IF NOT EXISTS ${p}events (
  id bigserial PRIMARY KEY,
  session_id text NOT NULL REFERENCES ${p}sessions (id) ON DELETE CASCADE,
  stream_id text NOT NULL,
  message text NOT NULL,
  bytes integer NOT NULL
);
CREATE INDEX IF NOT EXISTS ${p}events_session ON ${p}events (session_id, id);
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
CREATE OR REPLACE FUNCTION ${p}append(
  p_session text, p_stream text, p_message text, p_bytes integer, p_owner text, p_requests jsonb, p_max_events integer, p_max_bytes integer
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_count integer;
  v_total bigint;
  v_dropped integer;
  v_trimmed boolean := false;
BEGIN
  IF p_bytes > p_max_bytes THEN RETURN NULL; END IF;
  -- The session row is the lock that orders a session's appends and holds its totals.
  UPDATE ${p}sessions SET event_count = event_count + 1, event_bytes = event_bytes + p_bytes
    WHERE id = p_session RETURNING event_count, event_bytes INTO v_count, v_total;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- A stream's first event names its requests (the transport's priming event); later ones do not.
  IF p_requests IS NOT NULL THEN
    INSERT INTO ${p}streams (session_id, stream_id, owner, requests) VALUES (p_session, p_stream, p_owner, p_requests) ON CONFLICT DO NOTHING;
  END IF;
  INSERT INTO ${p}events (session_id, stream_id, message, bytes) VALUES (p_session, p_stream, p_message, p_bytes) RETURNING id INTO v_id;
  WHILE v_count > p_max_events OR v_total > p_max_bytes LOOP
    DELETE FROM ${p}events WHERE id = (SELECT min(id) FROM ${p}events WHERE session_id = p_session) RETURNING bytes INTO v_dropped;
    EXIT WHEN v_dropped IS NULL;
    v_count := v_count - 1;
    v_total := v_total - v_dropped;
    v_trimmed := true;
  END LOOP;
  IF v_trimmed THEN UPDATE ${p}sessions SET event_count = v_count, event_bytes = v_total WHERE id = p_session; END IF;
  RETURN v_id;
END $$;`,
    createSession: `INSERT INTO ${p}sessions (id, record, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')`,
    touchSession: `UPDATE ${p}sessions SET expires_at = now() + $2 * interval '1 millisecond' WHERE id = $1 AND expires_at > now() RETURNING record`,
    endSession: `WITH gone AS (DELETE FROM ${p}sessions WHERE id = $1 RETURNING id) SELECT pg_notify('${channel}', $2 || ' x ' || id) FROM gone`,
    append: `SELECT ${p}append($1, $2, $3, $4, $5, $6, $7, $8)::text AS id`,
    tail: `WITH last AS (SELECT stream_id FROM ${p}events WHERE id = $2 AND session_id = $1)
SELECT e.id::text AS id, e.stream_id, e.message, s.owner, s.requests
FROM last JOIN ${p}events e ON e.session_id = $1 AND e.stream_id = last.stream_id AND e.id >= $2
LEFT JOIN ${p}streams s ON s.session_id = $1 AND s.stream_id = last.stream_id
ORDER BY e.id`,
    clear: `WITH s AS (DELETE FROM ${p}streams WHERE session_id = $1), e AS (DELETE FROM ${p}events WHERE session_id = $1)
UPDATE ${p}sessions SET event_count = 0, event_bytes = 0 WHERE id = $1`,
    notify: `SELECT pg_notify('${channel}', $1)`,
    publishBody: `WITH m AS (INSERT INTO ${p}messages (body) VALUES ($1) RETURNING id) SELECT pg_notify('${channel}', $2 || ' ' || id) FROM m`,
    readBody: `SELECT body FROM ${p}messages WHERE id = $1`,
    sweepSessions: `WITH gone AS (DELETE FROM ${p}sessions WHERE expires_at <= now() RETURNING id) SELECT pg_notify('${channel}', $1 || ' x ' || id) FROM gone`,
    sweepMessages: `DELETE FROM ${p}messages WHERE created_at < now() - $1 * interval '1 millisecond'`,
    createTask: `INSERT INTO ${p}tasks (id, task, expires_at, due_at)
SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM ${p}tasks WHERE expires_at > $5) < $6`,
    getTask: `SELECT task, version FROM ${p}tasks WHERE id = $1 AND expires_at > $2`,
    // Optimistic: the row changes only if no other change came in between; the NOTIFY names the task (its body stays in the table).
    updateTask: `WITH changed AS (UPDATE ${p}tasks SET task = $3, version = version + 1, expires_at = $4, due_at = $5
  WHERE id = $1 AND version = $2 RETURNING id) SELECT pg_notify('${channel}', $6 || ' t ' || id) FROM changed`,
    dueTasks: `SELECT id FROM ${p}tasks WHERE due_at < $1 AND expires_at > $1 ORDER BY due_at LIMIT $2`,
    sweepTasks: `DELETE FROM ${p}tasks WHERE expires_at <= $1`,
    isAlive: `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS alive`,
  }
}

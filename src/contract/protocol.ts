/**
 * The MCP protocol revision without sessions, the first of the per-request
 * era: a request carries its revision, capabilities and state itself.
 * Every earlier revision is the initialize era. Versions compare as dates,
 * so `version >= MODERN_REVISION` is the per-request era. Written here
 * only (test/architecture.test.ts).
 */
export const MODERN_REVISION = '2026-07-28'

/**
 * `unplugin-proto-mcp/postgres`: a fleet of servers behind a load balancer,
 * sharing sessions, events and list changes through Postgres
 * (docs/cluster.md). Needs the `pg` package (an optional peer dependency).
 */
export { postgresCluster, type PostgresClusterOptions } from '../postgres/postgres-cluster.ts'

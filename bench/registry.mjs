/**
 * The benchmark groups `npm run bench` runs, in order. A group is a module
 * (one file per group of ids) whose default export is
 * `{ name, ids, run(): Promise<BenchRecord[]> }`, each record made by
 * `record()` of bench/lib/measure.mjs. To add a benchmark, write its file
 * and list it here.
 */
import authOverhead from './auth-overhead.mjs'
import build from './build.mjs'
import cluster from './cluster.mjs'
import coldStart from './cold-start.mjs'
import discovery from './discovery.mjs'
import e2e from './e2e.mjs'
import grpcOverhead from './grpc-overhead.mjs'
import hmr from './hmr.mjs'
import httpThroughput from './http-throughput.mjs'
import lean from './lean.mjs'
import memory from './memory.mjs'
import otelOverhead from './otel-overhead.mjs'
import pipeline from './pipeline.mjs'
import rateLimit from './rate-limit.mjs'
import startupBig from './startup-big.mjs'
import tokens from './tokens.mjs'
import toolsListBytes from './tools-list-bytes.mjs'

/** Every group, in run order (cheap in-process ones first). */
export const groups = [
  toolsListBytes,
  tokens,
  discovery,
  pipeline,
  e2e,
  httpThroughput,
  coldStart,
  startupBig,
  lean,
  build,
  hmr,
  grpcOverhead,
  authOverhead,
  otelOverhead,
  rateLimit,
  memory,
  cluster,
]

/**
 * The conformance fixture served over HTTP from source: `everythingServer`
 * with the tools of `conformance.proto`, on `serveHttp()`. The suite's test
 * and `npm run conformance:serve` (scripts/conformance-serve.mjs) start it.
 */
import { fileURLToPath } from 'node:url'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/internal.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { everythingServer, implementCount } from './everything.ts'

/** conformance.proto, next to this file. */
export const CONFORMANCE_PROTO = fileURLToPath(new URL('./conformance.proto', import.meta.url))

/** The fixture server, built from source (`proto`: the path of conformance.proto). */
export function conformanceServer(proto = CONFORMANCE_PROTO): Server {
  return everythingServer(Server, implementCount(createProtoServer(specFromProto(proto))))
}

/** Serves the fixture on 127.0.0.1 (`port` 0 picks a free one). */
export function serveConformance(port = 0, proto = CONFORMANCE_PROTO): Promise<HttpHandle> {
  return conformanceServer(proto).serveHttp({ port })
}

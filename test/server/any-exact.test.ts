/**
 * A 64-bit value past 2^53 inside an `Any` is read as the client wrote it,
 * from the request's text, as everywhere else (docs/guide/protobuf-json.md,
 * "Reading the JSON text of a call"): in a packed message's field and in a
 * packed `Int64Value`. Before, the exact pass stopped at the `Any` and the
 * value reached the service rounded (`9007199254740992`).
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/server/index.ts'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { modernRequest } from '../helpers/modern-wire.ts'

const PROTO = `syntax = "proto3";
package anyx.v1;

import "google/protobuf/any.proto";

message Counter {
  int64 count = 1;
}

message Holder {
  google.protobuf.Any packed = 1;
}

service Holders {
  rpc Hold(Holder) returns (Holder);
}
`
const BIG = '9007199254740993'
const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const close of closers.splice(0)) await close()
})

describe('a 64-bit number past 2^53 inside an Any', () => {
  it.each([
    ['a packed message', 'type.googleapis.com/anyx.v1.Counter', 'count'],
    ['a packed Int64Value', 'type.googleapis.com/google.protobuf.Int64Value', 'value'],
  ])('%s: the service gets it exactly', async (_, url, key) => {
    const server = createProtoServer(buildServerSpec(join(writeProtos({ 'anyx.proto': PROTO }), 'anyx.proto')).spec)
    const seen: unknown[] = []
    server.implement('Holders', { Hold: (request: Record<string, unknown>) => (seen.push(request), request) })
    const http = await server.logging({ logger: false }).serveHttp({ port: 0 })
    closers.push(() => http.close())
    const answer = await modernRequest(
      http.url,
      'tools/call',
      { name: 'Hold', arguments: { packed: { '@type': url, [key]: 0 } } },
      { rewrite: (body) => body.replace(`"${key}":0`, `"${key}":${BIG}`) },
    )
    expect(answer.body.result?.isError).toBe(false)
    expect(seen).toEqual([{ packed: { '@type': url, [key]: BIG } }])
  })
})

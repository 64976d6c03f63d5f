/**
 * The google.rpc types the runtime decodes error details with
 * (src/runtime/rpc-details.ts, bundled as JSON so no file is read at run
 * time) are the shipped protos/google/rpc/*.proto, field for field.
 */
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { preloadProtobuf } from '../../src/runtime/load-protobuf.ts'
import { rpc } from '../../src/runtime/rpc-details.ts'

const PROTOS = fileURLToPath(new URL('../../protos', import.meta.url))

/** Every message under `ns` by full name: its fields as `name id rule type keyType`. */
function shapes(ns: protobuf.Namespace): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) {
      out[nested.fullName] = nested.fieldsArray.map((f) =>
        [
          f.name,
          f.id,
          f.repeated ? 'repeated' : f.options?.proto3_optional ? 'optional' : '',
          f.type,
          (f as unknown as protobuf.MapField).keyType ?? '',
        ].join(' '),
      )
    }
    if (nested instanceof protobuf.Namespace) Object.assign(out, shapes(nested))
  }
  return out
}

beforeAll(() => preloadProtobuf())

describe('the bundled google.rpc descriptor', () => {
  it('declares every message of the shipped status.proto and error_details.proto as they do', () => {
    const shipped = new protobuf.Root()
    shipped.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : `${PROTOS}/${target}`)
    shipped.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto', 'google/rpc/code.proto'], { keepCase: true })
    const want = shapes(shipped.lookup('google.rpc') as protobuf.Namespace)
    expect(Object.keys(want)).toContain('.google.rpc.ErrorInfo')
    expect(shapes(rpc().lookup('google.rpc') as protobuf.Namespace)).toEqual(want)
  })
})

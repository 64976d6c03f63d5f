/**
 * The public API (docs/internals.md, "Entries"): each subpath's run-time
 * exports, exactly. Classes users receive but never construct
 * (`ServerBuilder`, `ServerHandle`, `InProcessCall`) are types only; the
 * spec types are on `/codegen-v1`; the client-rules checker is on its own
 * subpath; no default constant of the server's limits is public.
 */
import { describe, expect, it } from 'vitest'
import * as main from '../../src/entries/index.ts'
import * as runtime from '../../src/entries/runtime.ts'
import * as grpc from '../../src/entries/grpc.ts'
import * as gateway from '../../src/entries/gateway.ts'
import * as clientRules from '../../src/entries/client-rules.ts'

const keys = (entry: object): string[] => Object.keys(entry).sort()

describe('each subpath exports what users need, and nothing more', () => {
  it('. : the plugin and writeProtoDeclarations', () => {
    expect(keys(main)).toEqual(['default', 'writeProtoDeclarations'])
  })

  it('/runtime: Server, the status errors, the backend helpers, the task store and the fleets; no builder, handle or limit', () => {
    expect(keys(runtime)).toEqual([
      'DEFAULT_FORWARDED_HEADERS',
      'DEFAULT_STREAM_CAP',
      'MemoryTaskStore',
      'STATUS_NAMES',
      'Server',
      'TASKS_EXTENSION',
      'TaskLimitError',
      'isRuntimeError',
      'isTerminal',
      'memoryCluster',
      'memoryFleet',
      'principalMetadata',
      'statusError',
      'verifiedPrincipal',
    ])
  })

  it('/grpc: the two backends', () => {
    expect(keys(grpc)).toEqual(['grpc', 'grpcImplementation'])
  })

  it('/gateway: the reflection server, its re-discovery and the error guard (one level of the job)', () => {
    expect(keys(gateway)).toEqual(['isReflectionError', 'reflectServer', 'watchReflection'])
  })

  it('/client-rules: the checker', () => {
    expect(keys(clientRules)).toEqual(['CLIENT_DIALECT_NAMES', 'REQUEST_TOOL', 'checkClientRules'])
  })
})

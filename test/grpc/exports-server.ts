/**
 * A real grpc-js backend of fixtures/protos/grpc/exports.proto: an
 * `ExportService` whose `ExportTable` starts a long-running operation, the
 * `google.longrunning.Operations` service that reads and cancels it (each
 * `GetOperation` moves it one step on), and a server-streaming `StreamRows`.
 * Every call is recorded.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { startGrpcServer, type GrpcTestServer } from './grpc-server.ts'

/** The proto, and the package's shipped protos (google/longrunning/operations.proto and its imports). */
export const EXPORTS_PROTO = fileURLToPath(new URL('../../fixtures/protos/grpc/exports.proto', import.meta.url))
const PROTOS = fileURLToPath(new URL('../../protos', import.meta.url))
const WELL_KNOWN_DESCRIPTOR = createRequire(import.meta.url).resolve('protobufjs/google/protobuf/descriptor.proto')

const loaderOptions = { longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS] }

/** protobufjs of the same proto, to pack `Any`s (metadata, response, error details). */
function packer(): (type: string, value: Record<string, unknown>) => { type_url: string; value: Buffer } {
  const root = new protobuf.Root()
  // The package's shipped protos; the well-known types from protobufjs (its common ones by name, descriptor.proto as a file).
  root.resolvePath = (origin, target) => {
    if (target === 'google/protobuf/descriptor.proto') return WELL_KNOWN_DESCRIPTOR
    if (target.startsWith('google/protobuf/')) return target
    return /^google\//.test(target) ? `${PROTOS}/${target}` : protobuf.util.path.resolve(origin, target)
  }
  root.loadSync([EXPORTS_PROTO, `${PROTOS}/google/rpc/error_details.proto`])
  return (type, value) => {
    // A type no proto declares goes as its name and arbitrary bytes (an unregistered detail).
    if (type === UNREGISTERED_TYPE) return { type_url: `type.googleapis.com/${type}`, value: Buffer.from([8, 42]) }
    const t = root.lookupType(type)
    return { type_url: `type.googleapis.com/${type}`, value: Buffer.from(t.encode(t.fromObject(value)).finish()) }
  }
}

/** The detail type a failing export of table `unregistered` carries: in no proto. */
export const UNREGISTERED_TYPE = 'no.such.Type'

/** The details of a failing export, by its table: standard error details (google/rpc/error_details.proto), an unregistered type, or a nested Status. */
function failureDetails(table: string, pack: ReturnType<typeof packer>): Array<{ type_url: string; value: Buffer }> {
  if (table === 'quota')
    return [
      pack('google.rpc.ErrorInfo', { reason: 'QUOTA_EXCEEDED', domain: 'exports.example.com', metadata: { table } }),
      pack('google.rpc.RetryInfo', { retryDelay: { seconds: 3, nanos: 500_000_000 } }),
    ]
  if (table === 'unregistered') return [pack(UNREGISTERED_TYPE, {})]
  return [pack('google.rpc.Status', { code: 9, message: 'inner detail' })]
}

/** One operation: how many reads until it is done, and how it ends. */
interface Op {
  name: string
  left: number
  steps: number
  table: string
  fail: boolean
  cancelled: boolean
}

/** The running backend: its address, what it received, and its stop. */
export interface ExportsBackend {
  server: GrpcTestServer
  /** Each call: its method, its request, and the `x-instance` metadata it came with (a fleet's instance names itself). */
  received: Array<{ method: string; request: any; instance?: string }>
}

/** Starts the backend on 127.0.0.1. */
export async function startExportsBackend(): Promise<ExportsBackend> {
  const definition = protoLoader.loadSync(EXPORTS_PROTO, loaderOptions)
  const pack = packer()
  const ops = new Map<string, Op>()
  const received: ExportsBackend['received'] = []
  let next = 0
  const view = (op: Op): Record<string, unknown> => {
    const percent = Math.round(((op.steps - op.left) / Math.max(1, op.steps)) * 100)
    const done = op.cancelled || op.left <= 0
    const out: Record<string, unknown> = {
      name: op.name,
      done,
      metadata: pack('exports.v1.ExportTableMetadata', { percent, stage: done ? 'done' : 'copying' }),
    }
    if (op.cancelled) out.error = { code: 1, message: 'the export was cancelled', details: [] }
    else if (done && op.fail) {
      out.error = {
        code: 9,
        message: `table ${op.table} is locked`,
        details: failureDetails(op.table, pack),
      }
    } else if (done)
      out.response = pack('exports.v1.ExportTableResponse', { uri: `gs://exports/${op.table}.csv`, rows: '9007199254740993' })
    return out
  }
  const exportService = {
    ExportTable: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      received.push({ method: 'ExportTable', request: call.request, instance: String(call.metadata.get('x-instance')[0] ?? '') })
      const op: Op = {
        name: `operations/export-${++next}`,
        left: call.request.steps,
        steps: call.request.steps,
        table: call.request.table,
        fail: call.request.fail,
        cancelled: false,
      }
      ops.set(op.name, op)
      callback(null, view(op))
    },
    StreamRows: (call: grpc.ServerWritableStream<any, any>) => {
      received.push({ method: 'StreamRows', request: call.request })
      let n = 0
      const timer = setInterval(() => {
        if (call.cancelled || n >= call.request.count) {
          clearInterval(timer)
          if (!call.cancelled) call.end()
          return
        }
        call.write({ n: ++n })
      }, call.request.delayMs)
    },
  }
  const operations = {
    GetOperation: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      received.push({ method: 'GetOperation', request: call.request, instance: String(call.metadata.get('x-instance')[0] ?? '') })
      const op = ops.get(call.request.name)
      if (op === undefined) return callback({ code: grpc.status.NOT_FOUND, details: `no operation ${call.request.name}` })
      if (!op.cancelled) op.left--
      callback(null, view(op))
    },
    CancelOperation: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      received.push({ method: 'CancelOperation', request: call.request, instance: String(call.metadata.get('x-instance')[0] ?? '') })
      const op = ops.get(call.request.name)
      if (op !== undefined) op.cancelled = true
      callback(null, {})
    },
  }
  const server = await startGrpcServer([
    { definition: definition['exports.v1.ExportService'] as grpc.ServiceDefinition, impl: exportService },
    { definition: definition['google.longrunning.Operations'] as grpc.ServiceDefinition, impl: operations },
  ])
  return { server, received }
}

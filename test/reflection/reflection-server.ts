/**
 * Real grpc-js servers on 127.0.0.1 that answer gRPC server reflection with
 * `@grpc/reflection`: from descriptors built by the buf CLI (with or without
 * `source_code_info`), or from @grpc/proto-loader's package definition (what
 * a grpc-node server usually hands it); and a hand-written v1alpha server
 * that sends descriptors untouched.
 */
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { ReflectionService } from '@grpc/reflection'
import protobuf from 'protobufjs'
import descriptorExt from 'protobufjs/ext/descriptor.js'
import type { ServedService } from '../grpc/grpc-server.ts'

/** Where a reflection server's descriptors come from. */
export type DescriptorSource = { files: Uint8Array[] } | { protoLoader: string; includeDirs?: string[] }

/** A running server; `stop()` ends it at once. */
export interface ReflectionTestServer {
  readonly address: string
  readonly port: number
  stop(): Promise<void>
}

/** Starts a grpc-js server with `services` and, unless `descriptors` is null, the reflection service (v1 and v1alpha). */
export async function startReflectionServer(
  services: readonly ServedService[],
  descriptors: DescriptorSource | null,
  port = 0,
): Promise<ReflectionTestServer> {
  const server = new grpc.Server()
  for (const { definition, impl } of services) server.addService(definition, impl)
  if (descriptors !== null) {
    const definition =
      'files' in descriptors
        ? // ReflectionService reads each entry's fileDescriptorProtos, as proto-loader's message entries carry them.
          {
            files: {
              format: 'Protocol Buffer 3 FileDescriptorProto',
              type: {},
              fileDescriptorProtos: descriptors.files.map((b) => Buffer.from(b)),
            },
          }
        : protoLoader.loadSync(descriptors.protoLoader, { includeDirs: descriptors.includeDirs ?? [] })
    new ReflectionService(definition as unknown as protoLoader.PackageDefinition).addToServer(server)
  }
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
  )
  return {
    address: `127.0.0.1:${bound}`,
    port: bound,
    stop: async () => {
      server.forceShutdown()
    },
  }
}

// The reflection messages, for the hand-written server below.
const REFLECTION = protobuf.Root.fromJSON({
  nested: {
    Request: {
      fields: {
        fileByFilename: { type: 'string', id: 3 },
        fileContainingSymbol: { type: 'string', id: 4 },
        listServices: { type: 'string', id: 7 },
      },
    },
    Response: {
      fields: {
        fileDescriptorResponse: { type: 'Files', id: 4 },
        listServicesResponse: { type: 'Services', id: 6 },
        errorResponse: { type: 'Failure', id: 7 },
      },
    },
    Files: { fields: { fileDescriptorProto: { rule: 'repeated', type: 'bytes', id: 1 } } },
    Services: { fields: { service: { rule: 'repeated', type: 'Named', id: 1 } } },
    Named: { fields: { name: { type: 'string', id: 1 } } },
    Failure: { fields: { errorCode: { type: 'int32', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
  },
})

/**
 * A server answering only `grpc.reflection.v1alpha` by hand, with `files`
 * exactly as given (@grpc/reflection re-encodes descriptors and so drops
 * custom options): each answer is the one file asked for, so a client must
 * follow the imports itself. `alsoListed`: services listed with no file
 * (asking for one is a NOT_FOUND answer).
 */
export async function startRawReflectionServer(
  files: readonly Uint8Array[],
  options: { alsoListed?: string[] } = {},
): Promise<ReflectionTestServer> {
  const decoded = files.map((bytes) => descriptorExt.FileDescriptorProto.decode(bytes))
  const services = [...(options.alsoListed ?? [])].concat(
    decoded.flatMap((f) =>
      (f.service ?? []).map((s: descriptorExt.IServiceDescriptorProto) => (f.package ? `${f.package}.${s.name}` : s.name!)),
    ),
  )
  const request = REFLECTION.lookupType('Request')
  const response = REFLECTION.lookupType('Response')
  const answer = (req: { fileByFilename?: string; fileContainingSymbol?: string; listServices?: string }): object => {
    if (req.listServices !== undefined) return { listServicesResponse: { service: services.map((name) => ({ name })) } }
    const at =
      req.fileByFilename !== undefined
        ? decoded.findIndex((f) => f.name === req.fileByFilename)
        : decoded.findIndex((f) =>
            (f.service ?? []).some(
              (s: descriptorExt.IServiceDescriptorProto) => `${f.package ? `${f.package}.` : ''}${s.name}` === req.fileContainingSymbol,
            ),
          )
    if (at === -1) return { errorResponse: { errorCode: grpc.status.NOT_FOUND, errorMessage: 'not found' } }
    return { fileDescriptorResponse: { fileDescriptorProto: [files[at]] } }
  }
  const definition: grpc.ServiceDefinition = {
    ServerReflectionInfo: {
      path: '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
      requestStream: true,
      responseStream: true,
      requestSerialize: (value: object) => Buffer.from(request.encode(request.fromObject(value)).finish()),
      requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes)),
      responseSerialize: (value: object) => Buffer.from(response.encode(response.fromObject(value)).finish()),
      responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes)),
    },
  }
  const impl = {
    ServerReflectionInfo: (stream: grpc.ServerDuplexStream<any, any>) => {
      stream.on('data', (req: any) => stream.write(answer(req)))
      stream.on('end', () => stream.end())
    },
  }
  return startReflectionServer([{ definition, impl }], null)
}

/**
 * Real grpc-js servers on 127.0.0.1 that answer gRPC server reflection with
 * `@grpc/reflection`: from descriptors built by the buf CLI (with or without
 * `source_code_info`), or from @grpc/proto-loader's package definition (what
 * a grpc-node server usually hands it).
 */
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { ReflectionService } from '@grpc/reflection'

/** Where a reflection server's descriptors come from. */
export type DescriptorSource =
  | { files: Uint8Array[] }
  | { protoLoader: string; includeDirs?: string[] }

/** A service a server implements, as grpc-js takes it. */
export interface ServedService {
  definition: grpc.ServiceDefinition
  impl: grpc.UntypedServiceImplementation
}

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
    const definition = 'files' in descriptors
      // ReflectionService reads each entry's fileDescriptorProtos, as proto-loader's message entries carry them.
      ? { files: { format: 'Protocol Buffer 3 FileDescriptorProto', type: {}, fileDescriptorProtos: descriptors.files.map(b => Buffer.from(b)) } }
      : protoLoader.loadSync(descriptors.protoLoader, { includeDirs: descriptors.includeDirs ?? [] })
    new ReflectionService(definition as unknown as protoLoader.PackageDefinition).addToServer(server)
  }
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))))
  return {
    address: `127.0.0.1:${bound}`,
    port: bound,
    stop: async () => { server.forceShutdown() },
  }
}

/**
 * `unplugin-proto-mcp/grpc`: gRPC backends for `Server.forward`, the only
 * subpath that loads `@grpc/grpc-js`. `grpc(target)` forwards over the
 * network; `grpcImplementation(handlers)` mounts grpc-js handlers in process.
 */
export { grpc, type GrpcBackend, type GrpcOptions } from '../grpc/grpc-backend.ts'
export {
  grpcImplementation,
  type GrpcImplementationOptions,
  type GrpcStreamHandler,
  type GrpcUnaryHandler,
  type InProcessCall,
} from '../grpc/grpc-implementation.ts'
export type { Backend, BackendMethod, BackendService } from '../runtime/backend.ts'

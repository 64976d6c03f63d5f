/**
 * `unplugin-proto-mcp/grpc`: gRPC backends for `Server.forward`, the only
 * subpath that loads `@grpc/grpc-js`. `grpc(target)` forwards over the
 * network; `grpcImplementation(handlers)` mounts grpc-js handlers in process.
 */
export { grpc, type GrpcBackend, type GrpcOptions } from '../grpc/grpc-backend.ts'
export {
  grpcImplementation,
  InProcessCall,
  PROTO_LOADER_FORM,
  type GrpcImplementationOptions,
  type GrpcStreamHandler,
  type GrpcUnaryHandler,
} from '../grpc/grpc-implementation.ts'
export { STATUS_DETAILS_KEY } from '../grpc/status-details.ts'
export type { Backend, BackendMethod, BackendService } from '../runtime/backend.ts'

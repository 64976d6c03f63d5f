/**
 * `unplugin-proto-mcp/gateway`: a `Server` built at start-up, without a
 * bundler, from a running gRPC server's reflection service
 * (`reflectServer(target)`), and re-discovery that follows its deploys.
 * One level of the job: the spec alone and the raw descriptors stay
 * inside (the command uses them).
 * Separate from `/grpc` because it loads the build-time stages (model,
 * schemas, the Ajv compiler), which a bundled `?mcp` server never needs.
 */
export {
  reflectServer,
  watchReflection,
  type ReflectedSpec,
  type ReflectOptions,
  type ReflectServerOptions,
  type WatchReflectionOptions,
} from '../gateway/reflect-server.ts'
export { isReflectionError, type ReflectionError, type ReflectionErrorCode, type ReflectionOptions } from '../grpc/reflection-client.ts'
export type { BuildWarning, BuildWarningCode } from '../proto/warnings.ts'

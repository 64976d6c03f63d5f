/**
 * The codegen stage: tools + model → the `?mcp` module's source; and the one
 * build pipeline (`.proto` → model → tools → module source or in-process spec).
 */
export { buildModuleSource, buildProtoTools, compileInProcess, costNote, emitModuleSource, serverName, toolOptions } from './build-proto.ts'
export type {
  BuildModuleSourceOptions,
  InProcessSpec,
  ModelSource,
  ModuleSource,
  ModuleSourceOptions,
  ProtoTools,
  ProtoToolsOptions,
  ResourceBuildOptions,
  ToolBuildOptions,
} from './build-proto.ts'
export { emitModule, emitModuleWithWarnings } from './emit-module.ts'
export type { EmitModuleOptions, EmittedModule, Profile } from './emit-module.ts'
export { AJV_OPTIONS, compileValidators, compileValidatorsInProcess, createAjv } from './compile-validators.ts'
export { needsOwnProperties } from './own-properties.ts'
export type { CompiledValidators, JsonSchema } from './compile-validators.ts'
export { AJV_HELPERS, rewriteRequires } from './rewrite-requires.ts'
export type { RewrittenCode } from './rewrite-requires.ts'
export { compactErrorPushes, rewriteErrorConcat } from './rewrite-error-concat.ts'
export { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD, shareSchemas, validatorSchema } from './validator-schema.ts'
export { protectProtoKeys } from './protect-proto-keys.ts'
export { emitModuleDeclarations } from './emit-dts.ts'
export type { DeclarationModel } from './emit-dts.ts'
export { DTS_HEADER, emitDtsFile, modulePatterns, parseDtsFile } from './emit-dts-file.ts'
export type { DeclarationEntry } from './emit-dts-file.ts'

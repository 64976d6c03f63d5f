/**
 * The proto stage: `.proto` text → the neutral {@link ProtoModel}.
 */
export type * from './model.ts'
export { loadProto } from './load-proto.ts'
export type { LoadProtoOptions } from './load-proto.ts'
export { isProtoError, PROTO_ERROR_NAME, protoErrorAt } from './errors.ts'
export type { ProtoError, ProtoErrorCode } from './errors.ts'
export { isOptionOrWellKnown, modelFromDescriptors } from './from-descriptors.ts'
export type { FromDescriptorsOptions } from './from-descriptors.ts'
export { DESCRIPTOR_SET_EXTENSIONS, isDescriptorSetFile, loadDescriptorSet, readDescriptorSet, targetServices } from './descriptor-set.ts'
export type { LoadDescriptorSetOptions, SetFile } from './descriptor-set.ts'
export { BUILD_WARNING_CODES, buildWarning, withFix } from './warnings.ts'
export type { BuildWarning, BuildWarningCode } from './warnings.ts'

/**
 * Builds a `ProtoServerSpec` at test time with the real build stages
 * (loadProto → buildTools, `services` from the model as the code generator
 * emits it) and validators compiled by an Ajv configured as
 * the code generator's; the standalone twin test (test/codegen/) proves the
 * standalone validators behave the same.
 */
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import { compileValidatorsInProcess, createAjv } from '../../src/codegen/compile-validators.ts'
import { validatorSchema } from '../../src/codegen/validator-schema.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import type { Profile, ProtoServerSpec, ValidateFunction } from '../../src/runtime/types.ts'

const fixture = (path: string): string => fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url))

/** The Topeka example proto (fixtures/topeka/, copied from the conformance data). */
export const EXAMPLE_PROTO = fixture('topeka/example.proto')
/** The runtime fixture proto (responses with every scalar kind). */
export const ECHO_PROTO = fixture('protos/runtime/echo.proto')

/** A fresh Ajv like the code generator's: 2020-12, allErrors, formats, its keywords. */
export function makeAjv(): Ajv2020 {
  return createAjv()
}

/** Options of {@link specFromProto}. */
export interface SpecOptions {
  profile?: Profile
  /** Compile validators with this Ajv (default: as the code generator does, shared schemas and all). */
  ajv?: Ajv2020
}

/** Builds the spec a generated module would pass to `createProtoServer`. */
export function specFromProto(file: string, options: SpecOptions = {}): ProtoServerSpec {
  const profile = options.profile ?? 'full'
  const model = loadProto(file)
  const { tools, lenient } = buildTools(model, { profile })
  const schemas = tools.map((tool) => tool.validationSchema ?? tool.inputSchema)
  const { ajv } = options
  const validators =
    ajv === undefined
      ? compileValidatorsInProcess(schemas).validators
      : schemas.map((schema) => ajv.compile(validatorSchema(schema) as object))
  return {
    name: basename(file, '.proto'),
    version: '0.0.0',
    profile,
    descriptor: model.descriptor,
    tools: tools.map(({ validationSchema: _, ...tool }, i) => ({ ...tool, validate: validators[i] as unknown as ValidateFunction })),
    // As src/codegen/emit-module.ts emits it: every service with all its RPC names.
    services: Object.fromEntries(model.services.map((service) => [service.fullName, service.methods.map((m) => m.name)])),
    ...(lenient === undefined ? {} : { lenient }),
  }
}

/**
 * Builds a `ProtoServerSpec` at test time, standing in for the code
 * generator: the proto is parsed with protobufjs, schemas come from the Topeka
 * conformance data (example.proto) or a small mapper (other fixtures), and each
 * input schema is compiled with Ajv 2020 (allErrors + verbose), as generated
 * modules do with standalone code.
 */
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import protobuf from 'protobufjs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { JsonSchema, Profile, ProtoServerSpec, ProtoToolSpec, ValidateFunction } from '../../src/runtime/types.ts'

/** The Topeka example proto and its tools from the Go generator. */
export const EXAMPLE_PROTO = '/work/shared/conformance/topeka/example.proto'
export const TOPEKA_TOOLS = '/work/shared/conformance/topeka/go-v0.3.0-tools.json'
/** The runtime fixture proto (responses with every scalar kind). */
export const ECHO_PROTO = resolve(import.meta.dirname, '../../fixtures/protos/runtime/echo.proto')

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void

/** A fresh Ajv like the code generator's: 2020-12, allErrors, verbose, formats. */
export function makeAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false })
  addFormats(ajv)
  return ajv
}

const INT64 = new Set(['int64', 'sint64', 'sfixed64'])
const UINT64 = new Set(['uint64', 'fixed64'])

/** The default profile's portable 64-bit schema in place of Topeka's type array (mapping.md §5). */
export function portable64(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable64)
  if (schema === null || typeof schema !== 'object') return schema
  const s = schema as Record<string, unknown>
  if (Array.isArray(s.type) && s.type.includes('integer') && s.type.includes('string')) {
    const { type: _type, minimum, ...rest } = s
    const unsigned = minimum === 0
    return {
      ...rest,
      anyOf: [
        unsigned ? { type: 'integer', minimum: 0 } : { type: 'integer' },
        { type: 'string', pattern: unsigned ? '^[0-9]+$' : '^-?[0-9]+$' },
      ],
    }
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, portable64(v)]))
}

const FLOAT = { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] }

function scalarSchema(type: string, profile: Profile, output: boolean): JsonSchema {
  if (type === 'double' || type === 'float') return structuredClone(FLOAT)
  if (type === 'bool') return { type: 'boolean' }
  if (type === 'string') return { type: 'string' }
  if (type === 'bytes') return { type: 'string', contentEncoding: 'base64' }
  if (INT64.has(type) || UINT64.has(type)) {
    const unsigned = UINT64.has(type)
    if (output) return { type: 'string', pattern: unsigned ? '^[0-9]+$' : '^-?[0-9]+$' }
    const topeka: JsonSchema = unsigned ? { type: ['integer', 'string'], minimum: 0 } : { type: ['integer', 'string'] }
    return profile === 'topeka' ? topeka : (portable64(topeka) as JsonSchema)
  }
  return type.startsWith('u') || type === 'fixed32' ? { type: 'integer', minimum: 0 } : { type: 'integer' }
}

/** A small mapper (scalars, enums, messages, repeated, maps; no recursion) for test fixtures. */
function messageSchema(type: protobuf.Type, profile: Profile, output: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  for (const field of type.fieldsArray) {
    const resolved = field.resolvedType
    let value: JsonSchema
    if (resolved instanceof protobuf.Type) value = messageSchema(resolved, profile, output)
    else if (resolved instanceof protobuf.Enum) {
      value = output
        ? { anyOf: [{ type: 'string', enum: Object.keys(resolved.values) }, { type: 'integer' }] }
        : { type: 'string', enum: Object.keys(resolved.values) }
    } else value = scalarSchema(field.type, profile, output)
    if (field.map) value = { type: 'object', additionalProperties: value }
    else if (field.repeated) value = { type: 'array', items: value }
    properties[field.jsonName] = value
  }
  return { type: 'object', properties, additionalProperties: false }
}

/** Options of {@link specFromProto}. */
export interface SpecOptions {
  profile?: Profile
  /** Compile validators with this Ajv (default: a fresh {@link makeAjv}). */
  ajv?: Ajv2020
}

/** Builds the spec a generated module would pass to `createProtoServer`. */
export function specFromProto(file: string, options: SpecOptions = {}): ProtoServerSpec {
  const profile = options.profile ?? 'default'
  const ajv = options.ajv ?? makeAjv()
  const parsed = protobuf.parse(readFileSync(file, 'utf8'), { alternateCommentMode: true })
  const root = parsed.root
  root.resolveAll()
  const topeka = file === EXAMPLE_PROTO
    ? new Map((JSON.parse(readFileSync(TOPEKA_TOOLS, 'utf8')) as { tools: Array<{ name: string; description: string; inputSchema: JsonSchema }> }).tools.map((t) => [t.name, t]))
    : undefined
  const tools: ProtoToolSpec[] = []
  const services = root.nestedArray.length ? collectServices(root) : []
  for (const service of services) {
    for (const method of service.methodsArray) {
      if (method.requestStream || method.responseStream) continue
      method.resolve()
      const requestType = method.resolvedRequestType!
      const responseType = method.resolvedResponseType!
      const fromTopeka = topeka?.get(method.name)
      let inputSchema = fromTopeka ? structuredClone(fromTopeka.inputSchema) : messageSchema(requestType, profile, false)
      if (fromTopeka && profile === 'default') inputSchema = portable64(inputSchema) as JsonSchema
      const tool: ProtoToolSpec = {
        name: method.name,
        description: fromTopeka?.description ?? method.comment ?? method.name,
        inputSchema,
        service: service.fullName.slice(1),
        method: method.name,
        requestType: requestType.fullName.slice(1),
        responseType: responseType.fullName.slice(1),
        validate: ajv.compile(inputSchema) as unknown as ValidateFunction,
      }
      if (profile === 'default') tool.outputSchema = messageSchema(responseType, profile, true)
      tools.push(tool)
    }
  }
  return {
    name: basename(file, '.proto'),
    version: '0.0.0',
    profile,
    descriptor: JSON.parse(JSON.stringify(root.toJSON())) as Record<string, unknown>,
    tools,
  }
}

function collectServices(ns: protobuf.NamespaceBase): protobuf.Service[] {
  const out: protobuf.Service[] = []
  for (const child of ns.nestedArray) {
    if (child instanceof protobuf.Service) out.push(child)
    else if (child instanceof protobuf.Namespace) out.push(...collectServices(child))
  }
  return out
}

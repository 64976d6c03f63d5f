/**
 * Model + tools → the source of a `?mcp` module (docs/internals.md): pure
 * ESM whose only import is `unplugin-proto-mcp/codegen-v1`.
 */
import { DEFAULT_PROFILE, DEFAULT_SERVER_VERSION } from '../contract/defaults.ts'
import { basename } from 'node:path'
import { codegenImports, CODEGEN_MODULE, CREATE_SERVER, serviceMethods, TOOL_SPEC_KEYS, type Profile } from '../contract/index.ts'
import type { BuildWarning, ProtoModel } from '../proto/index.ts'
import { serviceComments, sortKeys } from '../schema/index.ts'
import type { JsonSchema, ToolSchema } from '../schema/index.ts'
import { compileValidators } from './compile-validators.ts'
import { emitCodecs } from './emit-codec.ts'
import { emitDefaultExport } from './emit-hmr.ts'
import { protectProtoKeys } from './protect-proto-keys.ts'

export type { Profile }

/** Options of {@link emitModule}. */
export interface EmitModuleOptions {
  /** serverInfo.name: the `.proto` file's base name without `.proto`. */
  name: string
  /** @default 'portable' */
  profile?: Profile
  /** serverInfo.version. @default '0.0.0' */
  version?: string
  /**
   * Emit the `import.meta.hot` code that keeps one server across edits
   * (only for Vite's dev server; builds must not carry it).
   * @default false
   */
  hmr?: boolean
  /** The lenient pass's table (`buildTools`'s `lenient`): every spelling protobuf JSON reads is accepted. */
  lenient?: unknown
  /** The `full` validation schemas of the recursive messages (`buildTools`'s `deep`), compiled as `deep` of the spec. */
  deep?: Record<string, JsonSchema>
  /** The type tool and its answers (`buildTools`'s `types`), when the token budget cut something. */
  types?: unknown
  /** Tool discovery, when the build was given it (`ProtoServerSpec.discovery`). */
  discovery?: unknown
  /** Prompts from `(proto_mcp.prompt)` options (`ProtoServerSpec.prompts`), when the file has some. */
  prompts?: unknown
  /** Resource templates from `google.api.resource` (`ProtoServerSpec.resources`), when there are some. */
  resources?: unknown
}

/** The result of {@link emitModule}. */
export interface EmittedModule {
  /** The module's source. */
  code: string
  /** Build warnings from compiling the validators. */
  warnings: BuildWarning[]
}

// Only the fields the contract's `ToolSpec` names reach the output.
const TOOL_KEYS = TOOL_SPEC_KEYS

// Compact JSON: a module is read by a parser, and whitespace was a fifth of its bytes.
const json = (value: unknown): string => protectProtoKeys(JSON.stringify(value))

/** Schema subtrees at least this long (as JSON) that several tools share are emitted once. */
const SHARED_MIN_CHARS = 120

/**
 * The schemas several tools share (a response message most RPCs of a
 * service return, say): each emitted once as `const sharedSchemaN`, and
 * referenced from every tool that has it, numbered in declaration order.
 */
class SharedSchemas {
  readonly #counts = new Map<string, number>()
  readonly #names = new Map<string, string>()
  readonly declarations: string[] = []

  /** Counts every subtree of `schema` (an input or output schema). */
  count(schema: unknown): void {
    if (schema === null || typeof schema !== 'object') return
    const text = JSON.stringify(schema)
    if (text.length >= SHARED_MIN_CHARS) this.#counts.set(text, (this.#counts.get(text) ?? 0) + 1)
    for (const child of Object.values(schema)) this.count(child)
  }

  /** `value` as JSON, with each shared subtree (not `value` itself when `whole`) as its constant's name. */
  serialize(value: unknown, whole = false): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value)
    if (!whole) {
      const text = JSON.stringify(value)
      if ((this.#counts.get(text) ?? 0) > 1) {
        let name = this.#names.get(text)
        if (name === undefined) {
          // Its body first: the shared schemas inside it are declared (and numbered) before it.
          const body = this.serialize(value, true)
          name = `sharedSchema${this.declarations.length}`
          this.#names.set(text, name)
          this.declarations.push(`const ${name} = ${body}`)
        }
        return name
      }
    }
    if (Array.isArray(value)) return `[${value.map((item) => this.serialize(item)).join(',')}]`
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${this.serialize(item)}`)
      .join(',')}}`
  }
}

const SCHEMA_KEYS = new Set(['inputSchema', 'outputSchema'])

/** The picked, sorted fields of a tool (the runtime contract's). */
function pickTool(tool: ToolSchema): Record<string, unknown> {
  const picked: Record<string, unknown> = {}
  for (const key of TOOL_KEYS) if (tool[key] !== undefined) picked[key] = tool[key]
  return sortKeys(picked)
}

/** One entry of `tools`, a field a line: sorted JSON (shared schemas by name) with the codecs and the validator spliced in. */
function emitTool(
  picked: Record<string, unknown>,
  shared: SharedSchemas,
  validator: string,
  codecs: { decode?: string; encode?: string } = {},
): string {
  const fields = Object.entries(picked).map(
    ([key, value]) => `"${key}": ${SCHEMA_KEYS.has(key) ? shared.serialize(value) : JSON.stringify(value)}`,
  )
  // `validate` is an identifier, not JSON; it sorts last after `service` etc.
  fields.push(
    ...(codecs.decode ? [`"decode": ${codecs.decode}`] : []),
    ...(codecs.encode ? [`"encode": ${codecs.encode}`] : []),
    `"validate": ${validator}`,
  )
  return `{\n    ${fields.join(',\n    ')}\n  }`
}

/**
 * `ProtoServerSpec.services`: every service of the file with all its RPC
 * names (streaming ones too, which have no tool) in declaration order, so
 * `implement()` accepts them; keys sorted.
 */
function emitServices(services: ProtoModel['services']): string {
  return json(serviceMethods(services))
}

/**
 * Emits the `?mcp` module for `tools` built from `model`: the validators,
 * `descriptor`, `tools` and a default export `createProtoServer(...)`.
 * Deterministic: no timestamps or absolute paths; the same inputs give the
 * same bytes. Pure: reads no files.
 */
export function emitModuleWithWarnings(
  model: Pick<ProtoModel, 'file' | 'descriptor' | 'services'>,
  tools: readonly ToolSchema[],
  options: EmitModuleOptions,
): EmittedModule {
  const profile = options.profile ?? DEFAULT_PROFILE
  // Sorted before compiling, so the validator embeds exactly what clients see.
  const inputSchemas = tools.map((tool) => sortKeys(tool.inputSchema))
  // The validator checks the exact schema where the advertised one says less (portable, strict).
  // The recursive messages' `full` validators come after the tools' (one Ajv: shared schemas emitted once).
  const deep = Object.entries(options.deep ?? {})
  const validators = compileValidators(
    [
      ...tools.map((tool, i) => (tool.validationSchema === undefined ? inputSchemas[i]! : sortKeys(tool.validationSchema))),
      ...deep.map(([, schema]) => sortKeys(schema)),
    ],
    [...tools.map((tool) => tool.name), ...deep.map(([type]) => `(deep ${type})`)],
  )
  const codecs = emitCodecs(model.descriptor, tools)
  const imports = [CREATE_SERVER, ...validators.helpers, ...codecs.imports].sort()
  const file = basename(model.file).replace(/[\r\n]/g, ' ')
  const version = options.version ?? DEFAULT_SERVER_VERSION
  const picked = tools.map((tool, i) => pickTool({ ...tool, inputSchema: inputSchemas[i]! }))
  const comments = serviceComments(model.services)
  const shared = new SharedSchemas()
  for (const tool of picked) for (const key of SCHEMA_KEYS) shared.count(tool[key])
  const entries = picked.map((tool, i) => protectProtoKeys(emitTool(tool, shared, validators.names[i]!, codecs.tools[i])))
  const code = [
    `// Generated by unplugin-proto-mcp from ${file}. Do not edit.`,
    `// Built for ${CODEGEN_MODULE}: a runtime that does not serve it refuses the module at load.`,
    codegenImports(imports),
    '',
    '// Input validators: Ajv standalone code (JSON Schema 2020-12), compiled at build time.',
    validators.code,
    '',
    '// Protobuf JSON codecs, one per message: canonical JSON on the common shapes, CODEC_BAIL (reflection decides) otherwise.',
    codecs.code,
    '',
    // protobufjs JSON keeps field order meaningful (encoding order, output
    // key order), so the descriptor is emitted as the proto stage made it.
    `export const descriptor = ${json(model.descriptor)}`,
    '',
    ...(shared.declarations.length === 0
      ? []
      : ['// Schemas that several tools share, emitted once.', protectProtoKeys(shared.declarations.join('\n')), '']),
    entries.length === 0 ? 'export const tools = []' : `export const tools = [\n  ${entries.join(',\n  ')},\n]`,
    '',
    `const services = ${emitServices(model.services)}`,
    '',
    ...(comments === undefined
      ? []
      : ["// What search_tools finds a service's tools by.", `const serviceComments = ${json(comments)}`, '']),
    ...(options.lenient === undefined
      ? []
      : [
          '// What the lenient pass reads: other spellings protobuf JSON accepts become the advertised form.',
          `const lenient = ${json(sortKeys(options.lenient))}`,
          '',
        ]),
    ...(deep.length === 0
      ? []
      : [
          // Computed keys: a type named `__proto__` stays an own key.
          '// The full validators of the recursive messages: what a client sends as JSON text past the recursion depth is checked by them.',
          `const deep = {${deep.map(([type], i) => `[${JSON.stringify(type)}]: ${validators.names[tools.length + i]!}`).join(', ')}}`,
          '',
        ]),
    ...(options.types === undefined
      ? []
      : ['// The type tool: the schemas of the messages the token budget cut, by name.', `const types = ${json(options.types)}`, '']),
    ...(options.resources === undefined
      ? []
      : [
          "// Resource templates from google.api.resource: read through their Get RPC's tool, completed through their List RPC's.",
          `const resources = ${json(options.resources)}`,
          '',
        ]),
    emitDefaultExport(
      `${CREATE_SERVER}({ name: ${JSON.stringify(options.name)}, version: ${JSON.stringify(version)}, ` +
        `profile: ${JSON.stringify(profile)}, descriptor, tools, services${comments === undefined ? '' : ', serviceComments'}` +
        `${options.lenient === undefined ? '' : ', lenient'}${deep.length === 0 ? '' : ', deep'}` +
        `${options.types === undefined ? '' : ', types'}${options.discovery === undefined ? '' : `, discovery: ${json(options.discovery)}`}` +
        `${options.prompts === undefined ? '' : `, prompts: ${json(options.prompts)}`}` +
        `${options.resources === undefined ? '' : ', resources'} })`,
      options.hmr ?? false,
    ),
    '',
  ].join('\n')
  return { code, warnings: validators.warnings }
}

/** {@link emitModuleWithWarnings}, returning only the source. */
export function emitModule(
  model: Pick<ProtoModel, 'file' | 'descriptor' | 'services'>,
  tools: readonly ToolSchema[],
  options: EmitModuleOptions,
): string {
  return emitModuleWithWarnings(model, tools, options).code
}

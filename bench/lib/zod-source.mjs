/**
 * Writes the zod source a developer would write by hand for the tools a
 * `?mcp` module lists, input and output schemas both, so the SDK baseline
 * of `cold-start-16` registers literal zod schemas, not schemas converted
 * at start-up, and lists the same tools (our tools/list carries an
 * `outputSchema` for each; so does the baseline's). It covers what the
 * playground's portable schemas use: objects (strict, open, or maps),
 * `anyOf`, enums, strings with patterns, `date-time` and base64, numbers
 * and integers with minimums, booleans, null, arrays, and `$defs`/`$ref`
 * (recursion through `z.lazy`). A keyword it does not know throws, so a
 * new one cannot make the baseline lighter unnoticed; `schemaFields`
 * checks what it wrote lists the same fields.
 */

const str = (value) => JSON.stringify(value)

/** Keywords the translation reads or may leave out (annotations). */
const KNOWN = new Set([
  '$schema',
  '$defs',
  '$ref',
  'description',
  'title',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'anyOf',
  'enum',
  'pattern',
  'format',
  'contentEncoding',
  'minimum',
  'items',
])

/** The value that occurs most often in `values` (the first of a tie). */
function mostCommon(values) {
  const counts = new Map()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0]
}

/** Whether `schema` is what a developer names once and reuses: a message (object), an enum or a union. */
const isNamed = (schema) =>
  schema.type === 'object' ||
  schema.properties !== undefined ||
  schema.additionalProperties !== undefined ||
  schema.enum !== undefined ||
  schema.anyOf !== undefined

/** The schema without what varies between its uses (a field's description, a root's `$defs` and `$schema`): the key of a shared const. */
function shapeKey(schema) {
  const { description, $defs, $schema, ...shape } = schema
  return str(shape)
}

/**
 * Translates JSON Schemas to zod source, each message, enum or union that
 * occurs more than once (the same schema but for its description, anywhere
 * in the tools) declared once as a `const` and referred to by name, as
 * hand-written code declares a message's schema once; a use with another
 * description than the const's adds `.describe()`. `$defs` entries are
 * consts too, shared by their `$ref`.
 */
class ZodWriter {
  /** `schemas`: every schema the module will translate, to count repeats. */
  constructor(schemas) {
    this.lines = []
    this.names = new Map()
    this.defs = new Map()
    /** Per shape key: how many uses, and the descriptions they carry. */
    this.uses = new Map()
    const count = (node) => {
      if (Array.isArray(node)) return node.forEach(count)
      if (!node || typeof node !== 'object') return
      if (isNamed(node)) {
        const use = this.uses.get(shapeKey(node)) ?? { count: 0, descriptions: [] }
        use.count++
        use.descriptions.push(node.description)
        this.uses.set(shapeKey(node), use)
      }
      for (const [key, value] of Object.entries(node)) if (key !== 'enum') count(value)
    }
    schemas.forEach(count)
  }

  /** Declares the `$defs` of a root schema (once per `$ref`; the same `$ref` must mean the same schema everywhere). */
  declareDefs(root) {
    for (const [key, value] of Object.entries(root.$defs ?? {})) {
      const ref = `#/$defs/${key}`
      const known = this.defs.get(ref)
      if (known && known.json !== str(value)) throw new Error(`zod-source: ${ref} means two schemas`)
      if (known) continue
      const name = `def${this.defs.size}`
      this.defs.set(ref, { name, json: str(value) })
      this.lines.push(`const ${name} = ${this.expr(value)}`)
    }
  }

  /** A name or expression for `schema`; `required` says whether the property is required in its object. */
  expr(schema, required = true) {
    const key = shapeKey(schema)
    const use = this.uses.get(key)
    let out
    if (isNamed(schema) && use && use.count > 1) {
      if (!this.names.has(key)) {
        // The const carries the description most uses have, unless some use has none (zod cannot drop one).
        const described = use.descriptions.filter((d) => d !== undefined)
        const common = described.length < use.descriptions.length ? undefined : mostCommon(described)
        const { description, ...shape } = schema
        const body = this.inline(common === undefined ? shape : { ...shape, description: common })
        this.names.set(key, { name: `s${this.names.size}`, description: common })
        this.lines.push(`const ${this.names.get(key).name} = ${body}`)
      }
      const shared = this.names.get(key)
      out = schema.description === shared.description ? shared.name : `${shared.name}.describe(${str(schema.description)})`
    } else out = this.inline(schema)
    return required ? out : `${out}.optional()`
  }

  /** The zod expression for `schema` itself (its parts through {@link expr}). */
  inline(schema) {
    const unknown = Object.keys(schema).filter((key) => !KNOWN.has(key))
    if (unknown.length) throw new Error(`zod-source: no translation for ${unknown.join(', ')} in ${str(schema).slice(0, 200)}`)
    const sub = (value, req = true) => this.expr(value, req)
    let out
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
    if (schema.$ref !== undefined) {
      const def = this.defs.get(schema.$ref)
      if (!def) throw new Error(`zod-source: unresolved $ref ${schema.$ref}`)
      out = `z.lazy(() => ${def.name})`
    } else if (schema.anyOf) out = `z.union([${schema.anyOf.map((branch) => sub(branch)).join(', ')}])`
    else if (schema.enum) {
      out = schema.enum.every((value) => typeof value === 'string')
        ? `z.enum(${str(schema.enum)})`
        : `z.union([${schema.enum.map((value) => `z.literal(${str(value)})`).join(', ')}])`
    } else if (types.length > 1) out = `z.union([${types.map((type) => sub({ ...schema, type, description: undefined })).join(', ')}])`
    else if (types[0] === 'object' || schema.properties || schema.additionalProperties !== undefined) {
      const req = new Set(schema.required ?? [])
      const props = Object.entries(schema.properties ?? {}).map(([key, value]) => `${str(key)}: ${sub(value, req.has(key))}`)
      const shape = `{ ${props.join(', ')} }`
      const extra = schema.additionalProperties
      if (extra === false) out = `z.strictObject(${shape})`
      else if (extra && typeof extra === 'object')
        out = props.length ? `z.object(${shape}).catchall(${sub(extra)})` : `z.record(z.string(), ${sub(extra)})`
      // An open object (extra keys allowed): zod lists a plain z.object closed in output schemas.
      else out = `z.looseObject(${shape})`
    } else if (types[0] === 'string') {
      if (schema.format === 'date-time') out = 'z.iso.datetime({ offset: true })'
      else if (schema.contentEncoding === 'base64') out = 'z.base64()'
      else if (schema.format !== undefined) throw new Error(`zod-source: no translation for format ${schema.format}`)
      else out = 'z.string()'
      if (schema.pattern) out += `.regex(new RegExp(${str(schema.pattern)}))`
    } else if (types[0] === 'integer') out = `z.number().int()${schema.minimum !== undefined ? `.min(${schema.minimum})` : ''}`
    else if (types[0] === 'number') out = `z.number()${schema.minimum !== undefined ? `.min(${schema.minimum})` : ''}`
    else if (types[0] === 'boolean') out = 'z.boolean()'
    else if (types[0] === 'array') out = `z.array(${sub(schema.items ?? {})})`
    else if (types[0] === 'null') out = 'z.null()'
    else out = 'z.unknown()'
    if (schema.description) out += `.describe(${str(schema.description)})`
    return out
  }
}

/**
 * A module that serves `tools` (name, description, inputSchema,
 * outputSchema) with the SDK's `McpServer` over stdio, each schema in zod,
 * declared at module level as a developer would: each repeated message,
 * enum or union once. `outputs: false` leaves the output schemas out (the
 * baseline before they were in).
 */
export function zodServerModule(tools, { outputs = true } = {}) {
  const roots = (tool) => [
    ['inputSchema', tool.inputSchema],
    ['outputSchema', outputs ? tool.outputSchema : undefined],
  ]
  const writer = new ZodWriter(
    tools.flatMap((tool) =>
      roots(tool)
        .map(([, schema]) => schema)
        .filter(Boolean),
    ),
  )
  const registrations = tools.map((tool, i) => {
    const config = [`description: ${str(tool.description ?? '')}`]
    for (const [key, schema] of roots(tool)) {
      if (!schema) continue
      writer.declareDefs(schema)
      const name = `${key === 'inputSchema' ? 'input' : 'output'}${i}`
      writer.lines.push(`const ${name} = ${writer.expr(schema)}`)
      config.push(`${key}: ${name}`)
    }
    return `  server.registerTool(${str(tool.name)}, { ${config.join(', ')} }, handler)`
  })
  const consts = writer.lines
  return [
    "// Generated by bench/lib/zod-source.mjs: the same tools, written in zod for the SDK's McpServer.",
    "import { McpServer } from '@modelcontextprotocol/server'",
    "import { serveStdio } from '@modelcontextprotocol/server/stdio'",
    "import { z } from 'zod'",
    '',
    ...consts,
    '',
    '// Calls are not part of the cold-start bench; the reply still fits every output schema (no field is required).',
    "const handler = async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: {} })",
    '',
    'serveStdio(() => {',
    "  const server = new McpServer({ name: 'zod-baseline', version: '0.0.0' })",
    ...registrations,
    '  return server',
    '})',
    '',
  ].join('\n')
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER

/**
 * What one schema node tells a client, with what zod adds to every listing
 * taken out (integers' safe bounds, the pattern behind a format, `format`
 * beside a base64 `contentEncoding`, string `propertyNames` of a map):
 * type, enum, format, encoding, pattern, bounds, description, required
 * keys, and whether the object is closed, open or a map.
 */
function signature(node) {
  const sig = {}
  if (node.type !== undefined) sig.type = [node.type].flat().sort()
  if (node.enum !== undefined) sig.enum = node.enum
  if (node.format !== undefined && !(node.format === 'base64' && node.contentEncoding === 'base64')) sig.format = node.format
  if (node.contentEncoding !== undefined) sig.contentEncoding = node.contentEncoding
  if (node.pattern !== undefined && node.format === undefined && node.contentEncoding === undefined) sig.pattern = node.pattern
  if (node.minimum !== undefined && node.minimum !== -MAX_SAFE) sig.minimum = node.minimum
  if (node.maximum !== undefined && node.maximum !== MAX_SAFE) sig.maximum = node.maximum
  if (node.description !== undefined) sig.description = node.description
  if (node.required?.length) sig.required = [...node.required].sort()
  const extra = node.additionalProperties
  if (extra === false) sig.objects = 'closed'
  else if (extra && typeof extra === 'object' && Object.keys(extra).length) sig.objects = 'map'
  const unknown = Object.keys(node).filter((key) => !KNOWN.has(key) && !['maximum', 'propertyNames', '$id'].includes(key))
  if (unknown.length) sig.other = unknown.sort()
  return str(sig)
}

/**
 * What `schema` lists, field by field: one `path signature` line per node
 * (`a.b`, `a[]`, `a{}` for a map's values, `a|0` for the first `anyOf`
 * branch), following `$ref` into the root's `$defs` once per path (`@`
 * marks where it recurs). Two listings of the same tool give the same
 * lines, however each spells its references and whatever zod adds.
 */
export function schemaFields(schema) {
  const lines = new Set()
  const resolve = (ref) => {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref)
    if (ref === '#') return schema
    const target = match && schema[match[1]]?.[match[2]]
    if (!target) throw new Error(`schemaFields: unresolved $ref ${ref}`)
    return target
  }
  const walk = (node, path, seen) => {
    if (!node || typeof node !== 'object') return
    if (node.$ref !== undefined) {
      if (seen.has(node.$ref)) return lines.add(`${path}@`)
      return walk(resolve(node.$ref), path, new Set([...seen, node.$ref]))
    }
    lines.add(`${path} ${signature(node)}`)
    for (const [key, value] of Object.entries(node.properties ?? {})) walk(value, `${path}.${key}`, seen)
    // `items: {}` and `additionalProperties: {}` (any value) list the same as leaving them out.
    if (node.items && Object.keys(node.items).length) walk(node.items, `${path}[]`, seen)
    const extra = node.additionalProperties
    if (extra && typeof extra === 'object' && Object.keys(extra).length) walk(extra, `${path}{}`, seen)
    for (const [i, branch] of (node.anyOf ?? []).entries()) walk(branch, `${path}|${i}`, seen)
  }
  walk(schema, '', new Set())
  return [...lines].sort()
}

/**
 * A module that serves `tools` (as listed, JSON Schema and all) with the
 * SDK's low-level `Server` over stdio: `tools/list` answers the literal
 * list, `tools/call` echoes its arguments, nothing is validated. The least
 * an SDK-based server does before its first `tools/list`, so the floor
 * under both sides of `cold-start-16`.
 */
export function sdkFloorModule(tools) {
  return [
    "// Generated by bench/lib/zod-source.mjs: the same tools as JSON, on the SDK's low-level Server, unvalidated.",
    "import { Server } from '@modelcontextprotocol/server'",
    "import { serveStdio } from '@modelcontextprotocol/server/stdio'",
    '',
    `const tools = ${str(tools)}`,
    '',
    'serveStdio(() => {',
    "  const server = new Server({ name: 'sdk-floor', version: '0.0.0' }, { capabilities: { tools: {} } })",
    "  server.setRequestHandler('tools/list', async () => ({ tools }))",
    "  server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }] }))",
    '  return server',
    '})',
    '',
  ].join('\n')
}

/**
 * Renders a validator's error objects as the exact texts of docs/calls.md, "Validation texts":
 * `invalid arguments: /vibe: 5 is not of type "string"; ...`.
 */
import { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD } from '../contract/index.ts'
import type { JsonSchema, ToolCuts } from '../contract/index.ts'
import { nearestName } from '../contract/nearest.ts'
import type { ValidationError } from './types.ts'
import { isRecord } from '../contract/is-record.ts'

/** The prefix of every validation failure text. */
export const INVALID_ARGUMENTS = 'invalid arguments: '

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch (error) {
    // A rejected value nested past the stack (or cyclic, in process) must still give a tool error, not a throw.
    return error instanceof RangeError ? '(a value nested too deeply to show)' : '(a value that cannot be shown)'
  }
}
const plural = (n: unknown, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** An enum error lists every value while they take at most this many characters (a few hundred tokens). */
export const MAX_LISTED_CHARS = 1000

function list(values: readonly unknown[]): string {
  const names = values.map(json)
  if (names.length <= 1) return names.join('')
  let length = 0
  let shown = 0
  while (shown < names.length && length + names[shown]!.length <= MAX_LISTED_CHARS) length += names[shown++]!.length + 2
  if (shown === names.length) return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`
  return `${names.slice(0, shown).join(', ')} or ${names.length - shown} other candidates (the schema lists them)`
}

function typeNames(error: ValidationError): string[] {
  if (Array.isArray(error.schema)) return error.schema.map(String)
  return String(error.params.type ?? error.schema).split(',')
}

/** The text of a number past the double range, in the decoder's words (protojson.ts). */
const outOfRange = (value: number): string =>
  `number out of range: a JSON number beyond ±1.8e308 (such as ${value > 0 ? '' : '-'}1e400) is not a number`

/** The message of one error object (without its pointer); `valueOf` gives the value it is about when the error does not carry it. */
export function validationMessage(error: ValidationError, valueOf: (error: ValidationError) => unknown = () => undefined): string {
  const { params } = error
  const raw = 'data' in error ? error.data : valueOf(error)
  // A JSON number past the double range (`1e400`) parses as Infinity, which JSON text would show as `null`: the number is what is wrong.
  if (typeof raw === 'number' && !Number.isFinite(raw) && !Number.isNaN(raw)) return outOfRange(raw)
  const v = json(raw)
  switch (error.keyword) {
    case 'type': {
      const types = typeNames(error)
      return types.length === 1 ? `${v} is not of type "${types[0]}"` : `${v} is not of types ${types.map((t) => `"${t}"`).join(', ')}`
    }
    case 'additionalProperties':
      return `Additional properties are not allowed ('${String(params.additionalProperty)}' was unexpected)`
    case 'enum':
      return `${v} is not one of ${list((params.allowedValues ?? error.schema) as unknown[])}`
    case 'const':
      return `${json(params.allowedValue)} was expected`
    case 'minimum':
      return `${v} is less than the minimum of ${json(params.limit)}`
    case 'maximum':
      return `${v} is greater than the maximum of ${json(params.limit)}`
    case 'exclusiveMinimum':
      return `${v} is less than or equal to the minimum of ${json(params.limit)}`
    case 'exclusiveMaximum':
      return `${v} is greater than or equal to the maximum of ${json(params.limit)}`
    case 'multipleOf':
      return `${v} is not a multiple of ${json(params.multipleOf)}`
    case 'anyOf':
      return `${v} is not valid under any of the schemas listed in the 'anyOf' keyword`
    case 'oneOf':
      return params.passingSchemas
        ? `${v} is valid under more than one of the schemas listed in the 'oneOf' keyword`
        : `${v} is not valid under any of the schemas listed in the 'oneOf' keyword`
    case 'required':
      return `${json(params.missingProperty)} is a required property`
    case 'minLength':
      return `${v} is shorter than ${plural(params.limit, 'character', 'characters')}`
    case 'maxLength':
      return `${v} is longer than ${plural(params.limit, 'character', 'characters')}`
    case 'pattern':
      return `${v} does not match ${json(params.pattern)}`
    case 'format':
      return `${v} is not a ${json(params.format)}`
    case 'minItems':
      return `${v} has less than ${plural(params.limit, 'item', 'items')}`
    case 'maxItems':
      return `${v} has more than ${plural(params.limit, 'item', 'items')}`
    case 'uniqueItems':
      return `${v} has non-unique elements`
    case 'minProperties':
      return `${v} has less than ${plural(params.limit, 'property', 'properties')}`
    case 'maxProperties':
      return `${v} has more than ${plural(params.limit, 'property', 'properties')}`
    case 'not':
      return `${v} should not be valid under ${json(error.schema)}`
    case NOT_IN_KEYWORD:
      return `${v} should not be valid under ${json({ enum: params.values })}`
    case PROTO_FLOAT_KEYWORD:
      return `${v} is not of type "number"`
    case 'propertyNames':
      return `${v} has an invalid property name ${json(params.propertyName)}`
    case 'false schema':
      return `False schema does not allow ${v}`
    default:
      return `${v} ${error.message ?? `fails "${error.keyword}"`}`
  }
}

/** A failed `anyOf`/`oneOf`: its branches' errors are at `prefix` of its schema, at `at` or under it in the data. */
interface Combiner {
  prefix: string
  at: string
}

/**
 * Whether `error` comes from inside a failing `anyOf`/`oneOf` branch (those
 * report one message of their own). The data path counts too: a schema
 * shared by reference reports schema paths from its own root.
 */
function isBranchError(error: ValidationError, combiners: readonly Combiner[]): boolean {
  const { schemaPath, instancePath } = error
  for (const { prefix, at } of combiners) {
    if (schemaPath.startsWith(prefix) && (instancePath === at || instancePath.startsWith(`${at}/`))) return true
  }
  return false
}

/** Most validation errors a tool error renders; the rest are counted (`; ... and N more errors`). */
export const MAX_RENDERED_ERRORS = 100

/**
 * The value at `pointer` (an error's `instancePath`) in `data`: own keys
 * first, then inherited ones, which a validator without `ownProperties`
 * visits too (arguments built in process, `Object.create(...)`).
 */
export function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data
  let at = data
  for (const raw of pointer.slice(1).split('/')) {
    if (at === null || typeof at !== 'object') return undefined
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (!Object.prototype.hasOwnProperty.call(at, key) && (key === '__proto__' || !(key in at))) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

/**
 * The texts of a failed validation, in the validator's order, joined by `; `,
 * each as `<JSON pointer>: <message>`; several unexpected properties of one
 * object are one message. Renders at most {@link MAX_RENDERED_ERRORS}
 * messages, then `; ... and N more errors`. Returns the full tool error text.
 * `data` is the validated value: errors without `data` of their own (Ajv's
 * `verbose` is off) show the value at their `instancePath` in it.
 */
export function renderValidationErrors(errors: readonly ValidationError[], data?: unknown, tool?: ToolSchemas): string {
  // A combiner's own text stands for its branches' errors.
  const combiners: Combiner[] = []
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') combiners.push({ prefix: `${e.schemaPath}/`, at: e.instancePath })
  }
  // Errors inside `propertyNames` are about a key, which their `propertyNames` error (right after them) names.
  const keys = new Map<ValidationError, unknown>()
  for (let j = 0; j < errors.length; j++) {
    const names = errors[j]!
    if (names.keyword !== 'propertyNames') continue
    for (
      let i = j - 1;
      i >= 0 && errors[i]!.schemaPath.startsWith(`${names.schemaPath}/`) && errors[i]!.instancePath === names.instancePath;
      i--
    ) {
      keys.set(errors[i]!, names.params.propertyName)
    }
  }
  const valueOf = (error: ValidationError): unknown => (keys.has(error) ? keys.get(error) : valueAt(data, error.instancePath))
  // One entry per message; rendered only for the first MAX_RENDERED_ERRORS.
  const entries: Array<{ error: ValidationError; names?: string[] }> = []
  const extras = new Map<string, string[]>()
  for (const error of errors) {
    if (combiners.length > 0 && isBranchError(error, combiners)) continue
    if (error.keyword === 'additionalProperties') {
      const key = `${error.instancePath}\0${error.schemaPath}`
      const seen = extras.get(key)
      const name = String(error.params.additionalProperty)
      if (seen) {
        seen.push(name)
        continue
      }
      const names = [name]
      extras.set(key, names)
      entries.push({ error, names })
      continue
    }
    entries.push({ error })
  }
  const parts: string[] = []
  const shown = Math.min(entries.length, MAX_RENDERED_ERRORS)
  for (let i = 0; i < shown; i++) {
    const { error, names } = entries[i]!
    if (names !== undefined && tool !== undefined) {
      // A generated tool knows its fields: each unknown one at its own path, with the nearest field's name.
      const known = fieldsAt(tool.inputSchema, error.instancePath)
      for (const name of names) {
        const path = `${error.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`
        const near = known === undefined ? undefined : nearestName(name, known)
        parts.push(`${path}: unknown field${near === undefined ? '' : ` (did you mean "${near}"?)`}${cutHint(tool.cuts, path)}`)
      }
      continue
    }
    if (names !== undefined && names.length > 1) {
      const quoted = names.map((n) => `'${n}'`).join(', ')
      parts.push(`${error.instancePath}: Additional properties are not allowed (${quoted} were unexpected)`)
    } else {
      const message = jsonTextError(error, valueOf(error), tool) ?? validationMessage(error, valueOf)
      parts.push(`${error.instancePath}: ${message}${cutHint(tool?.cuts, error.instancePath)}`)
    }
  }
  const more = entries.length - shown
  if (more > 0) parts.push(`... and ${more} more ${more === 1 ? 'error' : 'errors'}`)
  return INVALID_ARGUMENTS + parts.join('; ')
}

/** What the texts read of a generated tool: its advertised schema (field names) and its placeholders. */
export interface ToolSchemas {
  inputSchema?: JsonSchema
  cuts?: ToolCuts
}

/** The advertised schema of the value at `pointer`, when the schema spells it out. */
function schemaAt(schema: JsonSchema | undefined, pointer: string): unknown {
  let at: unknown = schema
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    if (!isRecord(at)) return undefined
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    at = isRecord(at.properties) && Object.hasOwn(at.properties, key) ? at.properties[key] : /^\d+$/.test(key) ? at.items : undefined
  }
  return at
}

/** The property names the advertised schema gives the object at `pointer`, when it spells that object out. */
function fieldsAt(schema: JsonSchema | undefined, pointer: string): string[] | undefined {
  const at = schemaAt(schema, pointer)
  return isRecord(at) && isRecord(at.properties) ? Object.keys(at.properties) : undefined
}

/**
 * `not valid JSON text (<where the parser stopped>)` for a string given
 * where the tool advertises JSON text of a message (a placeholder: the
 * budget's cut, or recursion past its depth) that does not parse; else
 * `undefined`.
 */
function jsonTextError(error: ValidationError, value: unknown, tool: ToolSchemas | undefined): string | undefined {
  if (error.keyword !== 'type' || typeof value !== 'string' || tool === undefined) return undefined
  const advertised = schemaAt(tool.inputSchema, error.instancePath)
  if (!isRecord(advertised) || advertised.type !== 'string') return undefined
  try {
    JSON.parse(value)
    return undefined
  } catch (failure) {
    return `not valid JSON text (${(failure as Error).message})`
  }
}

/** ` (<placeholder> is <type>; schema: <type tool>)` for an error at or below a placeholder, else ''. */
function cutHint(cuts: ToolCuts | undefined, pointer: string): string {
  if (cuts === undefined) return ''
  const segments = pointer.split('/')
  for (const cut of cuts.at) {
    const want = cut.path.split('/')
    if (want.length > segments.length) continue
    if (want.every((s, i) => s === segments[i] || (s === '*' && /^\d+$/.test(segments[i]!)))) {
      return ` (${segments.slice(0, want.length).join('/')} is ${cut.type}; schema: ${cuts.typeTool})`
    }
  }
  return ''
}

/**
 * Prompts from the proto (docs/guide/resources.md, Prompts): the
 * `(proto_mcp.prompt)` options of the imported file's RPCs and the
 * `(proto_mcp.service).prompt` ones of its services
 * (`protos/proto_mcp/options.proto`), checked now so that a bad one is a
 * build error at its `.proto` line, never a prompt failing when it is got.
 */
import { readFileSync } from 'node:fs'
import { renderTemplate, templatePlaceholders, type PromptSpec } from '../contract/prompt-template.ts'
import { protoError } from '../proto/errors.ts'
import type { FieldModel, MessageModel, MethodModel, ProtoModel, ServiceModel, SourceLoc } from '../proto/model.ts'
import { descriptionOf } from './descriptions.ts'
import { isRequiredField } from './field-rules.ts'
import { methodFilter, type MethodFilter } from './method-glob.ts'
import { PROTO_MCP_SERVICE } from './tool-options.ts'

/** `(proto_mcp.prompt)`: the repeated `MethodOptions` extension of `protos/proto_mcp/options.proto`. */
export const PROTO_MCP_PROMPT = 'proto_mcp.prompt'

interface PromptOption {
  name?: unknown
  title?: unknown
  description?: unknown
  arguments?: unknown
  text?: unknown
}

/** Where a prompt option was written, and what it is called in errors. */
interface Site {
  service: ServiceModel
  /** The RPC, for a `(proto_mcp.prompt)`; absent for a service's prompt. */
  method?: MethodModel
  loc?: SourceLoc
  /** `(proto_mcp.prompt) of RPC pkg.Service.Method`, `(proto_mcp.service).prompt of service pkg.Service`. */
  what: string
}

const listOf = (value: unknown): PromptOption[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is PromptOption => typeof v === 'object' && v !== null)

const fail = (loc: SourceLoc | undefined, text: string): never => {
  throw loc ? protoError('PROTO_TYPE', loc.file, loc.line, loc.column, text) : new Error(text)
}

/** The line of the first `{{ name }}` at or after the option's declaration, read from its file (the declaration's when unknown). */
function placeholderLoc(loc: SourceLoc | undefined, name: string): SourceLoc | undefined {
  if (loc === undefined) return undefined
  let lines: string[]
  try {
    lines = readFileSync(loc.file, 'utf8').split('\n')
  } catch {
    return loc
  }
  const re = new RegExp(`\\{\\{\\s*${name}\\s*\\}\\}`)
  for (let i = loc.line - 1; i < lines.length; i++) {
    const column = lines[i]!.search(re)
    if (column >= 0) return { file: loc.file, line: i + 1, column: column + 1 }
  }
  return loc
}

/** The message `ref` names, as protobuf resolves a type name: a full name, or relative to the service's scopes. */
function resolveMessage(model: ProtoModel, ref: string, service: ServiceModel): MessageModel | undefined {
  if (ref.startsWith('.')) return model.messages.get(ref.slice(1))
  const scopes = service.fullName.split('.').slice(0, -1)
  for (let i = scopes.length; i >= 0; i--) {
    const found = model.messages.get([...scopes.slice(0, i), ref].join('.'))
    if (found) return found
  }
  return undefined
}

/** An enum's values a client may give, its `_UNSPECIFIED` zero left out. */
const enumValues = (model: ProtoModel, typeName: string): Array<{ name: string }> =>
  model.enums.get(typeName)?.values.filter((v) => !(v.number === 0 && v.name.endsWith('_UNSPECIFIED'))) ?? []

/** Whether no string the client types can be `field`'s value: a map, a repeated field or a message. */
const notString = (field: FieldModel): boolean => field.repeated || field.mapKey !== undefined || field.type.kind === 'message'

/** A field as a prompt argument (a string the client types): scalars and enums only. */
function argumentOf(
  model: ProtoModel,
  field: FieldModel,
  site: Site,
  prompt: string,
  message: string,
): NonNullable<PromptSpec['arguments']>[number] {
  if (notString(field)) {
    const shape =
      field.mapKey !== undefined
        ? 'a map'
        : field.repeated
          ? 'repeated'
          : `a message (${field.type.kind === 'message' ? field.type.typeName : ''})`
    fail(
      field.loc ?? site.loc,
      `prompt "${prompt}" (${site.what}): argument field ${message}.${field.name} is ${shape}; prompt arguments are strings, so their fields must be singular scalars or enums (arguments names the message to take them from)`,
    )
  }
  const values = field.type.kind === 'enum' ? enumValues(model, field.type.typeName) : undefined
  const comment = descriptionOf(field.comment)
  // An enum argument says its values (the client types one of them).
  const oneOf = values?.length ? `One of: ${values.map((v) => v.name).join(', ')}.` : undefined
  const description = comment && oneOf ? `${comment.replace(/[^.]$/, '$&.')} ${oneOf}` : (comment ?? oneOf)
  return {
    name: field.jsonName,
    ...(description === undefined ? {} : { description }),
    ...(isRequiredField(field) ? { required: true } : {}),
  }
}

const PROMPT_KEYS = ['name', 'title', 'description', 'arguments', 'text']

function promptOf(model: ProtoModel, option: PromptOption, site: Site): PromptSpec {
  const name = typeof option.name === 'string' ? option.name : ''
  // protoc and buf refuse an unknown field; protobufjs keeps it, so it is said here.
  const unknown = Object.keys(option).find((key) => !PROMPT_KEYS.includes(key))
  if (unknown !== undefined)
    fail(
      site.loc,
      `${name ? `prompt "${name}" ` : ''}(${site.what}): a prompt has no field "${unknown}" (its fields: ${PROMPT_KEYS.join(', ')})`,
    )
  if (name === '') fail(site.loc, `${site.what}: a prompt needs a non-empty name`)
  const text = typeof option.text === 'string' ? option.text : ''
  if (text === '') fail(site.loc, `prompt "${name}" (${site.what}): a prompt needs a non-empty text`)
  let message: MessageModel | undefined
  const named = typeof option.arguments === 'string' && option.arguments !== '' ? option.arguments : undefined
  if (named !== undefined) {
    message = resolveMessage(model, named, site.service)
    if (message === undefined)
      fail(site.loc, `prompt "${name}" (${site.what}): arguments "${option.arguments}" names no message this file can see`)
  } else if (site.method) {
    message = model.messages.get(site.method.requestType)
  }
  const inputs = (message?.fields ?? []).filter(
    (f) => !(f.customOptions['google.api.field_behavior'] as string[] | undefined)?.includes('OUTPUT_ONLY'),
  )
  // An RPC's own request (no `arguments`) gives the fields a string can be; a message `arguments` names must be all such.
  const fields = named !== undefined ? inputs : inputs.filter((f) => !notString(f))
  const args = fields.map((f) => argumentOf(model, f, site, name, message!.fullName))
  const known = new Map(fields.flatMap((f, i) => [[f.name, args[i]!.name] as const, [f.jsonName, args[i]!.name] as const]))
  for (const placeholder of templatePlaceholders(text)) {
    if (known.has(placeholder.name)) continue
    // A request field no string can be, named by the text: the error of a named message's field, at the field.
    const left = inputs.find((f) => f.name === placeholder.name || f.jsonName === placeholder.name)
    if (left !== undefined) argumentOf(model, left, site, name, message!.fullName)
    const names = args.map((a) => a.name)
    fail(
      placeholderLoc(site.loc, placeholder.name),
      `prompt "${name}" (${site.what}): the text names {{${placeholder.name}}}, which is no argument ` +
        `(${names.length === 0 ? 'it has none' : `its arguments: ${names.join(', ')}`})`,
    )
  }
  // Placeholders are kept by the argument's name, whichever spelling the proto used.
  const canonical = renderTemplate(text, Object.fromEntries([...known].map(([spelling, argument]) => [spelling, `{{${argument}}}`])))
  const prompt: PromptSpec = { name, text: canonical }
  if (typeof option.title === 'string' && option.title !== '') prompt.title = option.title
  if (typeof option.description === 'string' && option.description !== '') prompt.description = option.description
  if (args.length > 0) prompt.arguments = args
  const values = Object.fromEntries(
    fields.flatMap((f, i) => {
      const named = f.type.kind === 'enum' ? enumValues(model, f.type.typeName) : []
      return named.length > 0 ? [[args[i]!.name, named.map((v) => v.name)] as const] : []
    }),
  )
  if (Object.keys(values).length > 0) prompt.values = values
  return prompt
}

/**
 * The prompts of `model`'s services and of their RPCs that `methods` keeps,
 * in declaration order (a service's own, then its RPCs'). Throws a
 * `ProtoError` at the option's declaration for a prompt without a name or
 * text, a name another prompt of the file took, an `arguments` naming no
 * message or a field no string can be, and at the line of a placeholder
 * naming no argument.
 */
export function buildPrompts(model: ProtoModel, options: { methods?: MethodFilter } = {}): PromptSpec[] {
  const filter = methodFilter(options.methods)
  const prompts: PromptSpec[] = []
  const seen = new Map<string, Site>()
  const add = (option: PromptOption, site: Site): void => {
    const prompt = promptOf(model, option, site)
    const before = seen.get(prompt.name)
    if (before !== undefined) {
      const at = before.loc ? ` at line ${before.loc.line}` : ''
      fail(
        site.loc,
        `prompt "${prompt.name}" (${site.what}) is defined twice: ${before.what}${at} has the name too; prompt names must be unique`,
      )
    }
    seen.set(prompt.name, site)
    prompts.push(prompt)
  }
  for (const service of model.services) {
    const serviceOption = service.customOptions[PROTO_MCP_SERVICE] as { prompt?: unknown } | undefined
    for (const option of listOf(serviceOption?.prompt)) {
      add(option, {
        service,
        ...(service.loc ? { loc: service.loc } : {}),
        what: `(proto_mcp.service).prompt of service ${service.fullName}`,
      })
    }
    for (const method of service.methods) {
      const options = listOf(method.customOptions[PROTO_MCP_PROMPT])
      if (options.length === 0 || !filter.keeps(`${service.fullName}.${method.name}`)) continue
      for (const option of options) {
        add(option, {
          service,
          method,
          ...(method.loc ? { loc: method.loc } : {}),
          what: `(proto_mcp.prompt) of RPC ${service.fullName}.${method.name}`,
        })
      }
    }
  }
  return prompts
}

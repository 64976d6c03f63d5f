/**
 * Resources from the proto's resource model (docs/guide/resources.md): what
 * the build writes into the spec (`ProtoServerSpec.resources`), and the
 * `resourceScheme` and `listResources` options the plugin, the build and
 * the command (`--resource-scheme`, `--list-resources`) all take.
 */
import { isRecord } from './is-record.ts'

/** One resource template from a `google.api.resource` message, and the RPCs that read, complete and list it. */
export interface ProtoResourceSpec {
  /** As `resources/templates/list` shows it. */
  template: { uriTemplate: string; name: string; title: string; description?: string; mimeType: 'application/json' }
  /** The resource type (`pubsub.googleapis.com/Topic`). */
  type: string
  /** The pattern the template spells (`projects/{project}/topics/{topic}`). */
  pattern: string
  /** The tool of the Get RPC, and the JSON name of its request field holding the resource name. */
  get: { tool: string; field: string }
  /**
   * The tool of the List RPC (completing the pattern's last variable, and
   * listing when asked), its parent and page size fields and the reply's list field.
   */
  list?: { tool: string; parentField?: string; pageSizeField?: string; itemsField: string; nameField: string }
}

/** What `resources/list` lists of them (`listResources`): absent, nothing. */
export interface ProtoResourceListing {
  /** Parent names listed under (`projects/p1`); a List RPC without a parent field is listed once. */
  under: string[]
  /** The most resources one `resources/list` answer holds, all List calls together. */
  max: number
}

/** The `resources` of a spec: the templates, and the listing when asked. */
export interface ProtoResourcesSpec {
  templates: ProtoResourceSpec[]
  list?: ProtoResourceListing
}

/** The `listResources` option: `true` lists what needs no parent, `{ under, max }` under those parents too. */
export type ListResourcesOption = boolean | { under?: string[]; max?: number }

/** The `resourceScheme` option: every template's scheme, or schemes by the default one (`{ pubsub: 'gcp-pubsub' }`). */
export type ResourceSchemeOption = string | Record<string, string>

/** The most resources one `resources/list` answer holds by default. */
export const DEFAULT_LIST_RESOURCES_MAX = 100

/** An RFC 3986 URI scheme: a letter, then letters, digits, `+`, `-` or `.`. */
export const isUriScheme = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z][A-Za-z0-9+.-]{0,63}$/.test(value)

/** What {@link ResourceSchemeOption} accepts, as option errors say it. */
export const RESOURCE_SCHEME_ACCEPTS =
  'a URI scheme (a letter, then letters, digits, "+", "-" or ".") or an object of schemes by default scheme'

/** Whether `value` is a {@link ResourceSchemeOption}. */
export function isResourceScheme(value: unknown): value is ResourceSchemeOption {
  if (isUriScheme(value)) return true
  return isRecord(value) && Object.entries(value).every(([from, to]) => isUriScheme(from) && isUriScheme(to))
}

/** What {@link ListResourcesOption} accepts, as option errors say it. */
export const LIST_RESOURCES_ACCEPTS = 'true, false or an object { under?: parent names, max?: a whole number from 1 to 10000 }'

/** Whether `value` is a {@link ListResourcesOption}. */
export function isListResources(value: unknown): value is ListResourcesOption {
  if (typeof value === 'boolean') return true
  if (!isRecord(value)) return false
  const { under, max, ...rest } = value
  return (
    Object.keys(rest).length === 0 &&
    (under === undefined || (Array.isArray(under) && under.every((p) => typeof p === 'string' && p !== '' && !p.includes('://')))) &&
    (max === undefined || (Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 10_000))
  )
}

/** The listing of a {@link ListResourcesOption}, or undefined when nothing is listed. */
export function resourceListing(option: ListResourcesOption | undefined): ProtoResourceListing | undefined {
  if (option === undefined || option === false) return undefined
  if (option === true) return { under: [], max: DEFAULT_LIST_RESOURCES_MAX }
  return { under: [...(option.under ?? [])], max: option.max ?? DEFAULT_LIST_RESOURCES_MAX }
}

/**
 * The `proto-mcp` command line: flags parsed with node:util `parseArgs`,
 * usage errors as one line, and the help text.
 */
import { parseArgs } from 'node:util'
import { nearestName } from '../contract/nearest.ts'
import { authOptionsProblem, isScopeToken, type AuthOptions } from '../contract/auth-options.ts'
import { DEFAULT_HTTP_HOST } from '../contract/index.ts'
import { DEFAULT_DEADLINE_MS, DEFAULT_FORWARDED_HEADERS } from '../contract/defaults.ts'
import type { Profile } from '../schema/index.ts'
import { DEFAULT_PROFILE, PROFILES } from '../schema/types.ts'
import { DISCOVERY_MODES, type DiscoveryMode } from '../contract/discovery.ts'
import {
  DEFAULT_LIST_RESOURCES_MAX,
  isUriScheme,
  type ListResourcesOption,
  type ResourceSchemeOption,
} from '../contract/resource-options.ts'
import type { RateLimitOptions } from '../contract/rate-limit-options.ts'
import { rateLimitFlags } from './operate-flags.ts'

/** What `proto-mcp serve` was asked to do. */
export interface ServeCommand {
  command: 'serve'
  /** The `.proto` or descriptor set (`.binpb`, `.pb`, `.desc`, `.json`) whose services become tools; absent with `reflect`. */
  file?: string
  /** With `reflect`: a descriptor set whose comments describe reflected files that come without them. */
  descriptor?: string
  /** Discover the services by gRPC server reflection instead of reading a `.proto`. @default false */
  reflect: boolean
  /** With `reflect`: the services that become tools (full or short names). @default every service listed */
  services: string[]
  /** With `reflect`: seconds between re-discoveries that swap the tools when the backend changed. @default off */
  watchIntervalS?: number
  /** The gRPC target every service is forwarded to (`127.0.0.1:50051`). */
  grpc: string
  /** Serve Streamable HTTP on this port instead of stdio (0: a free one). */
  http?: number
  /** Address the HTTP server binds. @default '127.0.0.1' */
  host: string
  /** Host header names the HTTP server accepts (needed off loopback). @default the loopback names */
  allowedHosts?: string[]
  /** Serve a non-loopback --host without a Host check (explicit opt-in). @default false */
  allowAnyHost: boolean
  /** Extra directories searched for `import "..."`, in order. */
  importPaths: string[]
  profile: Profile
  /** How tools are named, as the plugin's `toolNames` option. @default 'method' */
  toolNames: 'method' | 'service' | 'qualified'
  /** Also print the verbose report: what the schemas leave out (rules JSON Schema cannot say), each tool's tokens and rejecting clients. */
  verbose: boolean
  /** The token budget of one tool (`false`: none), as the plugin's `toolTokenBudget`. @default 1500 */
  toolTokenBudget?: number | false
  /** The characters of server and tool name together (`false`: no budget), as the plugin's `toolNameBudget`. @default 57 */
  toolNameBudget?: number | false
  /** Shorten tool names over the name budget, as the plugin's `shortenToolNames`. @default false */
  shortenToolNames?: boolean
  /** Which RPCs become tools, as the plugin's `methods` option. @default every RPC */
  methods: { include?: string[]; exclude?: string[] }
  /** How tools are listed, as the plugin's `discovery` option (`--discovery`). @default 'auto' */
  discovery?: DiscoveryMode
  /** Milliseconds each gRPC call may take. @default 30000 */
  deadlineMs: number
  /** MCP request headers forwarded as gRPC metadata. @default ['authorization', 'traceparent'] (['traceparent'] with `auth`) */
  forwardHeaders: string[]
  /** Bearer-token authorization of the HTTP server (`--auth-*`). @default none */
  auth?: AuthOptions
  /** OAuth scopes by method glob (`--method-scope glob=scope`). @default {} */
  methodScopes: Record<string, string[]>
  /** gRPC metadata of the verified caller: metadata key → claim (`--principal-metadata key=claim`). @default {} */
  principalMetadata: Record<string, string>
  /** The most messages a server-streaming call collects. @default 1000 */
  streamCap?: number
  /** The most bytes of JSON a server-streaming call collects. @default 4194304 */
  streamByteCap?: number
  /** The longest stdio line read, in bytes. @default 10485760 */
  maxLineBytes?: number
  /** The resource templates' URI scheme, or schemes by the default one (`--resource-scheme`). @default the resource type's service name */
  resourceScheme?: ResourceSchemeOption
  /** What `resources/list` lists through the List RPCs (`--list-resources`, `--list-resources-under`, `--list-resources-max`). @default nothing */
  listResources?: ListResourcesOption
  /** Rate limits of tool calls (`--rate-limit`). @default none */
  rateLimit?: RateLimitOptions
  /** The audit line per tool call (`--audit`, `--audit-arguments`). @default false */
  audit: boolean | { arguments: true }
}

/** A parsed command line: serve, or print help or the version. */
export type CliCommand = ServeCommand | { command: 'help' } | { command: 'version' }

/** The help text of `proto-mcp --help`: every flag. */
export const HELP = `Usage: proto-mcp serve <file.proto> --grpc <target> [options]
       proto-mcp serve <api.binpb> --grpc <target> [options]
       proto-mcp serve --grpc <target> --reflect [--service <name>]... [options]

Serve the services of a .proto as MCP tools, forwarding every call to a gRPC
server: schemas and validators are built at start-up, no bundler needed.
A descriptor set (.binpb, .pb, .desc or .json: buf build -o, or protoc
--descriptor_set_out --include_imports --include_source_info) serves the
services of the files it was built from, described by their comments.
With --reflect, the services and their messages come from the gRPC server's
reflection service (grpc.reflection.v1 or v1alpha) instead of a .proto.
MCP runs over stdio unless --http is given; logs go to stderr.

Options:
  --grpc <target>            gRPC server to forward to, e.g. 127.0.0.1:50051 (required)
  --reflect                  discover the services by gRPC server reflection (no .proto file)
  --service <name>           with --reflect: a service that becomes tools (full or short name);
                             repeatable (default: every service the server lists)
  --descriptor <file>        with --reflect: a descriptor set whose comments describe the
                             reflected files that come without source info
  --watch-interval <s>       with --reflect: ask again every <s> seconds and swap the tools
                             when the server's descriptors changed (default: off)
  --http <port>              serve Streamable HTTP on this port (path /mcp) instead of stdio;
                             0 picks a free port (the URL is logged)
  --host <address>           address the HTTP server binds (default 127.0.0.1)
  --allowed-host <name>      Host header name the HTTP server accepts (DNS-rebinding guard);
                             repeatable; a non-loopback --host needs it (or --allow-any-host)
  --allow-any-host           serve a non-loopback --host without checking the Host header
                             (any web page could then reach it through DNS rebinding)
  -I, --import-path <dir>    directory searched for imports; repeatable, in order
  --profile <name>           schema profile: portable, strict, full or topeka (default: portable)
  --tool-names <mode>        tool names: method (SetVibe), service (VibeService_SetVibe)
                             or qualified (examples_v1_VibeService_SetVibe) (default: method)
  --tool-name-budget <n>     the most characters of server and tool name together (Claude
                             Code and Cursor drop a tool past 60) (default 57; "off": no budget)
  --shorten-tool-names       shorten a tool name over the name budget: a hash, then its end
  --include-method <pattern> only RPCs matching it become tools: a full method name or a glob
                             (* any run of characters but ".", ** any run), e.g.
                             google.firestore.v1.Firestore.Get*; repeatable
  --exclude-method <pattern> RPCs matching it get no tool (after --include-method); repeatable
  --tool-token-budget <n>    portable/strict: the most o200k tokens one tool may cost a model;
                             deeper messages become placeholders the describe_type tool
                             explains (default 1500; "off": every message inlined)
  --discovery <mode>         tools (list every tool), search (list search_tools, describe_tool
                             and call_tool instead) or auto (tools up to 40 tools and 30,000
                             tokens, else search) (default: auto)
  --resource-scheme <scheme> the URI scheme of the resource templates from google.api.resource
                             (default: the resource type's service name, pubsub of
                             pubsub.googleapis.com/Topic); <default>=<scheme> renames one
                             (pubsub=gcp-pubsub); repeatable
  --list-resources           resources/list lists resources through the List RPCs: those needing
                             no parent (each list calls the backend: listing an API is not free)
  --list-resources-under <parent>
                             also list the resources under this parent (projects/p1); repeatable;
                             implies --list-resources
  --list-resources-max <n>   the most resources one resources/list holds (default ${DEFAULT_LIST_RESOURCES_MAX})
  --deadline <ms>            deadline of each gRPC call in milliseconds (default 30000)
  --forward-header <name>    MCP request header forwarded as gRPC metadata; repeatable
                             (default: authorization and traceparent; with --auth-issuer,
                             traceparent only: a client's token is never passed through)
  --auth-issuer <url>        with --http: accept only bearer tokens of this authorization
                             server (https; http:// on loopback), found by its discovery
                             document; repeatable. Serves the protected-resource metadata
  --auth-resource <url>      the URL clients connect to, which tokens must name as their
                             audience (default: the served URL on a loopback --host)
  --auth-audience <aud>      an aud value tokens may carry instead of the resource URL
                             (Entra ID's api://..., Auth0's API identifier); repeatable
  --auth-scope <scope>       a scope every request needs (403 without it); repeatable
  --auth-scope-claim <claim> a claim the token's scopes are read from (default scope and
                             scp; roles for app roles); repeatable
  --auth-scoped-tools <hide|step-up>
                             a call of a tool the token lacks the scopes of: step-up
                             answers 403 naming them (default), hide as an unknown tool
  --method-scope <glob>=<scope>
                             a scope the tools of matching RPCs need, by full name or
                             glob as --include-method
                             (google.firestore.v1.Firestore.Delete*=firestore.write); repeatable
  --principal-metadata <key>=<claim>
                             gRPC metadata key carrying a claim of the verified token
                             (x-user=sub, x-scopes=scope); repeatable
  --stream-cap <n>           messages a server-streaming call collects before it is cut
                             (default 1000)
  --stream-byte-cap <bytes>  bytes of JSON a server-streaming call collects before it is cut
                             (default 4194304, 4 MiB)
  --max-line <bytes>         over stdio: the longest message line read; a longer one is
                             answered with an error and skipped (default 10485760, 10 MiB)
  --rate-limit <limit>=<rate>[/<burst>]
                             limit tool calls: perCaller (the verified principal, else the
                             session, else the client address), perTool or global, in calls
                             per second, burst a whole number of calls (perCaller=10/20);
                             repeatable. Over it: HTTP 429 with Retry-After, over stdio a
                             JSON-RPC error with the retry time. Per instance
  --audit                    one JSON line per tool call on stderr: time, principal, tool,
                             outcome, duration, bytes in and out
  --audit-arguments          --audit with each call's arguments
  --verbose                  also print what the schemas leave out (e.g. buf.validate CEL
                             rules), which the gRPC server must still check, and each
                             tool's token count and the client rule sets that reject it
  -h, --help                 print this help and exit (also: proto-mcp help)
  -v, --version              print the version and exit
`

/** A usage error: one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** The flags `parseCli` accepts (node:util `parseArgs` options); `--help` documents each one. */
export const CLI_OPTIONS = {
  grpc: { type: 'string' },
  reflect: { type: 'boolean' },
  service: { type: 'string', multiple: true },
  descriptor: { type: 'string' },
  'watch-interval': { type: 'string' },
  http: { type: 'string' },
  host: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allow-any-host': { type: 'boolean' },
  'import-path': { type: 'string', short: 'I', multiple: true },
  profile: { type: 'string' },
  'tool-names': { type: 'string' },
  'include-method': { type: 'string', multiple: true },
  'exclude-method': { type: 'string', multiple: true },
  'tool-token-budget': { type: 'string' },
  'tool-name-budget': { type: 'string' },
  'shorten-tool-names': { type: 'boolean' },
  discovery: { type: 'string' },
  'resource-scheme': { type: 'string', multiple: true },
  'list-resources': { type: 'boolean' },
  'list-resources-under': { type: 'string', multiple: true },
  'list-resources-max': { type: 'string' },
  verbose: { type: 'boolean' },
  deadline: { type: 'string' },
  'forward-header': { type: 'string', multiple: true },
  'stream-cap': { type: 'string' },
  'stream-byte-cap': { type: 'string' },
  'max-line': { type: 'string' },
  'auth-issuer': { type: 'string', multiple: true },
  'auth-resource': { type: 'string' },
  'auth-scope': { type: 'string', multiple: true },
  'auth-audience': { type: 'string', multiple: true },
  'auth-scope-claim': { type: 'string', multiple: true },
  'auth-scoped-tools': { type: 'string' },
  'method-scope': { type: 'string', multiple: true },
  'principal-metadata': { type: 'string', multiple: true },
  'rate-limit': { type: 'string', multiple: true },
  audit: { type: 'boolean' },
  'audit-arguments': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

const TOOL_NAMES = ['method', 'service', 'qualified'] as const

function integerIn(flag: string, value: string, min: number, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${value}"`)
  }
  return n
}

/** ` (did you mean '--include-method'?)` for an unknown flag near a known one, else ''. */
function flagSuggestion(error: unknown, argv: readonly string[]): string {
  if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return ''
  const unknown = argv.find((arg) => arg.startsWith('--') && !Object.hasOwn(CLI_OPTIONS, arg.slice(2).split('=')[0]!))
  const near = unknown === undefined ? undefined : nearestName(unknown.slice(2).split('=')[0]!, Object.keys(CLI_OPTIONS))
  return near === undefined ? '' : ` (did you mean '--${near}'?)`
}

/** Parses `argv` (without node and the script); throws a {@link UsageError} naming what is wrong. */
export function parseCli(argv: readonly string[]): CliCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: CLI_OPTIONS,
    })
  } catch (error) {
    // parseArgs's messages span lines and suggest `--`; the first sentence says it.
    const first = (error as Error).message.split('\n')[0]!.replace(/\. To specify .*$/, '')
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1) + flagSuggestion(error, argv))
  }
  const { values, positionals } = parsed
  if (values.help) return { command: 'help' }
  if (values.version) return { command: 'version' }
  const [command, file, ...rest] = positionals
  if (command === undefined) throw new UsageError('missing command: proto-mcp serve <file.proto> --grpc <target> (see --help)')
  // `proto-mcp help`, as many commands take it: the same as --help.
  if (command === 'help' && file === undefined) return { command: 'help' }
  if (command !== 'serve') throw new UsageError(`unknown command "${command}": the only command is serve (see --help)`)
  const reflect = values.reflect ?? false
  if (reflect && file !== undefined) throw new UsageError(`unexpected argument "${file}": --reflect reads no .proto file`)
  if (!reflect && file === undefined) {
    throw new UsageError(
      'serve needs a .proto file or --reflect: proto-mcp serve <file.proto> --grpc <target>, or proto-mcp serve --grpc <target> --reflect',
    )
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}": serve takes one .proto file`)
  if (!reflect) {
    for (const flag of ['service', 'watch-interval', 'descriptor'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --reflect (a .proto file says which services there are)`)
    }
  }
  if (reflect && values['import-path'] !== undefined)
    throw new UsageError('--import-path needs a .proto file: --reflect reads no imports from disk')
  if (values.grpc === undefined || values.grpc === '')
    throw new UsageError('--grpc <target> is required: the gRPC server to forward calls to')
  const profile = values.profile ?? DEFAULT_PROFILE
  if (!(PROFILES as readonly string[]).includes(profile))
    throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, got "${profile}"`)
  const toolNames = values['tool-names'] ?? 'method'
  if (!(TOOL_NAMES as readonly string[]).includes(toolNames)) {
    throw new UsageError(`--tool-names must be method, service or qualified, got "${toolNames}"`)
  }
  const nonEmpty = (flag: string, what: string, values: readonly string[] | undefined): void => {
    const bad = values?.find((value) => value.trim() === '')
    if (bad !== undefined) throw new UsageError(`${flag} must be ${what}, got ${JSON.stringify(bad)}`)
  }
  nonEmpty('--host', 'an address', values.host === undefined ? undefined : [values.host])
  nonEmpty('--allowed-host', 'a host name', values['allowed-host'])
  nonEmpty('--forward-header', 'a header name', values['forward-header'])
  nonEmpty('--import-path', 'a directory', values['import-path'])
  nonEmpty('--include-method', 'a method name or glob', values['include-method'])
  nonEmpty('--exclude-method', 'a method name or glob', values['exclude-method'])
  const budget = values['tool-token-budget']
  const discovery = values.discovery
  if (discovery !== undefined && !(DISCOVERY_MODES as readonly string[]).includes(discovery))
    throw new UsageError(`--discovery must be one of ${DISCOVERY_MODES.join(', ')}, got "${discovery}"`)
  const { auth, methodScopes, principalMetadata, forwardHeaders } = authFlags(values, values.http !== undefined)
  const rateLimit = rateLimitFlags(values['rate-limit'], (message) => new UsageError(message))
  const resourceScheme = schemeFlags(values['resource-scheme'])
  const listResources = listFlags(values['list-resources'], values['list-resources-under'], values['list-resources-max'])
  return {
    command: 'serve',
    ...(file === undefined ? {} : { file }),
    ...(values.descriptor === undefined ? {} : { descriptor: values.descriptor }),
    reflect,
    services: values.service ?? [],
    ...(values['watch-interval'] === undefined
      ? {}
      : { watchIntervalS: integerIn('--watch-interval', values['watch-interval'], 1, 86_400) }),
    grpc: values.grpc,
    ...(values.http === undefined ? {} : { http: integerIn('--http', values.http, 0, 65535) }),
    host: values.host ?? DEFAULT_HTTP_HOST,
    ...(values['allowed-host'] === undefined ? {} : { allowedHosts: values['allowed-host'] }),
    allowAnyHost: values['allow-any-host'] ?? false,
    importPaths: values['import-path'] ?? [],
    profile: profile as ServeCommand['profile'],
    toolNames: toolNames as ServeCommand['toolNames'],
    verbose: values.verbose ?? false,
    ...(budget === undefined
      ? {}
      : { toolTokenBudget: budget === 'off' ? false : integerIn('--tool-token-budget', budget, 100, 1_000_000) }),
    ...(values['tool-name-budget'] === undefined
      ? {}
      : {
          toolNameBudget:
            values['tool-name-budget'] === 'off' ? false : integerIn('--tool-name-budget', values['tool-name-budget'], 1, 128),
        }),
    ...(values['shorten-tool-names'] ? { shortenToolNames: true } : {}),
    methods: {
      ...(values['include-method'] === undefined ? {} : { include: values['include-method'] }),
      ...(values['exclude-method'] === undefined ? {} : { exclude: values['exclude-method'] }),
    },
    ...(discovery === undefined ? {} : { discovery: discovery as DiscoveryMode }),
    deadlineMs: values.deadline === undefined ? DEFAULT_DEADLINE_MS : integerIn('--deadline', values.deadline, 1, 2 ** 31 - 1),
    forwardHeaders,
    ...(auth === undefined ? {} : { auth }),
    methodScopes,
    principalMetadata,
    ...(values['stream-cap'] === undefined ? {} : { streamCap: integerIn('--stream-cap', values['stream-cap'], 1, 2 ** 31 - 1) }),
    ...(values['stream-byte-cap'] === undefined
      ? {}
      : { streamByteCap: integerIn('--stream-byte-cap', values['stream-byte-cap'], 1, 2 ** 31 - 1) }),
    ...(values['max-line'] === undefined ? {} : { maxLineBytes: integerIn('--max-line', values['max-line'], 1024, 2 ** 31 - 1) }),
    ...(resourceScheme === undefined ? {} : { resourceScheme }),
    ...(listResources === undefined ? {} : { listResources }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    audit: values['audit-arguments'] ? { arguments: true } : (values.audit ?? false),
  }
}

const SCHEME_RULE = 'a URI scheme (a letter, then letters, digits, "+", "-" or ".")'

/** `--resource-scheme`: one scheme for every template, or `default=scheme` pairs. */
function schemeFlags(values: readonly string[] | undefined): ResourceSchemeOption | undefined {
  if (values === undefined) return undefined
  const check = (scheme: string, given: string): string => {
    if (!isUriScheme(scheme))
      throw new UsageError(`--resource-scheme must be ${SCHEME_RULE} or <default>=<scheme>, got ${JSON.stringify(given)}`)
    return scheme
  }
  if (values.length === 1 && !values[0]!.includes('=')) return check(values[0]!, values[0]!)
  const renamed: Record<string, string> = {}
  for (const value of values) {
    if (!value.includes('='))
      throw new UsageError(`--resource-scheme given more than once must be <default>=<scheme> each time, got ${JSON.stringify(value)}`)
    const [from, to] = pairs('--resource-scheme', '<default>=<scheme> (pubsub=gcp-pubsub)', [value])[0]!
    renamed[check(from, value)] = check(to, value)
  }
  return renamed
}

/** `--list-resources`, `--list-resources-under` and `--list-resources-max` as the build's `listResources`. */
function listFlags(
  on: boolean | undefined,
  under: readonly string[] | undefined,
  max: string | undefined,
): ListResourcesOption | undefined {
  for (const parent of under ?? []) {
    if (parent.trim() === '' || parent.includes('://') || parent.startsWith('/') || parent.endsWith('/'))
      throw new UsageError(
        `--list-resources-under must be a parent's name as the API writes it (projects/p1), got ${JSON.stringify(parent)}`,
      )
  }
  if (max !== undefined && !on && under === undefined)
    throw new UsageError('--list-resources-max needs --list-resources or --list-resources-under: nothing is listed without them')
  if (!on && under === undefined) return undefined
  return {
    ...(under === undefined ? {} : { under: [...under] }),
    ...(max === undefined ? {} : { max: integerIn('--list-resources-max', max, 1, 10_000) }),
  }
}

/** `key=value` pairs of a repeatable flag; throws naming a pair without `=` or with an empty side. */
function pairs(flag: string, what: string, values: readonly string[] | undefined): Array<[string, string]> {
  return (values ?? []).map((pair) => {
    const eq = pair.indexOf('=')
    if (eq <= 0 || eq === pair.length - 1) throw new UsageError(`${flag} must be ${what}, got ${JSON.stringify(pair)}`)
    return [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()]
  })
}

/** The flags that mean nothing without `--auth-issuer`. */
const AUTH_NEEDING_FLAGS = [
  'auth-resource',
  'auth-audience',
  'auth-scope',
  'auth-scope-claim',
  'auth-scoped-tools',
  'method-scope',
  'principal-metadata',
] as const

/** The flags of the `auth` option, as the serve command uses them. */
function authFlags(
  values: {
    'auth-issuer'?: string[]
    'auth-resource'?: string
    'auth-scope'?: string[]
    'auth-audience'?: string[]
    'auth-scope-claim'?: string[]
    'auth-scoped-tools'?: string
    'method-scope'?: string[]
    'principal-metadata'?: string[]
    'forward-header'?: string[]
  },
  http: boolean,
): Pick<ServeCommand, 'auth' | 'methodScopes' | 'principalMetadata' | 'forwardHeaders'> {
  const issuers = values['auth-issuer']
  if (issuers === undefined) {
    for (const flag of AUTH_NEEDING_FLAGS) {
      if (values[flag] !== undefined) {
        throw new UsageError(
          flag === 'method-scope'
            ? '--method-scope needs --auth-issuer: without authorization no caller has a scope, so the tools it names would exist for no one'
            : `--${flag} needs --auth-issuer (the authorization server whose tokens are accepted)`,
        )
      }
    }
    return { methodScopes: {}, principalMetadata: {}, forwardHeaders: values['forward-header'] ?? [...DEFAULT_FORWARDED_HEADERS] }
  }
  if (!http) throw new UsageError('--auth-issuer needs --http: bearer tokens come with HTTP requests (a stdio client is the local user)')
  if (values['forward-header']?.some((name) => name.toLowerCase() === 'authorization')) {
    throw new UsageError(
      "--forward-header authorization would pass the client's token to the gRPC server, which the MCP spec forbids with --auth-issuer: " +
        'the server verifies it, and --principal-metadata passes on who the caller is',
    )
  }
  const auth: AuthOptions = {
    issuer: issuers,
    ...(values['auth-resource'] === undefined ? {} : { resource: values['auth-resource'] }),
    ...(values['auth-scope'] === undefined ? {} : { scopes: values['auth-scope'] }),
    ...(values['auth-audience'] === undefined ? {} : { audience: values['auth-audience'] }),
    ...(values['auth-scope-claim'] === undefined ? {} : { scopeClaim: values['auth-scope-claim'] }),
    ...(values['auth-scoped-tools'] === undefined ? {} : { scopedTools: values['auth-scoped-tools'] as AuthOptions['scopedTools'] }),
  }
  const problem = authOptionsProblem(auth, false)
  if (problem !== undefined) {
    // The option's words, with the flags' names.
    throw new UsageError(
      problem
        .replace('option "auth.issuer"', '--auth-issuer')
        .replace('option "auth.resource"', '--auth-resource')
        .replace('option "auth.scopes"', '--auth-scope')
        .replace('option "auth.audience"', '--auth-audience')
        .replace('option "auth.scopeClaim"', '--auth-scope-claim')
        .replace('option "auth.scopedTools"', '--auth-scoped-tools'),
    )
  }
  const methodScopes: Record<string, string[]> = {}
  for (const [glob, scope] of pairs('--method-scope', 'glob=scope (notes.v1.Notes.Delete*=notes.write)', values['method-scope'])) {
    if (!isScopeToken(scope))
      throw new UsageError(`--method-scope must name an OAuth scope (no spaces or quotes), got ${JSON.stringify(scope)}`)
    ;(methodScopes[glob] ??= []).push(scope)
  }
  const principalMetadata = Object.fromEntries(pairs('--principal-metadata', 'key=claim (x-user=sub)', values['principal-metadata']))
  return { auth, methodScopes, principalMetadata, forwardHeaders: values['forward-header'] ?? ['traceparent'] }
}

/**
 * `proto-mcp serve`: a gateway from MCP to an existing gRPC service. Builds
 * the spec at start-up, forwards every service to the gRPC target, and
 * serves over stdio (stdout is the MCP stream, so logs go to stderr) or HTTP.
 * main.ts loads it once the command line parsed as a `serve`.
 */
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { grpc } from '../grpc/grpc-backend.ts'
import { isProtoError, protoErrorAt, withFix, type BuildWarning, type BuildWarningCode, type ProtoError } from '../proto/index.ts'
import { createProtoServer, type Logger } from '../server/index.ts'
import type { ServeCommand } from './args.ts'
import { startOtel } from './otel-sdk.ts'
import { buildServerSpec, type BuiltSpec } from '../gateway/build-spec.ts'
import { costNote } from '../codegen/index.ts'
import type { DiscoveryMode } from '../contract/discovery.ts'
import { DISCOVERY_META_KEY } from '../server/tools/discovery.ts'
import { reflectSpec, watchReflection } from '../gateway/reflect-server.ts'

const log = (line: string): void => {
  process.stderr.write(`proto-mcp: ${line}\n`)
}

/** The served server's messages: the command owns stderr, so they are lines there too, as the server words them. */
const serverLogger: Logger = {
  warn: (message) => process.stderr.write(`${message}\n`),
  error: (message) => process.stderr.write(`${message}\n`),
  // The audit lines (--audit), which come with their record; the command says where it listens itself.
  info: (message, record) => {
    if (record !== undefined) process.stderr.write(`${message}\n`)
  },
}

/** Fixes the command says with its own flags instead of the plugin's options, by warning code. */
export const CLI_FIXES: Partial<Record<BuildWarningCode, string>> = {
  TOOL_NAME_CLASH: 'pass --tool-names service or qualified to keep every RPC',
  RESOURCE_LISTING: 'add a parent of that shape with --list-resources-under',
  TOOL_NAME_BUDGET: 'pass --shorten-tool-names, a shorter --tool-names, or set (proto_mcp.tool).name',
  TOOL_OVER_BUDGET: 'raise --tool-token-budget, or leave the RPC out with --exclude-method',
  TOO_MANY_TOOLS: 'choose the RPCs with --include-method or --exclude-method',
  LIST_OVER_TOKENS: 'choose the RPCs with --include-method or --exclude-method, or lower --tool-token-budget',
  DISCOVERY_SEARCH: 'pass --discovery search to keep this, or --discovery tools to list every tool',
  METHOD_PATTERN_UNMATCHED: 'check the full name, package.Service.Method, given to --include-method, --exclude-method or --method-scope',
}

/** A build warning as the command says it: the fix in terms of its flags where the plugin's option is a flag here. */
export function cliWarning(warning: BuildWarning): BuildWarning {
  const fix = CLI_FIXES[warning.code]
  return fix === undefined ? warning : withFix(warning, fix)
}

/** The command's budget, method and resource options, as the build takes them (unset ones left out). */
function budgetOptions(options: ServeCommand): {
  toolTokenBudget?: number | false
  toolNameBudget?: number | false
  shortenToolNames?: boolean
  methods?: ServeCommand['methods']
  discovery?: { mode: DiscoveryMode }
  resourceScheme?: ServeCommand['resourceScheme']
  listResources?: ServeCommand['listResources']
} {
  return {
    ...(options.resourceScheme === undefined ? {} : { resourceScheme: options.resourceScheme }),
    ...(options.listResources === undefined ? {} : { listResources: options.listResources }),
    ...(options.toolTokenBudget === undefined ? {} : { toolTokenBudget: options.toolTokenBudget }),
    ...(options.toolNameBudget === undefined ? {} : { toolNameBudget: options.toolNameBudget }),
    ...(options.shortenToolNames ? { shortenToolNames: true } : {}),
    ...(options.discovery === undefined ? {} : { discovery: { mode: options.discovery } }),
    ...(options.methods.include || options.methods.exclude ? { methods: options.methods } : {}),
  }
}

/**
 * What the command warns of the tools' scopes: tools that need scopes
 * without `--auth-issuer` exist for no one. (A `--method-scope` glob that
 * matches no RPC is a build warning, as a `methodScopes` one is.)
 */
export function scopeWarnings(
  tools: ReadonlyArray<{ name: string; scopes?: readonly string[] }>,
  options: Pick<ServeCommand, 'auth'>,
): string[] {
  const out: string[] = []
  const scoped = tools.filter((tool) => tool.scopes?.length)
  if (options.auth === undefined && scoped.length > 0) {
    out.push(
      `${scoped.length} ${scoped.length === 1 ? 'tool needs' : 'tools need'} OAuth scopes (${scoped.map((t) => t.name).join(', ')}): ` +
        'without --auth-issuer no caller has a scope, so they are not served',
    )
  }
  return out
}

/** A bad `.proto` as the command says it: `file:line:column: reason`, its import fix in the command's flag. */
const protoFailure = (error: ProtoError): string =>
  protoErrorAt(
    error,
    error.missingImport === undefined
      ? error.reason
      : `import "${error.missingImport}" not found next to the importing file, next to the served file or in an -I directory ` +
          '(pass the directory it is relative to with -I <dir>)',
  )

/** The first line of an error's message: the command's errors are one line. */
const oneLine = (error: unknown): string =>
  (isProtoError(error) ? protoFailure(error) : error instanceof Error ? error.message : String(error)).split('\n')[0]!

/** What `--reflect` builds the spec with, at start and at each re-discovery: the services, descriptor set and shaping flags. */
function reflectOptions(options: ServeCommand) {
  return {
    ...(options.services.length > 0 ? { services: options.services } : {}),
    ...(options.descriptor === undefined ? {} : { descriptor: resolve(options.descriptor) }),
    profile: options.profile,
    toolNames: options.toolNames,
    ...budgetOptions(options),
    methodScopes: options.methodScopes,
  }
}

/** Builds the server, forwards it, and serves until stdin closes (stdio) or a signal arrives (HTTP). */
async function serve(options: ServeCommand): Promise<number> {
  const started = performance.now()
  let built: BuiltSpec
  let buildMs: number
  let fingerprint = ''
  let source: string
  if (options.file === undefined) {
    const reflected = await reflectSpec(options.grpc, reflectOptions(options))
    built = reflected
    buildMs = reflected.buildMs
    fingerprint = reflected.fingerprint
    source = `${reflected.services.length === 1 ? 'service' : 'services'} ${reflected.services.join(', ') || '(none)'} (reflection)`
  } else {
    built = buildServerSpec(resolve(options.file), {
      importPaths: options.importPaths.map((dir) => resolve(dir)),
      profile: options.profile,
      toolNames: options.toolNames,
      ...budgetOptions(options),
      methodScopes: options.methodScopes,
    })
    buildMs = performance.now() - started
    source = options.file
    // Nothing to forward: a start that serves no tool is a mistake, said before serving (exit 1).
    if (built.warnings.some((w) => w.code === 'NO_SERVICE')) {
      throw new Error(
        `cannot serve "${options.file}": it declares no service, so it builds no tools (give the .proto that declares the service)`,
      )
    }
  }
  const { spec, warnings, notes } = built
  // Every RPC filtered out: said before serving, with what to write (forwarding would only say the server has no services).
  if (spec.tools.length === 0 && (options.methods.include ?? options.methods.exclude) !== undefined) {
    throw new Error(
      `no RPC of ${source} is left to serve after --include-method/--exclude-method: write a method's name (GetDocument), ` +
        `its full name (package.Service.Method) or a glob (package.Service.Get*)`,
    )
  }
  const count = (n: number): string => `${n} ${n === 1 ? 'tool' : 'tools'}`
  const discoveryMs = performance.now() - started
  // Logged once serving: a start-up failure stays a single line.
  const logBuilt = (): void => {
    log(
      `built ${count(spec.tools.length)} in ${Math.round(buildMs)} ms${options.file === undefined ? ` (${Math.round(discoveryMs)} ms with discovery)` : ''}`,
    )
  }
  const warn = (warning: BuildWarning): void => log(`warning: ${cliWarning(warning).message}`)
  for (const warning of warnings) warn(warning)
  if (options.verbose) for (const note of [...notes, ...built.costs().map(costNote)]) log(`note: ${note}`)
  for (const line of scopeWarnings(spec.tools, options)) log(`warning: ${line}`)
  const server = createProtoServer(spec).logging({ logger: serverLogger, audit: options.audit })
  if (options.verbose) log(`note: ${discoveryNote(server.listTools(), spec.tools.length, options.discovery ?? 'auto')}`)
  if (options.rateLimit) server.rateLimit(options.rateLimit)
  // Only when the OTEL_* environment asks for it: the SDK packages are not even loaded otherwise.
  const stopOtel = await startOtel(process.env, (line) => log(line))
  const backend = grpc(options.grpc, {
    deadlineMs: options.deadlineMs,
    forwardHeaders: options.forwardHeaders,
    ...(options.streamCap === undefined ? {} : { streamCap: options.streamCap }),
    ...(options.streamByteCap === undefined ? {} : { streamByteCap: options.streamByteCap }),
    ...(Object.keys(options.principalMetadata).length > 0 ? { principalMetadata: options.principalMetadata } : {}),
  })
  for (const service of Object.keys(spec.services ?? {})) server.forward(service, backend)
  // Resource templates from google.api.resource (docs/guide/resources.md) are the spec's: they read through the tools above.
  const served = server
  const summary = `${count(spec.tools.length)} from ${source}, forwarding to ${options.grpc}`
  const unwatch =
    options.watchIntervalS === undefined
      ? undefined
      : watchReflection(served, options.grpc, {
          intervalSeconds: options.watchIntervalS,
          fingerprint,
          backend,
          ...reflectOptions(options),
          onChange: (next) => {
            for (const warning of next.warnings) warn(warning)
            log(`the gRPC server's descriptors changed: now serving ${count(next.spec.tools.length)}`)
          },
          onError: (error) => log(`re-discovery failed, keeping the tools: ${oneLine(error)}`),
        })

  try {
    if (options.http === undefined) {
      logBuilt()
      log(`serving ${summary} over stdio`)
      // A failure of stdin or stdout is fatal: exit code 1, so a supervisor sees it.
      await served.serveStdio(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }).catch((cause: unknown) => {
        throw new Error(`stdio failed: ${oneLine(cause)}`, { cause })
      })
      return 0
    }
    const handle = await served
      .serveHttp({
        host: options.host,
        port: options.http,
        ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
        allowAnyHost: options.allowAnyHost,
        ...(options.auth ? { auth: options.auth } : {}),
      })
      .catch((cause: unknown) => {
        const code = (cause as { code?: unknown }).code
        if (code === 'AUTH_UNAVAILABLE')
          throw new Error(`cannot serve with --auth-issuer: ${(cause as Error).message.replace(/^serveHttp\(\): /, '')}`, { cause })
        if (code === 'BAD_OPTION' && options.auth && !options.auth.resource && /"auth" needs "resource"/.test((cause as Error).message))
          throw new Error(`--auth-resource is required off loopback: the URL clients connect to (https://mcp.example.com/mcp)`, { cause })
        if (code === 'BAD_OPTION') {
          throw new Error(
            `cannot serve HTTP on ${options.host}: it is not a loopback address; pass --allowed-host <name> for each name clients use, or --allow-any-host`,
            { cause },
          )
        }
        throw new Error(
          `cannot serve HTTP on ${options.host}:${options.http}: ${(cause as Error).message} (pick another --http port, or 0 for a free one)`,
          { cause },
        )
      })
    logBuilt()
    log(`serving ${summary} at ${handle.url}`)
    await new Promise<void>((done) => {
      const stop = (): void => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        done()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
    await handle.close()
    return 0
  } finally {
    unwatch?.()
    backend.close()
    await stopOtel?.()
  }
}

/** Runs a parsed `serve` command; resolves with its exit code (0, or 1 with a one-line error on stderr). */
export async function serveCommand(command: ServeCommand): Promise<number> {
  try {
    return await serve(command)
  } catch (error) {
    log(oneLine(error))
    return 1
  }
}

/** The verbose report's line on tool discovery: the mode asked for, and what the server lists. */
function discoveryNote(listed: ReadonlyArray<{ name: string; _meta?: unknown }>, tools: number, mode: DiscoveryMode): string {
  const meta = listed.filter((t) => (t._meta as Record<string, unknown> | undefined)?.[DISCOVERY_META_KEY] !== undefined)
  return meta.length > 0
    ? `discovery ${mode}: search (lists ${meta.map((t) => t.name).join(', ')} instead of the ${tools} tools)`
    : `discovery ${mode}: tools (lists all ${listed.length} ${listed.length === 1 ? 'tool' : 'tools'})`
}

/**
 * Every option of the plugin, the `Server` (its transports, `logging()`,
 * `tasks()`, `auth`), `grpc()` and the `proto-mcp` command is in
 * the docs, with the default the code has. The options and their defaults
 * are read from the code's own option tables (the rules that check them,
 * whose `default` is the constant the code applies) and, for the command,
 * from what `parseCli` gives when a flag is left out; the docs' tables are
 * read from the page and heading each one lives under. A new option, a
 * renamed one or a changed default fails here until the docs say it.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI_OPTIONS, parseCli, type ServeCommand } from '../src/cli/args.ts'
import { DEFAULT_LIST_RESOURCES_MAX } from '../src/contract/resource-options.ts'
import { AUTH_RULES } from '../src/contract/auth-options.ts'
import { POSTGRES_CLUSTER_RULES } from '../src/postgres/postgres-cluster.ts'
import { GRPC_RULES } from '../src/grpc/grpc-backend.ts'
import { DEV_RULES, PLUGIN_RULES } from '../src/plugin/check-options.ts'
import { REQUEST_STATE_KEY_RULES } from '../src/server/builder.ts'
import { FETCH_HANDLER_RULES } from '../src/server/cluster/cluster-options.ts'
import { FETCH_RULES } from '../src/server/index.ts'
import { HANDLER_RULES, SERVE_RULES } from '../src/server/http/http-options.ts'
import { LOGGING_RULES } from '../src/server/base/logging.ts'
import { STDIO_RULES } from '../src/server/stdio/stdio.ts'
import { TASK_OPTION_RULES } from '../src/server/tasks/tasks.ts'

const root = resolve(import.meta.dirname, '..')
const MIB = 1024 * 1024

/** One row of a Markdown table: the names its first cell shows and its default cell. */
interface Row {
  names: string[]
  default: string | undefined
}

/** Where a set of options is documented: a page and the headings whose tables list them. */
interface Surface {
  what: string
  page: string
  headings: string[]
  /** Option name → its default (`undefined`: none to show). */
  options: Map<string, unknown>
  /** How a row names the option: `` `key` `` for options, `--flag` for the command. */
  flags?: boolean
}

const FENCE_RE = /^```[^\n]*\n[\s\S]*?^```$/gm

/** The text under `heading` (a whole `#… title` line) up to the next heading of its level or higher. */
export function sectionOf(text: string, heading: string): string | undefined {
  const lines = text.replace(FENCE_RE, (block) => block.replace(/^#/gm, ' #')).split('\n')
  const start = lines.findIndex((line) => line.trim() === heading)
  if (start < 0) return undefined
  const level = /^#+/.exec(heading)![0].length
  const end = lines.findIndex((line, i) => i > start && /^#+\s/.test(line) && /^#+/.exec(line)![0].length <= level)
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n')
}

/** The rows of every table in `text` whose header has a `default` column. */
export function tableRows(text: string, flags = false): Row[] {
  const rows: Row[] = []
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, '|'))
  const lines = text.split('\n')
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1]!)) continue
    const header = cells(lines[i]!).map((cell) => cell.toLowerCase())
    const at = header.indexOf('default')
    let j = i + 2
    for (; j < lines.length && lines[j]!.trim().startsWith('|'); j++) {
      const row = cells(lines[j]!)
      const first = row[0] ?? ''
      const names = flags ? [...first.matchAll(/--[\w-]+/g)].map((m) => m[0]) : [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)
      rows.push({ names, default: at < 0 ? undefined : row[at]?.replace(/`/g, '') })
    }
    i = j - 1
  }
  return rows
}

/** How a default may be written in the docs: the code's literal (`'portable'`, `[]`, `1000`, or `8 MiB` for bytes); the command's bare. */
export function spellings(name: string, value: unknown, flags = false): string[] {
  const quote = (s: string) => (flags ? s : `'${s}'`)
  if (typeof value === 'string') return [quote(value)]
  if (typeof value === 'number') return /byte/i.test(name) && value % MIB === 0 ? [String(value), `${value / MIB} MiB`] : [String(value)]
  if (Array.isArray(value)) return [flags ? value.join(', ') : `[${value.map((v) => quote(String(v))).join(', ')}]`]
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return ['{}']
  return [String(value)]
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** What the docs get wrong about a surface: an option with no row, or a row without the code's default. */
export function problemsOf(surface: Surface, text: string): string[] {
  const rows = surface.headings.flatMap((heading) => {
    const section = sectionOf(text, heading)
    return section === undefined ? [] : tableRows(section, surface.flags)
  })
  const missing = surface.headings.filter((heading) => sectionOf(text, heading) === undefined)
  const problems = missing.map((heading) => `${surface.page}: no heading "${heading}"`)
  for (const [name, value] of surface.options) {
    const found = rows.filter((row) => row.names.includes(name))
    if (found.length === 0) {
      problems.push(`${surface.what}: ${name} is not in a table of ${surface.page} under ${surface.headings.join(' or ')}`)
      continue
    }
    if (value === undefined) continue
    const wanted = spellings(name, value, surface.flags)
    const shows = (cell: string | undefined) =>
      cell !== undefined && wanted.some((w) => new RegExp(`(?<![\\w.'-])${escape(w)}(?![\\w.'-])`).test(cell))
    if (!found.some((row) => shows(row.default)))
      problems.push(
        `${surface.what}: ${name} defaults to ${wanted[0]} in the code; ${surface.page} says ${JSON.stringify(found[0]!.default ?? '(no default column)')}`,
      )
  }
  return problems
}

const defaultsOf = (rules: Readonly<Record<string, { default?: unknown }>>) =>
  new Map(Object.entries(rules).map(([name, rule]) => [name, rule.default]))

// The command's defaults, as parseCli gives them for a command line that leaves every flag out.
const bare: ServeCommand = parseCli(['serve', 'x.proto', '--grpc', '127.0.0.1:50051']) as ServeCommand
/**
 * Each flag → what it defaults to: the parsed field, or the plugin option it
 * is the spelling of. Every flag of CLI_OPTIONS must be here (a new flag
 * fails until it is), `undefined` when it has no default to show.
 */
const CLI_DEFAULTS: Record<keyof typeof CLI_OPTIONS, unknown> = {
  grpc: undefined,
  reflect: undefined,
  service: undefined,
  descriptor: undefined,
  'watch-interval': bare.watchIntervalS,
  http: bare.http,
  host: bare.host,
  'allowed-host': undefined,
  'allow-any-host': undefined,
  'import-path': undefined,
  profile: bare.profile,
  'tool-names': bare.toolNames,
  'include-method': undefined,
  'exclude-method': undefined,
  'tool-token-budget': bare.toolTokenBudget ?? PLUGIN_RULES.toolTokenBudget.default,
  'tool-name-budget': bare.toolNameBudget ?? PLUGIN_RULES.toolNameBudget.default,
  'shorten-tool-names': undefined,
  discovery: bare.discovery ?? PLUGIN_RULES.discovery.default,
  'resource-scheme': undefined,
  'list-resources': undefined,
  'list-resources-under': undefined,
  'list-resources-max': DEFAULT_LIST_RESOURCES_MAX,
  verbose: undefined,
  deadline: bare.deadlineMs,
  'stream-cap': bare.streamCap ?? GRPC_RULES.streamCap.default,
  'stream-byte-cap': bare.streamByteCap ?? GRPC_RULES.streamByteCap.default,
  'max-line': bare.maxLineBytes ?? STDIO_RULES.maxLineBytes.default,
  'forward-header': bare.forwardHeaders,
  'auth-issuer': undefined,
  'auth-resource': undefined,
  'auth-scope': undefined,
  'auth-audience': undefined,
  'auth-scope-claim': AUTH_RULES.scopeClaim.default,
  'auth-scoped-tools': AUTH_RULES.scopedTools.default,
  'method-scope': undefined,
  'principal-metadata': undefined,
  'rate-limit': undefined,
  audit: undefined,
  'audit-arguments': undefined,
  help: undefined,
  version: undefined,
}

const SURFACES: Surface[] = [
  { what: 'the plugin', page: 'README.md', headings: ['## Options'], options: defaultsOf(PLUGIN_RULES) },
  { what: "the plugin's dev option", page: 'docs/guide/dev-server.md', headings: ['## The `dev` option'], options: defaultsOf(DEV_RULES) },
  { what: 'serveHttp()', page: 'docs/guide/serving.md', headings: ['## Over HTTP', '## Logging'], options: defaultsOf(SERVE_RULES) },
  {
    what: 'nodeHandler()',
    page: 'docs/guide/serving.md',
    headings: ['## Over HTTP', '## Logging'],
    // Its path has no default (every path); the rest are serveHttp()'s.
    options: new Map([...defaultsOf(HANDLER_RULES)].map(([name, value]) => [name, name === 'path' ? undefined : value])),
  },
  { what: 'serveStdio()', page: 'docs/guide/serving.md', headings: ['## Over stdio', '## Logging'], options: defaultsOf(STDIO_RULES) },
  { what: 'fetch()', page: 'docs/guide/serving.md', headings: ['## Web-standard `fetch()`'], options: defaultsOf(FETCH_RULES) },
  {
    what: 'fetchHandler()',
    page: 'docs/guide/serving.md',
    headings: ['## Web-standard `fetch()`'],
    options: defaultsOf(FETCH_HANDLER_RULES),
  },
  {
    what: 'postgresCluster()',
    page: 'docs/guide/serving.md',
    headings: ['## Several instances'],
    options: defaultsOf(POSTGRES_CLUSTER_RULES),
  },
  {
    what: 'requestStateKey()',
    page: 'docs/guide/server.md',
    headings: ['## Hand-written tools: `Server.builder`'],
    options: defaultsOf(REQUEST_STATE_KEY_RULES),
  },
  { what: 'logging()', page: 'docs/guide/serving.md', headings: ['## Logging'], options: defaultsOf(LOGGING_RULES) },
  { what: 'tasks()', page: 'docs/guide/tasks.md', headings: ['## Options'], options: defaultsOf(TASK_OPTION_RULES) },
  { what: 'auth', page: 'docs/guide/authorization.md', headings: ['## Options'], options: defaultsOf(AUTH_RULES) },
  { what: 'grpc()', page: 'docs/guide/grpc.md', headings: ['## Options'], options: defaultsOf(GRPC_RULES) },
  {
    what: 'proto-mcp',
    page: 'docs/guide/gateway.md',
    headings: ['## Flags'],
    flags: true,
    options: new Map(Object.entries(CLI_DEFAULTS).map(([flag, value]) => [`--${flag}`, value])),
  },
]

describe('every option is in the docs, with the default the code has', () => {
  it.each(SURFACES.map((surface) => [surface.what, surface] as const))('%s', (_what, surface) => {
    expect(problemsOf(surface, readFileSync(join(root, surface.page), 'utf8'))).toEqual([])
  })

  it('knows every flag of the command', () => {
    expect(Object.keys(CLI_DEFAULTS).sort()).toEqual(Object.keys(CLI_OPTIONS).sort())
  })

  it('fails on the drift it is meant to catch', () => {
    const page = [
      '## Options',
      '',
      '| option | type | default | what |',
      '|---|---|---|---|',
      "| `profile` | `string` | `'strict'` | x |",
      '| `limit` | `number` | `10000` | x |',
      '| `maxBytes` \\| `other` | `number` | 8 MiB | x |',
      '## Elsewhere',
      '| option | default |',
      '|---|---|',
      '| `late` | `1` |',
    ].join('\n')
    const surface = (options: Record<string, unknown>): Surface => ({
      what: 'x',
      page: 'fake-page',
      headings: ['## Options'],
      options: new Map(Object.entries(options)),
    })
    expect(problemsOf(surface({ profile: 'strict', limit: 10000, maxBytes: 8 * MIB, other: undefined }), page)).toEqual([])
    expect(problemsOf(surface({ profile: 'portable', limit: 1000, late: 1, gone: undefined }), page)).toEqual([
      "x: profile defaults to 'portable' in the code; fake-page says \"'strict'\"",
      'x: limit defaults to 1000 in the code; fake-page says "10000"',
      'x: late is not in a table of fake-page under ## Options',
      'x: gone is not in a table of fake-page under ## Options',
    ])
    expect(problemsOf({ ...surface({}), headings: ['## Nope'] }, page)).toEqual(['fake-page: no heading "## Nope"'])
  })
})

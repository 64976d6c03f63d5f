import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '..', 'src')
// `contract/` is the bottom: every stage may import it, it imports nothing of the project.
const STAGES = ['contract', 'proto', 'schema', 'codegen', 'plugin', 'runtime', 'server', 'postgres', 'grpc', 'gateway', 'cli'] as const
const BUILD_TIME = new Set(['proto', 'schema', 'codegen', 'plugin'])
// Value and type imports, re-exports, dynamic and side-effect imports.
const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm

function filesUnder(dir: string): string[] {
  let out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out = out.concat(filesUnder(path))
    else if (/\.[cm]?ts$/.test(name)) out.push(path)
  }
  return out
}

/** Every import specifier of every file of a stage folder. */
function importsOf(stage: string): { file: string; spec: string }[] {
  const dir = join(src, stage)
  let files: string[]
  try {
    files = filesUnder(dir)
  } catch {
    return []
  }
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8')
    return [...text.matchAll(IMPORT_RE)].map((m) => ({ file: relative(src, file), spec: (m[1] ?? m[2] ?? m[3])! }))
  })
}

/** The stage a relative specifier lands in, from a file inside `stage`. */
function targetStage(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined
  const resolved = relative(src, join(src, fromFile, '..', spec))
  return resolved.split('/')[0]
}

describe('stage folders import one way', () => {
  for (const stage of STAGES) {
    it(`${stage}/ imports only earlier stages`, () => {
      const allowed = new Set(STAGES.slice(0, STAGES.indexOf(stage) + 1))
      const bad = importsOf(stage)
        .map(({ file, spec }) => ({ file, spec, to: targetStage(file, spec) }))
        .filter(({ to }) => to !== undefined && (STAGES as readonly string[]).includes(to) && !allowed.has(to as never))
      expect(bad).toEqual([])
    })
  }

  it('run-time folders never reach build-time folders', () => {
    const bad = ['runtime', 'server', 'postgres', 'grpc']
      .flatMap((stage) => importsOf(stage).map(({ file, spec }) => ({ file, spec, to: targetStage(file, spec) })))
      .filter(({ to }) => to !== undefined && BUILD_TIME.has(to))
    expect(bad).toEqual([])
  })

  it('contract/ imports nothing: no other folder, no package, no Node module', () => {
    const bad = importsOf('contract').filter(({ file, spec }) => !spec.startsWith('.') || targetStage(file, spec) !== 'contract')
    expect(bad).toEqual([])
  })

  it('entries/ holds every entry and is imported by no stage', () => {
    const entries = readdirSync(join(src, 'entries'))
    expect(readdirSync(src).filter((name) => statSync(join(src, name)).isFile())).toEqual([])
    expect(entries).toContain('runtime.ts')
    const bad = STAGES.flatMap((stage) => importsOf(stage)).filter(({ file, spec }) => targetStage(file, spec) === 'entries')
    expect(bad).toEqual([])
  })

  it('only grpc/ imports @grpc/grpc-js (the /grpc subpath alone loads it)', () => {
    const bad = STAGES.filter((s) => s !== 'grpc')
      .flatMap((stage) => importsOf(stage))
      .filter(({ spec }) => spec.startsWith('@grpc/'))
    expect(bad).toEqual([])
  })

  it('only postgres/ imports pg (the /postgres subpath alone loads it)', () => {
    const bad = STAGES.filter((s) => s !== 'postgres')
      .flatMap((stage) => importsOf(stage))
      .filter(({ spec }) => spec === 'pg' || spec.startsWith('pg/'))
    expect(bad).toEqual([])
  })

  it('only runtime/otel.ts (and cli/) import @opentelemetry/api, otel.ts as a type or lazily; only cli/ the OpenTelemetry SDK', () => {
    const all = STAGES.flatMap((stage) => importsOf(stage)).filter(({ spec }) => spec.startsWith('@opentelemetry/'))
    expect(
      all.filter(({ file, spec }) => spec === '@opentelemetry/api' && file !== join('runtime', 'otel.ts') && !file.startsWith('cli')),
    ).toEqual([])
    expect(all.filter(({ file, spec }) => spec !== '@opentelemetry/api' && !file.startsWith('cli'))).toEqual([])
    const otel = readFileSync(join(src, 'runtime', 'otel.ts'), 'utf8')
    expect(otel).not.toMatch(/^import \{[^}]*\} from '@opentelemetry\/api'/m)
  })

  it('only server/ imports the MCP SDK', () => {
    const bad = STAGES.filter((s) => s !== 'server')
      .flatMap((stage) => importsOf(stage))
      .filter(({ spec }) => spec.startsWith('@modelcontextprotocol/'))
    expect(bad).toEqual([])
  })
})

/**
 * server/ by concern: its public objects loose at the top, everything else
 * in a subfolder, and which subfolder may import which (docs/internals.md).
 * A request goes transports/ (or http/, stdio/) → serving/ → tools/ → runtime/.
 * The subfolders are in one order, top to bottom: a folder imports only
 * folders below it (no arrow runs back up), `base/` at the bottom.
 */
const SERVER_PUBLIC = ['builder.ts', 'handle.ts', 'index.ts']
const SERVER_ORDER = [
  'transports',
  'http',
  'stdio',
  'serving',
  'tools',
  'tasks',
  'primitives',
  'operate',
  'cluster',
  'validation',
  'base',
] as const
const SERVER_FOLDERS: Record<(typeof SERVER_ORDER)[number], readonly string[]> = {
  // Which transports a build has, and connect() to a caller's transport.
  transports: ['http', 'stdio', 'serving', 'base'],
  // Streamable HTTP: the handlers, the auth gate, the fast call path; a fleet's routing (cluster/) in front of them.
  http: ['serving', 'tools', 'tasks', 'primitives', 'operate', 'cluster', 'base'],
  stdio: ['serving', 'base'],
  // What every transport serves from: the server state, the SDK server over it, requestState, a fleet's task takeover.
  serving: ['tools', 'tasks', 'primitives', 'operate', 'cluster', 'base'],
  // The tool set and hand-written tools (their mirrored parameter headers: tools/header-params.ts).
  tools: ['tasks', 'primitives', 'validation', 'base'],
  // Tasks over a TaskStore (cluster/task-store.ts); what they read of the server state is their own interface (TaskHost).
  tasks: ['primitives', 'operate', 'cluster', 'base'],
  // The MCP methods besides tools.
  primitives: ['base'],
  // Production: OpenTelemetry spans and metrics, rate limits, the audit line, health (docs/guide/production.md).
  operate: ['cluster', 'base'],
  // What instances of a fleet share: the Cluster and TaskStore seams, the memory ones, the fleet's bus.
  cluster: ['base'],
  validation: [],
  // The bottom: logging, the caller's principal, ListKind, base64url.
  base: [],
}

/** The rules that name a folder at or above their own in SERVER_ORDER: an arrow running back up. */
const backArrows = (rules: Readonly<Record<string, readonly string[]>>): string[] =>
  Object.entries(rules).flatMap(([from, allowed]) =>
    allowed.filter((to) => SERVER_ORDER.indexOf(to as never) <= SERVER_ORDER.indexOf(from as never)).map((to) => `${from} -> ${to}`),
  )

describe('server/ subfolders', () => {
  const serverDir = join(src, 'server')
  /** The server/ subfolder a file (relative to src/) is in, or '' for a file at the top of server/. */
  const folderOf = (file: string): string => {
    const parts = relative('server', file).split('/')
    return parts.length > 1 ? parts[0]! : ''
  }
  const crossings = () =>
    importsOf('server')
      .filter(({ spec }) => spec.startsWith('.'))
      .map(({ file, spec }) => ({ file, spec, to: relative(src, join(src, file, '..', spec)) }))
      .filter(({ to }) => to.startsWith('server/'))
      .map((edge) => ({ ...edge, from: folderOf(edge.file), into: folderOf(edge.to) }))
      .filter(({ from, into }) => from !== into)

  it('only the public objects are loose in server/; every other file is in a subfolder of the list', () => {
    const entries = readdirSync(serverDir)
    expect(entries.filter((name) => statSync(join(serverDir, name)).isFile()).sort()).toEqual(SERVER_PUBLIC)
    expect(entries.filter((name) => statSync(join(serverDir, name)).isDirectory()).sort()).toEqual(Object.keys(SERVER_FOLDERS).sort())
    expect([...SERVER_ORDER].sort()).toEqual(Object.keys(SERVER_FOLDERS).sort())
  })

  it('the rules run one way: each folder names only folders below it in SERVER_ORDER', () => {
    expect(backArrows(SERVER_FOLDERS)).toEqual([])
  })

  it('a back-arrow fails: a rule naming a folder above its own is reported', () => {
    expect(backArrows({ ...SERVER_FOLDERS, tools: [...SERVER_FOLDERS.tools, 'http'], cluster: ['serving'] })).toEqual([
      'tools -> http',
      'cluster -> serving',
    ])
  })

  it('no subfolder imports the public objects (index.ts, builder.ts, handle.ts)', () => {
    expect(crossings().filter(({ into }) => into === '')).toEqual([])
  })

  /** The crossings between subfolders that `rules` do not name. */
  const outside = (rules: Record<string, readonly string[]>) =>
    crossings().filter(({ from, into }) => from !== '' && into !== '' && !(rules[from] ?? []).includes(into))

  it('each subfolder imports only the subfolders its rule names', () => {
    expect(outside(SERVER_FOLDERS)).toEqual([])
  })

  it('the rules can fail: without serving/ in its rule, stdio/ is reported', () => {
    expect(outside({ ...SERVER_FOLDERS, stdio: [] }).map(({ file }) => file)).toContain(join('server', 'stdio', 'stdio.ts'))
  })

  it('the call path of docs/internals.md is real: each file imports the next', () => {
    const graph = importGraph(src)
    const path = [
      'server/http/http.ts',
      'server/http/session-handler.ts',
      'server/serving/sdk-server.ts',
      'server/serving/server-state.ts',
      'server/tools/tool-set.ts',
      'runtime/pipeline.ts',
    ].map((file) => join(...file.split('/')))
    const missing = path.slice(1).filter((to, i) => !(graph.get(path[i]!) ?? []).includes(to))
    expect(missing).toEqual([])
  })
})

/** Every `.ts`/`.cts`/`.mts` file under `root` with the files of `root` it imports (relative specifiers that name a file). */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of filesUnder(root)) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(IMPORT_RE)]
      .map((m) => (m[1] ?? m[2] ?? m[3])!)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => join(dirname(file), spec))
      .filter((target) => /\.[cm]?ts$/.test(target) && existsSync(target))
    graph.set(relative(root, file), [...new Set(targets.map((target) => relative(root, target)))])
  }
  return graph
}

/** The import circles of `graph`: its strongly connected components of more than one file, and files importing themselves (Tarjan). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    onStack.add(file)
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(file, Math.min(low.get(file)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort())
  }
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file)
  return circles
}

describe('no import circles', () => {
  it('src/ has none (value and type imports both count)', () => {
    const graph = importGraph(src)
    // The walk saw the real graph: the pipeline imports the streaming tools.
    expect(graph.get(join('runtime', 'pipeline.ts'))).toContain(join('runtime', 'streaming.ts'))
    expect(importCircles(graph)).toEqual([])
  })

  it('finds a circle through files, a type import and a self-import', () => {
    const tmp = join(import.meta.dirname, '..', '.tmp')
    mkdirSync(tmp, { recursive: true })
    const dir = mkdtempSync(join(tmp, 'circles-'))
    try {
      mkdirSync(join(dir, 'a'))
      writeFileSync(join(dir, 'a', 'one.ts'), "import { two } from '../two.ts'\nexport const one = two\n")
      writeFileSync(join(dir, 'two.ts'), "import type { Three } from './three.ts'\nexport const two = 2 as unknown as Three\n")
      writeFileSync(join(dir, 'three.ts'), "export { one as Three } from './a/one.ts'\n")
      writeFileSync(join(dir, 'self.ts'), "import './self.ts'\n")
      writeFileSync(join(dir, 'leaf.ts'), "import { two } from './two.ts'\nexport default two\n")
      expect(importCircles(importGraph(dir))).toEqual([[join('a', 'one.ts'), 'three.ts', 'two.ts'], ['self.ts']])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/**
 * What a line of code does with a dependency's private (underscore) members:
 * reads or writes one (`x._streamMapping`, `x['_closed']`), or overrides one
 * (`override _wrapHandler`). `_meta` is the protocol's own field name.
 */
const PRIVATE_MEMBER_RE = [/\.\s*_(?!meta\b)[A-Za-z]\w*/, /\[\s*['"`]_(?!meta\b)\w+['"`]\s*\]/, /\boverride\s+_\w+/]

/** The lines of `text` touching a private member, as `line: text`. */
function privateMemberUses(text: string): string[] {
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => PRIVATE_MEMBER_RE.some((re) => re.test(line)))
    .map(({ line, index }) => `${index + 1}: ${line.trim()}`)
}

/**
 * The one underscore member still used, and why: `_wrapHandler`, the SDK
 * `Server`'s subclass hook (declared `protected` in its types and documented
 * as the hook for wrapping registered handlers, unlike the transport's
 * `private` maps the session transport replaced). serving/sdk-server.ts
 * overrides it to see a raw `tools/call` before the SDK's own checks (null
 * arguments, a task as the answer) and to put `serveRequest` around every
 * handler. No other public hook does both, so it stays, on purpose.
 */
const PROTECTED_HOOK = { file: join('server', 'serving', 'sdk-server.ts'), member: '_wrapHandler' }

describe('no private members of the MCP SDK', () => {
  // server/ is the only folder importing the SDK (above): its objects live there.
  it('no file of server/ reads, writes or overrides an underscore member (`_meta`, the protocol field, aside)', () => {
    const uses = filesUnder(join(src, 'server')).flatMap((file) =>
      privateMemberUses(readFileSync(file, 'utf8'))
        .filter((use) => !(relative(src, file) === PROTECTED_HOOK.file && use.includes(PROTECTED_HOOK.member)))
        .map((use) => `${relative(src, file)}:${use}`),
    )
    expect(uses).toEqual([])
  })

  it('the protected hook is used where the exception says, and only there', () => {
    const text = readFileSync(join(src, PROTECTED_HOOK.file), 'utf8')
    expect(privateMemberUses(text).length).toBeGreaterThan(0)
    const elsewhere = filesUnder(join(src, 'server'))
      .filter((file) => relative(src, file) !== PROTECTED_HOOK.file)
      .filter((file) => readFileSync(file, 'utf8').includes(PROTECTED_HOOK.member))
    expect(elsewhere).toEqual([])
  })

  it('the check can fail: it finds a read, a write, a bracket read and an override, and lets _meta through', () => {
    const sample = [
      'const open = transport._streamMapping.get(id)',
      'transport._closed = true',
      "const r = transport['_scopeChallengeResolver']",
      'protected override _wrapHandler(method: string) {}',
      'const meta = params._meta',
      'const m = ctx.mcpReq._meta as object',
    ].join('\n')
    expect(privateMemberUses(sample).map((use) => Number(use.split(':')[0]))).toEqual([1, 2, 3, 4])
  })
})

describe('one home per concept', () => {
  /** Code lines (comments left out) of every file under src/ but `except`, that match `re`, as `file: line`. */
  const linesMatching = (re: RegExp, except: readonly string[]): string[] =>
    filesUnder(src)
      .filter((file) => !except.includes(relative(src, file)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(?:\*|\/\/|\/\*)/.test(line) && re.test(line))
          .map((line) => `${relative(src, file)}: ${line.trim()}`),
      )

  it('the shared defaults are written only in contract/defaults.ts (profile, version, path, TTLs, HTTP and event limits)', () => {
    const defaults = join('contract', 'defaults.ts')
    const names = [...readFileSync(join(src, defaults), 'utf8').matchAll(/^export const (\w+)/gm)].map((m) => m[1]!)
    expect(names).toEqual(expect.arrayContaining(['DEFAULT_PROFILE', 'DEFAULT_SESSION_IDLE_MS', 'DEFAULT_MAX_EVENTS', 'MAX_BODY_BYTES']))
    const redefined = new RegExp(`^export const (?:${names.join('|')})\\b`)
    const LITERAL_RE = /\?\?\s*'(?:portable|0\.0\.0|\/mcp)'|=\s*'(?:\/mcp|0\.0\.0)'|\b(?:10 \* 60_000|600_000)\b|\?\? 600\b|port = 3000/
    expect(linesMatching(redefined, [defaults])).toEqual([])
    expect(linesMatching(LITERAL_RE, [defaults])).toEqual([])
  })

  it('loopback is decided in contract/loopback.ts only', () => {
    const LOOPBACK_RE = /BlockList|\^127\(|::ffff:7f|=== '\[::1\]'/
    expect(linesMatching(LOOPBACK_RE, [join('contract', 'loopback.ts')])).toEqual([])
  })

  /** Whether `line` checks one value for a JSON object: its `typeof` against 'object', `null` and `Array.isArray` all of it. */
  const checksRecord = (line: string): boolean =>
    [...line.matchAll(/typeof ([\w$.]+) [!=]== 'object'/g)].some(([, v]) => {
      const at = v!.replace(/[$.]/g, '\\$&')
      return new RegExp(`Array\\.isArray\\(${at}\\)`).test(line) && new RegExp(`(?:^|[^\\w$.])${at} [!=]== null`).test(line)
    })

  it('the plain-object check is written only in contract/is-record.ts (isRecord)', () => {
    expect(checksRecord("if (x === null || typeof x !== 'object' || Array.isArray(x)) return")).toBe(true)
    expect(checksRecord("return typeof a.b === 'object' && a.b !== null && !Array.isArray(a.b)")).toBe(true)
    expect(checksRecord("if (x === null || typeof x !== 'object' || !Array.isArray(x.file))")).toBe(false)
    const bad = filesUnder(src)
      .filter((file) => ![join('contract', 'is-record.ts')].includes(relative(src, file)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(?:\*|\/\/|\/\*)/.test(line) && checksRecord(line))
          .map((line) => `${relative(src, file)}: ${line.trim()}`),
      )
    expect(bad).toEqual([])
  })

  it("the '2026-07-28' revision is written only in contract/protocol.ts (MODERN_REVISION)", () => {
    expect(linesMatching(/['"`]2026-07-28['"`]/, [join('contract', 'protocol.ts')])).toEqual([])
  })

  it("a request's era is decided in server/http/inbound.ts only (the SDK's classifier, once per request: docs/internals.md, One call path)", () => {
    const inbound = join('server', 'http', 'inbound.ts')
    const CLASSIFY_RE = /\b(?:classifyInboundRequest|isLegacyRequest)\b/
    expect(linesMatching(CLASSIFY_RE, [inbound])).toEqual([])
    expect(linesMatching(CLASSIFY_RE, [])).not.toEqual([])
  })

  it("a tools/call's tool is found and its result settled in server/serving/tool-call.ts only, whichever path the call took", () => {
    const toolCall = join('server', 'serving', 'tool-call.ts')
    // The steps: the search mode's unwrapping, the lookup of a visible tool, the rounds' result, the result made sendable.
    const STEP_RE = /\.unwrap\(|\.lookupTool\(|\binputRequiredOf\(|import \{[^}]*\banswered\b[^}]*\} from/
    expect(linesMatching(STEP_RE, [toolCall, join('server', 'primitives', 'requests-to-client.ts')])).toEqual([])
    expect(linesMatching(STEP_RE, [])).not.toEqual([])
  })

  it('each exported type or interface name is declared once in src/', () => {
    const declared = new Map<string, string[]>()
    for (const file of filesUnder(src))
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/^export (?:interface|type|class) (\w+)\b/gm))
        declared.set(name!, [...(declared.get(name!) ?? []), relative(src, file)])
    expect([...declared].filter(([, files]) => files.length > 1)).toEqual([])
  })
})

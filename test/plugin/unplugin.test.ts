/**
 * The plugin's options and hooks, through real Rollup builds of the
 * fixture apps (in memory) and through the raw hooks.
 */
import { dirname, join, resolve } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'
import { MCP_QUERY, PLUGIN_NAME, unpluginProtoMcp } from '../../src/plugin/index.ts'
import protoMcp from '../../src/entries/index.ts'
import type { Options } from '../../src/entries/index.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const APPS = resolve(import.meta.dirname, '..', '..', 'fixtures', 'apps')

const isBare = (id: string): boolean => !id.startsWith('.') && !id.startsWith('/') && !id.endsWith('?mcp')

/** Builds `entry` with Rollup in memory; the code of the single chunk and the warnings. */
async function build(entry: string, options?: Options): Promise<{ code: string; warnings: string[] }> {
  const warnings: string[] = []
  const bundle = await rollup({
    input: entry,
    plugins: [unpluginProtoMcp.rollup(options)],
    external: isBare,
    onwarn: (w) => {
      warnings.push(w.message)
    },
  })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  return { code: output[0].code, warnings }
}

/** The raw hooks, as unplugin hands them to a bundler. */
function hooks(options?: Options) {
  const raw = unpluginProtoMcp.raw(options, { framework: 'rollup', versions: {} })
  const resolveId = raw.resolveId as { handler: (id: string, importer?: string) => string | null }
  return { raw, resolveId: (id: string, importer?: string) => resolveId.handler.call({} as never, id, importer) }
}

describe('entry points', () => {
  it('the default export is the unplugin instance', () => {
    expect(protoMcp).toBe(unpluginProtoMcp)
    for (const bundler of ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const)
      expect(typeof protoMcp[bundler]).toBe('function')
  })

  it('runs first in Vite and names itself', () => {
    const { raw } = hooks()
    expect(raw.name).toBe(PLUGIN_NAME)
    expect(raw.enforce).toBe('pre')
  })
})

describe('resolveId', () => {
  const importer = join(APPS, 'watch', 'main.mjs')

  it('resolves a relative .proto?mcp against the importer', () => {
    expect(hooks().resolveId('./vibe.proto?mcp', importer)).toBe(join(APPS, 'watch', 'vibe.proto') + MCP_QUERY)
    expect(hooks().resolveId('../errors/syntax.proto?mcp', `${importer}?v=1`)).toBe(join(APPS, 'errors', 'syntax.proto?mcp'))
  })

  it('keeps an absolute path and ignores ids that are not .proto?mcp', () => {
    const abs = join(APPS, 'watch', 'vibe.proto?mcp')
    expect(hooks().resolveId(abs, importer)).toBe(abs)
    expect(hooks().resolveId('./vibe.proto', importer)).toBeNull()
  })

  it('accepts query parameters a dev server appends after ?mcp', () => {
    expect(hooks().resolveId('./vibe.proto?mcp&t=123', importer)).toBe(join(APPS, 'watch', 'vibe.proto?mcp'))
    expect(hooks().resolveId('./vibe.proto?mcpx', importer)).toBeNull()
  })

  it("resolves relative importPaths against the project root (Vite's root here)", () => {
    const { raw, resolveId } = hooks({ importPaths: ['protos'] })
    const vite = raw.vite as { configResolved: (config: { root: string }) => void }
    vite.configResolved({ root: join(APPS, 'import-paths') })
    expect(resolveId('shared/types.proto?mcp', importer)).toBe(join(APPS, 'import-paths', 'protos', 'shared', 'types.proto?mcp'))
  })

  it('reads an absolute id that is no file as relative to the project root (Vite URLs)', () => {
    const { raw, resolveId } = hooks()
    const vite = raw.vite as { configResolved: (config: { root: string }) => void }
    vite.configResolved({ root: join(APPS, 'watch') })
    expect(resolveId('/vibe.proto?mcp')).toBe(join(APPS, 'watch', 'vibe.proto?mcp'))
    expect(resolveId('/nowhere.proto?mcp')).toBe('/nowhere.proto?mcp')
  })

  it('finds a bare .proto?mcp through importPaths', () => {
    const { resolveId } = hooks({ importPaths: [join(APPS, 'import-paths', 'protos')] })
    expect(resolveId('shared/types.proto?mcp', importer)).toBe(join(APPS, 'import-paths', 'protos', 'shared', 'types.proto?mcp'))
    expect(resolveId('nowhere/types.proto?mcp', importer)).toBeNull()
  })
})

describe('include / exclude', () => {
  const importer = join(APPS, 'watch', 'main.mjs')

  it('include limits which .proto files are served', () => {
    const { resolveId } = hooks({ include: ['**/apps/watch/**'] })
    expect(resolveId('./vibe.proto?mcp', importer)).toBe(join(APPS, 'watch', 'vibe.proto?mcp'))
    expect(resolveId('../errors/syntax.proto?mcp', importer)).toBeNull()
  })

  it('exclude wins over include, and takes regular expressions', () => {
    const { resolveId } = hooks({ include: [/\.proto$/], exclude: /\/errors\// })
    expect(resolveId('./vibe.proto?mcp', importer)).toBe(join(APPS, 'watch', 'vibe.proto?mcp'))
    expect(resolveId('../errors/syntax.proto?mcp', importer)).toBeNull()
  })

  it('an excluded import is left to the bundler (which cannot resolve it)', async () => {
    await expect(build(join(APPS, 'watch', 'main.mjs'), { exclude: ['**/watch/*.proto'] })).rejects.toThrow(/vibe\.proto\?mcp/)
  })
})

describe('load', () => {
  it('emits the generated module: the runtime import, the tools, the server', async () => {
    const { code } = await build(join(APPS, 'watch', 'main.mjs'))
    expect(code).toContain("from 'unplugin-proto-mcp/codegen-v1'")
    expect(code).toMatch(/"name": "Echo"/)
    expect(code).toContain('name: "vibe"')
    expect(code).not.toMatch(/\brequire\s*\(/)
  })

  it('importPaths: an import found only there', async () => {
    const entry = join(APPS, 'import-paths', 'main.mjs')
    await expect(build(entry)).rejects.toThrow(/shared\/types\.proto/)
    const { code } = await build(entry, { importPaths: [join(APPS, 'import-paths', 'protos')] })
    expect(code).toMatch(/"name": "Lookup"/)
    expect(code).toContain('"labelText"')
  })

  it('profile: topeka drops the extensions the default profile adds', async () => {
    const entry = join(APPS, 'basic', 'main.mjs')
    const byDefault = (await build(entry)).code
    const topeka = (await build(entry, { profile: 'topeka' })).code
    expect(byDefault).toContain('"outputSchema"')
    expect(topeka).not.toContain('"outputSchema"')
    // int64: a decimal string with a pattern by default (portable), Topeka's type array in the topeka profile.
    expect(byDefault).toContain('"pattern":"^-?[0-9]+$"')
    expect(topeka).not.toContain('"pattern":"^-?[0-9]+$"')
    expect(topeka).toMatch(/"type":\[\s*"integer",\s*"string"\s*\]/)
    expect(topeka).toContain('profile: "topeka"')
    expect(byDefault).toContain('profile: "portable"')
  })

  it('methods chooses the RPCs, methodScopes scopes them with the same globs (a glob matching none warns); toolTokenBudget cuts nested messages into placeholders', async () => {
    const dir = writeProtos({
      'deep.proto':
        `syntax = "proto3";\npackage deep.v1;\nmessage Leaf { ${Array.from({ length: 20 }, (_, i) => `string field_${i} = ${i + 1};`).join(' ')} }\n` +
        'message Req { Leaf leaf = 1; }\nservice S { rpc Get(Req) returns (Req); rpc Drop(Req) returns (Req); }\n',
      'main.mjs': "import server from './deep.proto?mcp'\nexport default server\n",
    })
    const { code, warnings } = await build(join(dir, 'main.mjs'), {
      methods: { include: ['deep.v1.S.*'], exclude: ['deep.v1.S.Drop', 'deep.v1.T.*'] },
      methodScopes: { 'deep.**.G?t': 'deep.read', 'deep.v1.S.Drop': 'deep.write' },
      toolTokenBudget: 100,
      typeTool: 'leaf_schema',
    })
    expect(code).toMatch(/"name": "Get"/)
    expect(code).not.toMatch(/"name": "Drop"/)
    expect(code).toContain('"scopes": ["deep.read"]')
    expect(warnings.join('\n')).toContain('methods pattern "deep.v1.T.*" matches no RPC')
    expect(warnings.join('\n')).toContain('methodScopes glob "deep.v1.S.Drop" matches no RPC that has a tool')
    expect(code).toContain('JSON text of deep.v1.Leaf; schema: leaf_schema')
    expect(code).toContain('const types = ')
  })

  it("reports the stages' warnings through the bundler", async () => {
    const { code, warnings } = await build(join(APPS, 'warnings', 'main.mjs'))
    expect(warnings.join('\n')).toMatch(/streaming\.proto: .*warnings\.v1\.UploadService\.Upload \(client-streaming\)/)
    expect(code).toMatch(/"name": "Ping"/)
    expect(code).not.toMatch(/"name": "Upload"/)
  })
})

describe('watch files of a failed build', () => {
  // Regression: with a → b → c broken in c, only a and c were watched, so
  // editing b to drop its import of c did not rebuild.
  it('watches every .proto read before the failure, intermediate imports too', async () => {
    const dir = writeProtos({
      'a.proto': 'syntax = "proto3";\nimport "b.proto";\nmessage A {}\nservice S { rpc Go(A) returns (A); }\n',
      'b.proto': 'syntax = "proto3";\nimport "c.proto";\n',
      'c.proto': 'syntax = "proto3";\nmessage C { Nope n = 1; }\n',
    })
    const raw = unpluginProtoMcp.raw(undefined, { framework: 'rollup', versions: {} })
    const load = raw.load as { handler: (id: string) => Promise<unknown> }
    const watched: string[] = []
    const context = {
      addWatchFile: (file: string) => {
        watched.push(file)
      },
      warn: () => {},
      error: () => {},
    }
    await expect(load.handler.call(context as never, join(dir, 'a.proto') + MCP_QUERY)).rejects.toThrow(/unknown type "Nope"/)
    expect([...watched].sort()).toEqual(['a.proto', 'b.proto', 'c.proto'].map((f) => join(dir, f)))
  })

  it('a proto without a service builds, with a warning saying so (not silence)', async () => {
    const dir = writeProtos({ 'types.proto': 'syntax = "proto3";\nmessage Only { string a = 1; }\n' })
    const raw = unpluginProtoMcp.raw(undefined, { framework: 'rollup', versions: {} })
    const load = raw.load as { handler: (id: string) => Promise<{ code: string }> }
    const warnings: string[] = []
    const context = { addWatchFile: () => {}, warn: (message: string) => warnings.push(message), error: () => {} }
    const built = await load.handler.call(context as never, join(dir, 'types.proto') + MCP_QUERY)
    expect(built.code).toContain('createProtoServer')
    expect(warnings).toEqual([
      `${join(dir, 'types.proto')}: declares no service, so it builds no tools (import the .proto that declares the service, or add a service with an rpc)`,
    ])
  })
})

describe('a bad .proto: the bundler header and the message name one place', () => {
  /** What a failing Rollup and Vite build throw, with the header each prints from `id` and `loc`. */
  async function failure(entry: string): Promise<{ message: string; headers: string[] }> {
    const thrown = (await build(entry).then(
      () => undefined,
      (e: unknown) => e,
    )) as { id: string; loc: { line: number; column: number }; message: string }
    const { build: viteBuild } = await import('vite')
    const viteThrown = (await viteBuild({
      configFile: false,
      logLevel: 'silent',
      root: dirname(entry),
      plugins: [unpluginProtoMcp.vite()],
      build: { write: false, lib: { entry, formats: ['es'] }, rollupOptions: { external: isBare } },
    }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error
    // Rollup prints `id (line:column)` from `loc`; Vite's build prints its header line, `[plugin name] id:line:column`.
    const viteHeader = /^\[plugin [^\]]+\] (.*)$/m.exec(viteThrown.message)?.[1]
    return { message: thrown.message, headers: [`${thrown.id}:${thrown.loc.line}:${thrown.loc.column}`, viteHeader ?? ''] }
  }

  it('a syntax error: 1-based columns, one file:line:column', async () => {
    const proto = join(APPS, 'errors', 'syntax.proto')
    const { message, headers } = await failure(join(APPS, 'errors', 'syntax.mjs'))
    expect(headers).toEqual([`${proto}?mcp:7:3`, `${proto}?mcp:7:3`])
    expect(message).toContain(`: ${proto}:7:3: illegal token at column 3`)
    expect(message.split(`${proto}:`)).toHaveLength(2)
    expect(message).not.toContain('(line ')
  })

  it('a missing import: the header and the message say column 1', async () => {
    const proto = join(APPS, 'errors', 'missing-import.proto')
    const { message, headers } = await failure(join(APPS, 'errors', 'missing-import.mjs'))
    expect(headers).toEqual([`${proto}?mcp:5:1`, `${proto}?mcp:5:1`])
    expect(message).toContain(`${proto}:5:1: import "does/not/exist.proto" not found`)
  })
})

import { fileURLToPath } from 'node:url'
import { defineConfig } from 'tsdown'

/** Packages bundled into the JavaScript of dist/ rather than loaded from node_modules. */
export const INLINED = [
  /^ajv($|\/)/,
  /^ajv-formats($|\/)/,
  /^protobufjs($|\/)/,
  /^@protobufjs\//,
  'long',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
  'require-from-string',
]

/**
 * What a `?mcp` module needs when it loads, in two chunks (each module
 * Node loads costs a start a fraction of a millisecond): the shared base
 * (Ajv's run-time helpers, the bundle runtime, the contract; the plugin
 * imports the contract too) and the serving code of runtime/ and server/,
 * stdio included. Left to themselves, they share chunks with what loads on
 * first use (protobufjs, the HTTP transports), which every server start
 * would then parse. The Node build bundles no Ajv compiler for the runtime:
 * hand-written tools use the SDK's (src/server/validation/ajv-engine.ts).
 */
const EAGER_CHUNKS = [
  {
    name: 'runtime-base',
    test: /node_modules[\\/](?:ajv[\\/]dist[\\/]runtime[\\/]|ajv-formats[\\/]dist[\\/]formats|fast-deep-equal[\\/]|fast-uri[\\/])|^\0rolldown[\\/]runtime|[\\/]src[\\/]contract[\\/]/,
  },
  {
    name: 'serving',
    test: /[\\/]src[\\/](?:runtime|server)[\\/](?!http[\\/](?:http|stateless-handler|session-handler|session-map|session-transport|handler-io|http-auth)\.ts$|cluster[\\/]fleet\.ts$|protobufjs\.cjs$)/,
  },
]

/**
 * The HTTP handlers (stateless-handler.ts for `fetch()`, session-handler.ts
 * for `serveHttp()` with session-map.ts and session-transport.ts), what they share and the fleet's routing: one chunk
 * loaded on first use, as when they were one file (each chunk Node loads
 * costs a start).
 */
const HANDLERS_CHUNK = {
  name: 'handlers',
  test: /[\\/]src[\\/]server[\\/](?:http[\\/](?:stateless-handler|session-handler|session-map|session-transport|handler-io)\.ts|cluster[\\/]fleet\.ts)$/,
}

const PROTOBUF_FS_RE = /[\\/]protobufjs[\\/]src[\\/]util[\\/]fs\.js$/

/**
 * protobufjs's optional `fs` (only its `load` from files uses it, which
 * nothing here calls) through `process.getBuiltinModule`: a CommonJS
 * `require` of a builtin makes the ESM output build a `require` with
 * `node:module` as it loads, a cost of every server start.
 */
const protobufFs = {
  name: 'protobufjs-fs',
  load(id: string) {
    return PROTOBUF_FS_RE.test(id) ? "module.exports = globalThis.process?.getBuiltinModule?.('fs') ?? null\n" : null
  },
}

/**
 * The bundle runtime keeps `import "node:module"` (for a `createRequire`
 * no chunk uses since protobufFs) and loading that builtin costs every
 * server start: the line goes when nothing in the chunk uses it.
 */
const NODE_MODULE_IMPORT = 'import "node:module";\n'
const unusedNodeModule = {
  name: 'unused-node-module',
  generateBundle(_: unknown, bundle: Record<string, { type: string; code?: string }>) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type === 'chunk' && chunk.code!.startsWith(NODE_MODULE_IMPORT) && !chunk.code!.includes('createRequire'))
        chunk.code = chunk.code!.slice(NODE_MODULE_IMPORT.length)
    }
  },
}

// Every wrapper but ajv-formats' formats, which the generated validators read at load.
const LAZY_WRAPPER_RE = /^(var require_(?!formats =)[\w$]+ = \/\* @__PURE__ \*\/ __commonJSMin\()\(((?:[^\n]*\n)*?)\}\)\);$/gm

/**
 * The bundled CommonJS modules without the parentheses around their
 * wrapper (`__commonJSMin(((exports) => {...}))`): V8 compiles a
 * parenthesized function at once, where these run on first `require` if
 * ever (Ajv's compiler, protobufjs), so every start paid for compiling
 * them.
 */
const lazyWrappers = {
  name: 'lazy-commonjs-wrappers',
  generateBundle(_: unknown, bundle: Record<string, { type: string; name?: string; code?: string }>) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue
      chunk.code = chunk.code!.replace(LAZY_WRAPPER_RE, '$1$2});')
    }
  },
}

/** The web build's stand-ins for Node-only modules of server/ (each file says why). */
const WEB_MODULES: Record<string, string> = {
  'node-transports.ts': fileURLToPath(new URL('./src/server/transports/web-transports.ts', import.meta.url)),
  'ajv-engine.ts': fileURLToPath(new URL('./src/server/validation/ajv-engine-web.ts', import.meta.url)),
}

/**
 * What generated `?mcp` modules and users' programs load: the user's API
 * and the codegen subpath, sharing one chunk; and what an unserved codegen
 * version resolves to.
 */
export const RUNTIME_ENTRIES = {
  runtime: 'src/entries/runtime.ts',
  'codegen-v1': 'src/entries/codegen-v1.ts',
  'codegen-unserved': 'src/entries/codegen-unserved.ts',
}

// dist/<name>.mjs for each: the paths of package.json's `exports`.
const ENTRIES = {
  index: 'src/entries/index.ts',
  vite: 'src/entries/vite.ts',
  rollup: 'src/entries/rollup.ts',
  rolldown: 'src/entries/rolldown.ts',
  esbuild: 'src/entries/esbuild.ts',
  webpack: 'src/entries/webpack.ts',
  rspack: 'src/entries/rspack.ts',
  ...RUNTIME_ENTRIES,
  grpc: 'src/entries/grpc.ts',
  gateway: 'src/entries/gateway.ts',
  'client-rules': 'src/entries/client-rules.ts',
  postgres: 'src/entries/postgres.ts',
  cli: 'src/entries/cli.ts',
}

export default defineConfig([
  {
    entry: ENTRIES,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    dts: false,
    clean: true,
    sourcemap: false,
    // Node loads one file where these packages have hundreds of small
    // CommonJS modules, which is most of their import time (a server's cold start).
    deps: { alwaysBundle: INLINED },
    // The inlined packages are mostly JSDoc (protobufjs above all): less to parse at every start. Legal comments stay.
    outputOptions: {
      comments: { legal: true, annotation: true, jsdoc: false },
      codeSplitting: { groups: [...EAGER_CHUNKS, HANDLERS_CHUNK] },
    },
    plugins: [protobufFs, unusedNodeModule, lazyWrappers],
  },
  {
    // The declarations, built apart: they keep referring to the packages' own types.
    entry: ENTRIES,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    dts: { emitDtsOnly: true },
    clean: false,
    sourcemap: false,
  },
  {
    // The /__mcp/ page's script (page/app.js) with the MCP SDK's client
    // bundled in: the dev server serves dist/page/app.js (src/plugin/dev-page.ts).
    entry: { app: 'page/app.js' },
    outDir: 'dist/page',
    outExtensions: () => ({ js: '.js' }),
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    dts: false,
    clean: false,
    sourcemap: false,
    deps: { alwaysBundle: [/./] },
  },
  {
    // The runtime for Workers and browsers (the `workerd`, `worker` and
    // `browser` conditions of `./runtime` and `./codegen-v1`): the same API, no Node transports.
    entry: RUNTIME_ENTRIES,
    fixedExtension: true,
    outDir: 'dist/web',
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    dts: false,
    clean: false,
    sourcemap: false,
    // Inlined here too: Ajv's compiler stays a module evaluated on first use, and the output needs no `require`.
    deps: { alwaysBundle: INLINED },
    // `neutral` reads no `main` by default; Ajv's packages have nothing else.
    inputOptions: { resolve: { mainFields: ['module', 'main'] } },
    plugins: [
      {
        name: 'web-modules',
        resolveId: {
          // By file name: the specifier is relative to the importing file's folder.
          filter: { id: /^\.\.?\/(?:[\w-]+\/)*(?:node-transports|ajv-engine)\.ts$/ },
          handler: (source: string) => WEB_MODULES[source.slice(source.lastIndexOf('/') + 1)] ?? null,
        },
      },
    ],
  },
])

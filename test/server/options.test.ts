/**
 * Every option is checked where it is given: an unknown key or a wrong value
 * fails with one line naming the option, what it got and what it accepts.
 * The plugin (each bundler entry), `Server` options (`serveHttp`,
 * `nodeHandler`, `serveStdio`, `requestStateKey`, `logging`), the gRPC backends, and the
 * CLI's flags.
 */
import { describe, expect, it } from 'vitest'
import { parseCli } from '../../src/cli/args.ts'
import { grpc, grpcImplementation } from '../../src/entries/grpc.ts'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import { Server } from '../../src/entries/runtime.ts'

const P = 'unplugin-proto-mcp'

describe('plugin options', () => {
  const cases: [string, unknown, string][] = [
    ['a bogus profile', { profile: 'bogus' }, `${P}: option "profile" must be one of "portable", "strict", "full", "topeka", got "bogus"`],
    [
      'a bogus toolNames',
      { toolNames: 'nope' },
      `${P}: option "toolNames" must be "method", "service", "qualified" or a function of the RPC, got "nope"`,
    ],
    ['importPaths not an array', { importPaths: 5 }, `${P}: option "importPaths" must be an array of directory names, got 5`],
    [
      'importPaths of a number',
      { importPaths: ['protos', 5] },
      `${P}: option "importPaths" must be an array of directory names, got ["protos",5]`,
    ],
    [
      'an unknown key',
      { profiles: 'full' },
      `${P}: unknown option "profiles" (did you mean "profile"?): the options are importPaths, profile, toolNames, verbose, recursionDepth, toolNameBudget, shortenToolNames, toolTokenBudget, typeTool, methods, discovery, discoveryNames, methodScopes, resourceScheme, listResources, include, exclude, dts, dev`,
    ],
    [
      'toolTokenBudget of 10',
      { toolTokenBudget: 10 },
      `${P}: option "toolTokenBudget" must be false or a whole number from 100 to 1000000, got 10`,
    ],
    [
      'typeTool with a dot',
      { typeTool: 'describe.type' },
      `${P}: option "typeTool" must be a tool name of letters, digits and "_", got "describe.type"`,
    ],
    [
      'methods as an array',
      { methods: ['pkg.S.*'] },
      `${P}: option "methods" must be an object { include?, exclude? } of arrays of method names or globs, got ["pkg.S.*"]`,
    ],
    [
      'methods with an unknown key',
      { methods: { only: ['pkg.S.*'] } },
      `${P}: option "methods" must be an object { include?, exclude? } of arrays of method names or globs, got {"only":["pkg.S.*"]}`,
    ],
    ['recursionDepth of 0', { recursionDepth: 0 }, `${P}: option "recursionDepth" must be a whole number from 1 to 10, got 0`],
    [
      'toolNameBudget as a string',
      { toolNameBudget: '57' },
      `${P}: option "toolNameBudget" must be false or a whole number from 1 to 128, got "57"`,
    ],
    ['shortenToolNames as a string', { shortenToolNames: 'yes' }, `${P}: option "shortenToolNames" must be true or false, got "yes"`],
    ['verbose as a string', { verbose: 'yes' }, `${P}: option "verbose" must be true or false, got "yes"`],
    ['dts as a number', { dts: 1 }, `${P}: option "dts" must be true, false or a file name, got 1`],
    ['include as a number', { include: 3 }, `${P}: option "include" must be a glob, a RegExp or an array of them, got 3`],
    [
      'dev as a string',
      { dev: './src/mcp.ts' },
      `${P}: option "dev" must be an object { server, path?, loadTimeoutMs?, auth? }, got "./src/mcp.ts"`,
    ],
    [
      'dev without server',
      { dev: {} },
      `${P}: option "dev" needs "server", the module whose default export is the Server to serve, got none`,
    ],
    [
      'dev with an unknown key',
      { dev: { server: 'x', port: 1 } },
      `${P}: option "dev": unknown option "port": the options are server, path, loadTimeoutMs, auth`,
    ],
    [
      'dev.path without a slash',
      { dev: { server: 'x', path: 'mcp' } },
      `${P}: option "dev": option "path" must be a path starting with "/", got "mcp"`,
    ],
    [
      'dev.loadTimeoutMs not positive',
      { dev: { server: 'x', loadTimeoutMs: 0 } },
      `${P}: option "dev": option "loadTimeoutMs" must be a positive number of milliseconds, got 0`,
    ],
    ['options not an object', 'full', `${P}: options must be an object, got "full"`],
  ]
  it.each(cases)('%s fails in every bundler entry', (_what, options, message) => {
    for (const bundler of ['vite', 'rollup', 'rolldown', 'esbuild'] as const) {
      expect(() => (unpluginProtoMcp[bundler] as (o: unknown) => unknown)(options), bundler).toThrow(message)
    }
    // webpack and Rspack create the plugin when the compiler applies it.
    const compiler = { options: { context: process.cwd() }, webpack: { version: '5.0.0' }, rspack: { version: '2.0.0' } }
    for (const bundler of ['webpack', 'rspack'] as const) {
      const plugin = (unpluginProtoMcp[bundler] as (o: unknown) => { apply(c: unknown): void })(options)
      expect(() => plugin.apply(compiler), bundler).toThrow(message)
    }
  })

  it('accepts every valid option', () => {
    expect(() =>
      unpluginProtoMcp.vite({
        importPaths: ['protos'],
        profile: 'strict',
        toolNames: () => 'x',
        verbose: true,
        include: [/a/, 'b'],
        exclude: null as never,
        dts: 'types.d.ts',
        dev: { server: './src/mcp.ts', path: '/mcp', loadTimeoutMs: 5000 },
      }),
    ).not.toThrow()
    expect(() => unpluginProtoMcp.vite({ profile: undefined })).not.toThrow()
  })
})

describe('Server options', () => {
  const server = Server.builder('opts').build()
  const cases: [string, () => Promise<unknown> | unknown, string][] = [
    [
      'serveHttp: a port out of range',
      () => server.serveHttp({ port: 70000 }),
      'serveHttp(): option "port" must be an integer from 0 to 65535, got 70000',
    ],
    [
      'serveHttp: a port as a string',
      () => server.serveHttp({ port: '3000' as never }),
      'serveHttp(): option "port" must be an integer from 0 to 65535, got "3000"',
    ],
    [
      'serveHttp: an unknown key',
      () => server.serveHttp({ hots: '0.0.0.0' } as never),
      'serveHttp(): unknown option "hots": the options are ',
    ],
    [
      'serveHttp: a path without a slash',
      () => server.serveHttp({ path: 'mcp' }),
      'serveHttp(): option "path" must be a path starting with "/", got "mcp"',
    ],
    [
      'serveHttp: allowedHosts as a string',
      () => server.serveHttp({ allowedHosts: 'example.com' as never }),
      'serveHttp(): option "allowedHosts" must be an array of non-empty strings, got "example.com"',
    ],
    [
      'serveHttp: sessionIdleMs negative',
      () => server.serveHttp({ sessionIdleMs: -1 }),
      'serveHttp(): option "sessionIdleMs" must be an integer of at least 1, got -1',
    ],
    [
      'nodeHandler: an unknown key',
      () => server.nodeHandler({ port: 1 } as never),
      'nodeHandler(): unknown option "port": the options are ',
    ],
    [
      'serveStdio: stdin a string',
      () => server.serveStdio({ stdin: 'x' as never }),
      'serveStdio(): option "stdin" must be a readable stream, got "x"',
    ],
    [
      'serveStdio: an unknown key',
      () => server.serveStdio({ stderr: process.stderr } as never),
      'serveStdio(): unknown option "stderr": the options are stdin, stdout, maxLineBytes, logger, onError',
    ],
    [
      'serveStdio: logger a function',
      () => server.serveStdio({ logger: (() => {}) as never }),
      'serveStdio(): option "logger" must be false or an object with warn, error and info functions (any may be left out), got a function',
    ],
    [
      'serveHttp: logger with a string warn',
      () => server.serveHttp({ logger: { warn: 'x' } as never }),
      'serveHttp(): option "logger" must be false or an object with warn, error and info functions (any may be left out), got {"warn":"x"}',
    ],
    [
      'nodeHandler: onError not a function',
      () => server.nodeHandler({ onError: true as never }),
      'nodeHandler(): option "onError" must be a function (error, where), got true',
    ],
    [
      'logging(): logger true',
      () => Server.builder('l').logging({ logger: true as never }),
      'logging(): option "logger" must be false or an object with warn, error and info functions (any may be left out), got true',
    ],
    [
      'logging(): an unknown key',
      () => server.logging({ log: console } as never),
      'logging(): unknown option "log": the options are logger, onError',
    ],
    [
      'requestStateKey: a number',
      () => Server.builder('k').requestStateKey(5 as never),
      'requestStateKey(): the key must be a Uint8Array or a string of at least 32 bytes, got 5',
    ],
    [
      'requestStateKey: a key of 31 bytes',
      () => Server.builder('k').requestStateKey('k'.repeat(31)),
      'requestStateKey(): the key must be a Uint8Array or a string of at least 32 bytes, got "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"',
    ],
    [
      'requestStateKey: ttlSeconds 0',
      () => Server.builder('k').requestStateKey('k'.repeat(32), { ttlSeconds: 0 }),
      'requestStateKey(): option "ttlSeconds" must be an integer of at least 1, got 0',
    ],
    [
      'grpc: an unknown key',
      () => grpc('127.0.0.1:1', { deadline: 5 } as never),
      'grpc(): unknown option "deadline" (did you mean "deadlineMs"?): the options are credentials, channelOptions, forwardHeaders, metadata, principalMetadata, callMetadata, deadlineMs, reconnectWaitMs, streamCap',
    ],
    [
      'grpc: streamCap 0',
      () => grpc('127.0.0.1:1', { streamCap: 0 }),
      'grpc(): option "streamCap" must be an integer of at least 1, got 0',
    ],
    [
      'grpcImplementation: forwardHeaders a string',
      () => grpcImplementation({}, { forwardHeaders: 'x' as never }),
      'grpcImplementation(): option "forwardHeaders" must be an array of non-empty strings, got "x"',
    ],
  ]
  it.each(cases)('%s', async (_what, run, message) => {
    let error: unknown
    try {
      await run()
    } catch (caught) {
      error = caught
    }
    expect(error, 'it did not fail').toBeInstanceOf(Error)
    expect((error as Error).message).toContain(message)
    expect((error as Error).message).not.toContain('\n')
    expect((error as { code?: string }).code).toBe('BAD_OPTION')
  })
})

describe('CLI flags', () => {
  const base = ['serve', 'x.proto', '--grpc', '127.0.0.1:1']
  const cases: [string, string[], string][] = [
    ['--profile', ['--profile', 'bogus'], '--profile must be one of portable, strict, full, topeka, got "bogus"'],
    ['--tool-names', ['--tool-names', 'nope'], '--tool-names must be method, service or qualified, got "nope"'],
    ['--http', ['--http', 'x'], '--http must be an integer from 0 to 65535, got "x"'],
    ['--deadline', ['--deadline', '0'], '--deadline must be an integer from 1 to 2147483647, got "0"'],
    ['--host empty', ['--host', ''], '--host must be an address, got ""'],
    ['--allowed-host empty', ['--http', '0', '--allowed-host', ''], '--allowed-host must be a host name, got ""'],
    ['--forward-header empty', ['--forward-header', ''], '--forward-header must be a header name, got ""'],
    ['--import-path empty', ['-I', ''], '--import-path must be a directory, got ""'],
    ['an unknown flag', ['--hots', 'x'], "unknown option '--hots'"],
  ]
  it.each(cases)('%s', (_what, flags, message) => {
    expect(() => parseCli([...base, ...flags])).toThrow(message)
  })
})

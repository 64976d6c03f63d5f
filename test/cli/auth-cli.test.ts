/**
 * `proto-mcp serve --http --auth-issuer ...` against a real OpenID provider
 * and a real grpc-js server: the SDK client authorizes itself, `--method-scope`
 * hides the write RPCs from a read-only token, and the backend gets
 * `--principal-metadata`, never the token. Plus the flags' usage errors.
 */
import { spawn } from 'node:child_process'
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCli } from '../../src/cli/args.ts'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { cliWarning, scopeWarnings } from '../../src/cli/serve.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { builtCli, startCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

let cli: string
let oidc: OidcProvider
let grpcServer: GrpcTestServer
const vibe = vibeService()

beforeAll(async () => {
  ;[cli, oidc] = await Promise.all([builtCli(), startOidcProvider()])
  grpcServer = await startGrpcServer([vibe])
}, 180_000)
afterAll(async () => {
  await grpcServer?.stop()
  await oidc?.close()
})

describe('proto-mcp serve --http with --auth-issuer', () => {
  it('a read-only client steps up to GetVibe and is refused SetVibe; the backend gets the principal metadata and no token', async () => {
    const args = [
      ...['serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0'],
      ...['--auth-issuer', oidc.issuer, '--auth-scope', 'mcp'],
      ...['--method-scope', 'examples.v1.VibeService.Set*=notes.write', '--method-scope', 'examples.v1.VibeService.*=notes.read'],
      ...['--principal-metadata', 'x-user=sub', '--principal-metadata', 'x-scopes=scope'],
    ]
    const running = await startCli(cli, [...args])
    const { child } = running
    const url = running.url
    const exited = running.exited
    try {
      const unauthenticated = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp"')
      const provider = new ClientCredentialsProvider({ clientId: 'reader', clientSecret: 'reader-secret', expectedIssuer: oidc.issuer })
      const client = new Client({ name: 'cli-auth', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }))
      // The 401 named only --auth-scope: every tool here needs more.
      expect(
        provider.tokens()?.scope ?? JSON.parse(Buffer.from(provider.tokens()!.access_token.split('.')[1]!, 'base64url').toString()).scope,
      ).toBe('mcp')
      expect((await client.listTools()).tools).toEqual([])
      const before = vibe.received.length
      // GetVibe's 403 insufficient_scope: the client asks for notes.read, gets it, calls again.
      expect(await client.callTool({ name: 'GetVibe', arguments: {} })).toMatchObject({ isError: false })
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['GetVibe'])
      const metadata = vibe.received[before]!.metadata
      expect(metadata.get('authorization')).toEqual([])
      expect(metadata.get('x-user')).toEqual(['reader'])
      expect(metadata.get('x-scopes')).toEqual(['mcp notes.read'])
      // SetVibe needs notes.write, which the provider does not give this client: refused, and never sent.
      await expect(client.callTool({ name: 'SetVibe', arguments: { vibe: 'x' } })).rejects.toThrow(/scope/)
      expect(vibe.received.length).toBe(before + 1)
      await client.close()
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })

  it('an issuer that does not answer stops the start with one line', async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [cli, 'serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0', '--auth-issuer', 'http://127.0.0.1:9'],
        { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      child.on('close', (code) => resolve({ code, stderr }))
    })
    expect(run.code).toBe(1)
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(
      /^proto-mcp: cannot serve with --auth-issuer: cannot discover the authorization server http:\/\/127\.0\.0\.1:9: no discovery document answers/,
    )
  })
})

describe('the --auth flags', () => {
  const serve = ['serve', 'x.proto', '--grpc', 'a:1']
  it('parse into the auth option, method scopes and principal metadata; the default forwarding drops authorization', () => {
    const command = parseCli([
      ...serve,
      ...['--http', '0', '--auth-issuer', 'https://auth.example.com', '--auth-resource', 'https://mcp.example.com/mcp'],
      ...[
        '--auth-scope',
        'mcp',
        '--method-scope',
        'a.B.Delete*=w',
        '--method-scope',
        'a.B.Delete*=x',
        '--principal-metadata',
        'x-user=sub',
        ...['--auth-audience', 'api://notes', '--auth-audience', 'notes-app'],
        ...['--auth-scope-claim', 'scp', '--auth-scope-claim', 'roles', '--auth-scoped-tools', 'hide'],
      ],
    ])
    expect(command).toMatchObject({
      auth: {
        issuer: ['https://auth.example.com'],
        resource: 'https://mcp.example.com/mcp',
        scopes: ['mcp'],
        audience: ['api://notes', 'notes-app'],
        scopeClaim: ['scp', 'roles'],
        scopedTools: 'hide',
      },
      methodScopes: { 'a.B.Delete*': ['w', 'x'] },
      principalMetadata: { 'x-user': 'sub' },
      forwardHeaders: ['traceparent'],
    })
    expect(parseCli([...serve])).toMatchObject({ forwardHeaders: ['authorization', 'traceparent'], methodScopes: {} })
  })

  const usage: Array<[string, string[], string]> = [
    ['--auth-issuer without --http', ['--auth-issuer', 'https://a.example'], '--auth-issuer needs --http'],
    ['an http:// issuer off loopback', ['--http', '0', '--auth-issuer', 'http://a.example'], '--auth-issuer must be an issuer URL'],
    ['--method-scope without --auth-issuer', ['--method-scope', 'a.B.*=r'], '--method-scope needs --auth-issuer'],
    ['--principal-metadata without --auth-issuer', ['--principal-metadata', 'x=sub'], '--principal-metadata needs --auth-issuer'],
    ['--auth-audience without --auth-issuer', ['--auth-audience', 'api://x'], '--auth-audience needs --auth-issuer'],
    [
      'a --auth-scoped-tools that is neither',
      ['--http', '0', '--auth-issuer', 'https://a.example', '--auth-scoped-tools', 'show'],
      '--auth-scoped-tools must be "hide" or "step-up", got "show"',
    ],
    [
      '--forward-header authorization with --auth-issuer',
      ['--http', '0', '--auth-issuer', 'https://a.example', '--forward-header', 'Authorization'],
      "--forward-header authorization would pass the client's token",
    ],
    [
      'a --method-scope without =',
      ['--http', '0', '--auth-issuer', 'https://a.example', '--method-scope', 'a.B.*'],
      '--method-scope must be glob=scope',
    ],
    [
      'a scope with a space',
      ['--http', '0', '--auth-issuer', 'https://a.example', '--auth-scope', 'a b'],
      '--auth-scope must be an array of OAuth scope tokens',
    ],
  ]
  for (const [what, args, message] of usage) {
    it(`${what} is a usage error`, () => {
      expect(() => parseCli([...serve, ...args])).toThrow(message)
    })
  }

  it('warns of scoped tools without --auth-issuer, and of a --method-scope matching no RPC as a build warning in its own words', () => {
    const tools = [{ name: 'Get', scopes: ['r'] }, { name: 'Put' }]
    expect(scopeWarnings(tools, {})).toEqual([
      '1 tool needs OAuth scopes (Get): without --auth-issuer no caller has a scope, so they are not served',
    ])
    expect(scopeWarnings(tools, { auth: { issuer: 'https://a.example' } })).toEqual([])
    const { warnings } = buildServerSpec(EXAMPLE_PROTO, { methodScopes: { 'examples.v1.VibeService.Gte*': 'r', 'examples.**.Set*': 'w' } })
    expect(warnings.filter((w) => w.code === 'METHOD_PATTERN_UNMATCHED').map((w) => cliWarning(w).message)).toEqual([
      'methodScopes glob "examples.v1.VibeService.Gte*" matches no RPC that has a tool ' +
        '(check the full name, package.Service.Method, given to --include-method, --exclude-method or --method-scope)',
    ])
  })
})

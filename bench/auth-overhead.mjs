/**
 * Authorization's cost per call: a 2026-07-28 `tools/call` (SetVibeDetails,
 * the medium request) POSTed over loopback HTTP to `serveHttp()` with the
 * `auth` option and a bearer JWT from a real OpenID provider
 * (`oidc-provider`, ES256 key, JWKS fetched once and cached), vs the same
 * request to the same server's `serveHttp()` without `auth`, one call at a
 * time, same run. Target ≤ 1.1× (docs/serving.md, "Authorization"). The figure is CPU
 * time per call (the process's user + system time: client and server both
 * run in it), which other processes on a shared machine disturb far less
 * than wall time; the wall-time ratio is in the note. `auth-overhead`: one
 * token for every call (as a client sends it); `auth-overhead-fresh-token`:
 * a token not verified before on every call.
 */
import { createServer } from 'node:http'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'
import { backend, CASES, EXAMPLE_PROTO, modernCall } from './lib/example.mjs'
import { median, record } from './lib/measure.mjs'
import { writeModule } from './lib/module.mjs'

/** An OpenID provider on loopback minting JWT access tokens for `resource` by client credentials. */
async function startProvider(resource) {
  const http = createServer()
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${http.address().port}`
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] },
    clients: [
      {
        client_id: 'bench',
        client_secret: 'bench-secret',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    scopes: ['mcp'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'mcp',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    ttl: { ClientCredentials: 3600 },
  })
  http.on('request', provider.callback())
  const mint = async () => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('bench:bench-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp', resource }),
    })
    const { access_token: token } = await response.json()
    if (!token) throw new Error('auth-overhead: the provider gave no token')
    return token
  }
  return { issuer, mint, close: () => new Promise((resolve) => (http.closeAllConnections(), http.close(resolve))) }
}

/** More tokens than the server remembers verified (1000, src/server/http/http-auth.ts): cycling through them, every call verifies a signature. */
const FRESH_TOKENS = 1200

export default {
  name: 'auth-overhead',
  ids: ['auth-overhead', 'auth-overhead-fresh-token'],
  async run() {
    // The provider's own start-up notices are not the bench's output.
    const warn = console.warn
    console.warn = () => {}
    const { default: server } = await import(await writeModule(EXAMPLE_PROTO, 'example'))
    server.implement('VibeService', backend)
    server.logging({ logger: false })
    const open = await server.serveHttp({ port: 0 })
    // The resource must be known before the token is minted: the protected server's port is picked first.
    const probe = createServer()
    await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = probe.address().port
    await new Promise((resolve) => probe.close(resolve))
    const resource = `http://127.0.0.1:${port}/mcp`
    const provider = await startProvider(resource)
    console.warn = warn
    const guarded = await server.serveHttp({ port, auth: { issuer: provider.issuer, resource } })
    const { tool, args } = CASES.medium
    const { body, headers } = modernCall(tool, args)
    const call = async (url, extra) => {
      const response = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body })
      const text = await response.text()
      if (response.status !== 200) throw new Error(`auth-overhead: ${url} answered ${response.status}: ${text}`)
      return text
    }
    try {
      const bearer = { authorization: `Bearer ${await provider.mint()}` }
      const fresh = []
      while (fresh.length < FRESH_TOKENS) fresh.push(...(await Promise.all(Array.from({ length: 20 }, provider.mint))))
      let next = 0
      const ours = await call(guarded.url, bearer)
      const theirs = await call(open.url, {})
      if (ours !== theirs) throw new Error(`auth-overhead: results differ: ${ours} vs ${theirs}`)
      const refused = await fetch(guarded.url, { method: 'POST', headers, body })
      if (refused.status !== 401) throw new Error(`auth-overhead: the guarded server answered ${refused.status} without a token`)
      await refused.text()
      const ops = 200
      const sides = {
        ours: () => call(guarded.url, bearer),
        fresh: () => call(guarded.url, { authorization: `Bearer ${fresh[next++ % FRESH_TOKENS]}` }),
        baseline: () => call(open.url, {}),
      }
      const cpu = { ours: [], fresh: [], baseline: [] }
      const wall = { ours: [], fresh: [], baseline: [] }
      // One batch of `ops` calls: CPU and wall µs per call.
      const batch = async (side) => {
        const cpuStart = process.cpuUsage()
        const wallStart = process.hrtime.bigint()
        for (let i = 0; i < ops; i++) await sides[side]()
        const used = process.cpuUsage(cpuStart)
        return [(used.user + used.system) / ops, Number(process.hrtime.bigint() - wallStart) / 1000 / ops]
      }
      for (let round = -3; round < 14; round++) {
        // ABBA order, the first three rounds untimed (warm-up).
        for (const side of round % 2 === 0 ? ['ours', 'fresh', 'baseline'] : ['baseline', 'fresh', 'ours']) {
          const [c, w] = await batch(side)
          if (round < 0) continue
          cpu[side].push(c)
          wall[side].push(w)
        }
      }
      const wallRatio = (side) => (median(wall[side]) / median(wall.baseline)).toFixed(2)
      return [
        record({
          id: 'auth-overhead',
          samples: cpu,
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: 1.1,
          note:
            `a ${tool} tools/call over loopback HTTP (2026-07-28) with a verified ES256 JWT from oidc-provider (JWKS cached) vs the same server unprotected, ` +
            `CPU time of client and server per call, one token for every call (verified once, then remembered); wall time ${Math.round(median(wall.ours))} vs ${Math.round(median(wall.baseline))} µs (${wallRatio('ours')}×)`,
        }),
        record({
          id: 'auth-overhead-fresh-token',
          samples: { ours: cpu.fresh, baseline: cpu.baseline },
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: null,
          note:
            `the same, but every call with a token the server has not verified yet (a signature check each time: ES256 with Web Crypto); ` +
            `wall time ${Math.round(median(wall.fresh))} vs ${Math.round(median(wall.baseline))} µs (${wallRatio('fresh')}×)`,
        }),
      ]
    } finally {
      await guarded.close()
      await open.close()
      await provider.close()
    }
  },
}

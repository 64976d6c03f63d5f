/**
 * The `/__mcp/` page on Vite's dev server: plain HTML and JS shipped in the
 * package's `page/` folder, talking to the mounted MCP endpoint; and
 * `POST /__mcp/costs`, what each tool of the list the page got costs a
 * model and which client rule sets reject it (docs/profiles.md, "Token budget").
 */
import { existsSync, readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ViteDevServer } from 'vite'
import { packageRoot } from '../proto/package-root.ts'
import { toolCosts } from '../schema/index.ts'
import { isOwnOrigin, pathOf } from './dev-origin.ts'
import { isRecord } from '../contract/is-record.ts'

/** Where the page lives on the dev server. */
export const PAGE_PATH = '/__mcp/'

/** Where the page posts its tool list for the costs. */
export const COSTS_PATH = `${PAGE_PATH}costs`

/** The largest tool list the costs read (an unbudgeted Firestore list is about 1.5 MB). */
const MAX_COSTS_BODY = 16 * 1024 * 1024

/** The page's assets: their content type, and whether the package build makes them (`dist/page/`) or they ship as written (`page/`). */
const ASSETS: Record<string, { type: string; built: boolean }> = {
  // page/app.js with the MCP SDK's client bundled in (tsdown.config.ts).
  'app.js': { type: 'text/javascript; charset=utf-8', built: true },
  'style.css': { type: 'text/css; charset=utf-8', built: false },
}

/**
 * The package's `page/` folder and the built `dist/page/` (this file may be
 * bundled into any chunk of `dist/`, or run from `src/` in the repository).
 */
function findPageDirs(): { page: string; built: string } {
  const root = packageRoot()
  if (root === null || !existsSync(join(root, 'page', 'index.html')))
    throw new Error(`the /__mcp/ page is missing: no "page/index.html" above "${fileURLToPath(import.meta.url)}"`)
  return { page: join(root, 'page'), built: join(root, 'dist', 'page') }
}

const escapeAttribute = (text: string): string => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

/**
 * The page's HTML for an endpoint at `endpoint`, with Vite's client script
 * when the dev server has an HMR channel (it shows build errors in the overlay).
 */
export function pageHtml(template: string, endpoint: string, viteClient: string | undefined): string {
  let html = template.replace(
    '<meta name="mcp-endpoint" content="/mcp">',
    `<meta name="mcp-endpoint" content="${escapeAttribute(endpoint)}">`,
  )
  if (viteClient !== undefined)
    html = html.replace('</head>', `  <script type="module" src="${escapeAttribute(viteClient)}"></script>\n</head>`)
  return html
}

function replyJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

/** The request's body as text; `undefined` past `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** What is wrong with a costs request's body (`{ server?, tools: [{ name, description?, inputSchema }] }`), or `undefined`. */
function costsProblem(body: unknown): string | undefined {
  if (!isRecord(body)) return 'the body must be a JSON object { server?, tools }'
  const { server, tools } = body as { server?: unknown; tools?: unknown }
  if (server !== undefined && typeof server !== 'string') return '"server" must be a string'
  if (!Array.isArray(tools)) return '"tools" must be the array of a tools/list result'
  const bad = tools.findIndex(
    (t) =>
      t === null ||
      typeof t !== 'object' ||
      typeof (t as { name?: unknown }).name !== 'string' ||
      !['string', 'undefined'].includes(typeof (t as { description?: unknown }).description),
  )
  return bad === -1 ? undefined : `"tools[${bad}]" must be a tool { name, description?, inputSchema }`
}

/**
 * Answers `POST /__mcp/costs`: for the posted tool list (what `tools/list`
 * gave the page, hand-written tools too), each tool's o200k tokens and the
 * client rule sets that reject it, as the build's verbose report counts them.
 * Only the dev server's own pages may ask (a JSON body, a same-origin `Origin`).
 */
async function answerCosts(server: ViteDevServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const origin = req.headers.origin
  if (origin !== undefined && !isOwnOrigin(server, origin, req.headers.host))
    return replyJson(res, 403, { error: `forbidden origin "${origin}": only pages of this dev server may ask for the costs` })
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return replyJson(res, 415, { error: 'the costs take an application/json body { server?, tools }' })
  const text = await readBody(req, MAX_COSTS_BODY)
  if (text === undefined) return replyJson(res, 413, { error: `the tool list passes ${MAX_COSTS_BODY} bytes` })
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    return replyJson(res, 400, { error: `the body is not JSON: ${(error as Error).message}` })
  }
  const problem = costsProblem(body)
  if (problem !== undefined) return replyJson(res, 400, { error: problem })
  const { server: name, tools } = body as { server?: string; tools: Array<{ name: string; description?: string; inputSchema: unknown }> }
  replyJson(res, 200, { costs: toolCosts(tools, name ?? '') })
}

/** Serves the page at `/__mcp/` (and its assets) for the MCP endpoint at `endpoint`, and its costs. */
export function mountDevPage(server: ViteDevServer, endpoint: string): void {
  const dirs = findPageDirs()
  const base = server.config.base.replace(/\/$/, '')
  const withHmr = server.config.server.hmr !== false && server.config.server.ws !== false
  server.middlewares.use((req, res, next) => {
    const path = pathOf(req.url)
    if (path === PAGE_PATH.slice(0, -1)) {
      res.writeHead(302, { location: PAGE_PATH })
      return void res.end()
    }
    if (path === COSTS_PATH && req.method === 'POST') return void answerCosts(server, req, res).catch(next)
    if (!path.startsWith(PAGE_PATH) || (req.method !== 'GET' && req.method !== 'HEAD')) return next()
    const name = path.slice(PAGE_PATH.length)
    let body: string
    let type: string
    if (name === '' || name === 'index.html') {
      // Read per request: the page is small, and edits to it show on reload.
      body = pageHtml(readFileSync(join(dirs.page, 'index.html'), 'utf8'), endpoint, withHmr ? `${base}/@vite/client` : undefined)
      type = 'text/html; charset=utf-8'
    } else if (Object.hasOwn(ASSETS, name)) {
      const asset = ASSETS[name]!
      const file = join(asset.built ? dirs.built : dirs.page, name)
      // Only a checkout that was never built lacks it; the package ships it.
      if (!existsSync(file)) return next(new Error(`the /__mcp/ page's "${name}" is missing: no "${file}" (run "npm run build")`))
      body = readFileSync(file, 'utf8')
      type = asset.type
    } else {
      return next()
    }
    // The page calls tools: no other site may frame it (clickjacking).
    res.writeHead(200, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy': "frame-ancestors 'none'",
    })
    res.end(req.method === 'HEAD' ? undefined : body)
  })
}

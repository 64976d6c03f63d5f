/**
 * The `/__mcp/` page on Vite's dev server: plain HTML and JS shipped in the
 * package's `page/` folder, talking to the mounted MCP endpoint.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ViteDevServer } from 'vite'
import { packageRoot } from '../proto/package-root.ts'
import { pathOf } from './dev-mount.ts'

/** Where the page lives on the dev server. */
export const PAGE_PATH = '/__mcp/'

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

/** Serves the page at `/__mcp/` (and its assets) for the MCP endpoint at `endpoint`. */
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

/**
 * The `/__mcp/` page: lists the dev server's MCP tools live (refreshing on
 * `notifications/tools/list_changed`), shows each tool's description and
 * schemas, and calls a tool with arguments from a JSON editor or a form
 * generated from the top-level properties of its input schema. Each tool
 * shows what it costs a model (o200k tokens) and which client rule sets
 * reject it, as the dev server counts them (`POST /__mcp/costs`).
 *
 * It talks to the server with the MCP SDK's client, bundled in by the
 * package build (`dist/page/app.js`, tsdown.config.ts): 2026-07-28 with a
 * `subscriptions/listen` stream when the server offers it, else the
 * initialize era with its session's GET stream.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

const $ = (id) => document.getElementById(id)
const endpoint = document.querySelector('meta[name="mcp-endpoint"]')?.getAttribute('content') ?? '/mcp'
const costsUrl = new URL('./costs', location.href)

/** @type {any[]} */
let tools = []
/** Each tool's cost by name: `{ tokens, rejectedBy }`. */
let costs = new Map()
/** The server's name (clients prefix tool names with it: some rules count both). */
let serverName = ''
/** @type {string | undefined} */
let selected
/** Names seen before the latest refresh, to mark new tools. */
let known = new Set()
let refreshing = Promise.resolve()

function setStatus(status, detail) {
  const el = $('status')
  el.dataset.status = status
  el.textContent = detail ? `${status}: ${detail}` : status
}

const CLIENT_INFO = { name: 'unplugin-proto-mcp page', version: '1.0.0' }
/** @type {Client} */
let client
/** Bumped by every new connection: an older one's stream stops following. */
let generation = 0

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Connects afresh (2026-07-28 when offered, else the initialize era) and starts following list changes. */
async function connect() {
  const mine = ++generation
  const old = client
  client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } })
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    if (mine === generation) refresh()
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint, location.href)))
  old?.close().catch(() => {})
  const era = client.getProtocolEra()
  const protocol = $('protocol')
  protocol.dataset.era = era
  protocol.textContent = client.getNegotiatedProtocolVersion() ?? ''
  if (era === 'modern') follow(mine)
  // The initialize era: the transport keeps the session's GET stream open itself.
  else setStatus('live')
  return client.getServerVersion()
}

/** Keeps a `subscriptions/listen` stream open while this connection is the current one. */
async function follow(mine) {
  for (let failures = 0; mine === generation; failures++) {
    try {
      const subscription = await client.listen({ toolsListChanged: true })
      failures = 0
      setStatus('live')
      const why = await subscription.closed
      if (why === 'local' || mine !== generation) return
      setStatus('reconnecting', `the notification stream ended (${why})`)
      // What changed while no stream was open.
      refresh()
    } catch (error) {
      if (mine !== generation) return
      setStatus('reconnecting', error instanceof Error ? error.message : String(error))
    }
    await sleep(Math.min(250 * 2 ** failures, 5000))
  }
}

/** Whether `error` says the server no longer knows the session (it restarted, or the session was closed). */
const sessionGone = (error) => /\b404\b|session not found/i.test(error instanceof Error ? error.message : String(error))

/** Runs `request` on the client; a session the server forgot is replaced once, then `request` runs again. */
async function withSession(request) {
  try {
    return await request()
  } catch (error) {
    if (!sessionGone(error)) throw error
    setStatus('reconnecting', 'session ended')
    await connect()
    return request()
  }
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props)
  for (const child of children) node.append(child)
  return node
}

const pretty = (value) => JSON.stringify(value, null, 2)

/** The text of a content item, pretty-printed when it is JSON. */
function showText(text) {
  try {
    return pretty(JSON.parse(text))
  } catch {
    return text
  }
}

/** `1234 tokens`, and the rule sets that reject the tool, for `name` (none before the costs arrive). */
function costItems(name) {
  const cost = costs.get(name)
  if (!cost) return []
  const items = [el('span', { className: 'tokens', textContent: `${cost.tokens} tokens` })]
  if (cost.rejectedBy.length > 0)
    items.push(el('span', { className: 'rejected', textContent: `rejected by ${cost.rejectedBy.join(', ')}` }))
  return items
}

/** Asks the dev server what each listed tool costs; the list shows it once it arrives. */
async function fetchCosts(listed) {
  try {
    const res = await fetch(costsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: serverName, tools: listed }),
    })
    const body = await res.json()
    if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`)
    // A newer listing came meanwhile: its own request will answer.
    if (listed !== tools) return
    costs = new Map(body.costs.map((c) => [c.name, c]))
    renderList()
    renderDetail(true)
  } catch (error) {
    console.warn(`the tools' costs: ${error.message}`)
  }
}

/** The `_meta` key marking the meta-tools of `search` discovery (src/server/tools/discovery.ts). */
const DISCOVERY_META_KEY = 'io.github.unplugin-proto-mcp/discovery'

/** The meta-tool of `role` in the listing, when the server serves through them. */
const metaTool = (role) => tools.find((t) => t._meta?.[DISCOVERY_META_KEY] === role)

/** Shows the discovery mode; in `search` mode, the search box that asks search_tools as a model would. */
function renderMode() {
  const search = metaTool('search')
  $('discovery').textContent = search ? `discovery: search (${search.name})` : `discovery: tools (${tools.length} listed)`
  $('model-search-form').hidden = !search
}

/** Asks search_tools for the box's query and lists its hits; a hit opens call_tool with its name filled in. */
async function modelSearch(event) {
  event.preventDefault()
  const search = metaTool('search')
  const query = $('model-search').value
  if (!search) return
  const result = await withSession(() => client.callTool({ name: search.name, arguments: { query } }))
  const hits = result.isError ? [] : (result.structuredContent?.tools ?? [])
  $('search-hits').replaceChildren(
    ...(result.isError ? [el('li', { className: 'error', textContent: result.content?.[0]?.text ?? 'error' })] : []),
    ...hits.map((hit) => {
      const item = el(
        'li',
        {},
        el('span', { className: 'name', textContent: hit.name }),
        el('span', { className: 'summary', textContent: hit.summary ?? '' }),
        el('span', { className: 'cost', textContent: `~${hit.tokens} tokens` }),
      )
      item.addEventListener('click', () => {
        const call = metaTool('call')
        if (!call) return
        select(call.name)
        $('args').value = pretty({ name: hit.name, arguments: {} })
        renderDetail(true)
      })
      return item
    }),
  )
}

function renderList() {
  const filter = $('filter').value.trim().toLowerCase()
  const list = $('tools')
  list.replaceChildren(
    ...tools
      .filter((tool) => !filter || tool.name.toLowerCase().includes(filter) || (tool.description ?? '').toLowerCase().includes(filter))
      .map((tool) => {
        const item = el(
          'li',
          { role: 'option', className: known.size > 0 && !known.has(tool.name) ? 'new' : '' },
          el('span', { className: 'name', textContent: tool.name }),
          el('span', { className: 'summary', textContent: (tool.description ?? '').split('\n')[0] }),
          el('span', { className: 'cost' }, ...costItems(tool.name)),
        )
        item.dataset.tool = tool.name
        item.setAttribute('aria-selected', String(tool.name === selected))
        item.addEventListener('click', () => select(tool.name))
        return item
      }),
  )
}

/** A starting value for `schema`: required properties filled with a placeholder of their type. */
function skeleton(schema) {
  if (!schema || typeof schema !== 'object') return {}
  if (schema.type === 'object' || schema.properties) {
    const out = {}
    for (const key of schema.required ?? []) out[key] = skeleton(schema.properties?.[key])
    return out
  }
  if (schema.enum) return schema.enum[0]
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  if (type === 'string') return ''
  if (type === 'integer' || type === 'number') return 0
  if (type === 'boolean') return false
  if (type === 'array') return []
  return {}
}

/** How a top-level property is edited in the form, or undefined when only JSON will do. */
function fieldKind(schema) {
  if (!schema) return undefined
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum'
  const types = new Set([].concat(schema.type ?? [], ...(schema.anyOf ?? []).map((s) => s.type ?? [])))
  if (types.size === 1 && types.has('boolean')) return 'boolean'
  if ([...types].every((t) => t === 'integer' || t === 'number')) return types.size ? 'number' : undefined
  if (types.has('string') && [...types].every((t) => t === 'string' || t === 'integer')) return 'string'
  return undefined
}

function readArgs() {
  const text = $('args').value.trim()
  return text === '' ? {} : JSON.parse(text)
}

/** Writes one form field into the JSON editor (an empty field removes the key). */
function syncField(key, kind, input) {
  let args
  try {
    args = readArgs()
  } catch {
    return
  }
  if (kind === 'boolean') args[key] = input.checked
  else if (input.value === '') delete args[key]
  else args[key] = kind === 'number' ? Number(input.value) : input.value
  $('args').value = pretty(args)
}

/** The form of a tool's top-level scalar properties; the JSON editor stays the source of truth. */
function renderForm(tool, args) {
  const form = $('form')
  const rows = []
  for (const [key, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
    const kind = fieldKind(schema)
    if (!kind) continue
    const id = `field-${key}`
    let input
    if (kind === 'enum') {
      input = el(
        'select',
        { id },
        el('option', { value: '', textContent: '—' }),
        ...schema.enum.map((v) => el('option', { value: v, textContent: v })),
      )
    } else {
      input = el('input', { id, type: kind === 'boolean' ? 'checkbox' : kind === 'number' ? 'number' : 'text' })
      if (kind === 'number') input.step = 'any'
    }
    if (kind === 'boolean') input.checked = args[key] === true
    else if (args[key] !== undefined && typeof args[key] !== 'object') input.value = String(args[key])
    input.dataset.key = key
    input.addEventListener(kind === 'boolean' || kind === 'enum' ? 'change' : 'input', () => syncField(key, kind, input))
    rows.push(el('label', { htmlFor: id, textContent: key, title: schema.description ?? '' }), input)
  }
  form.replaceChildren(...rows)
}

function renderDetail(keepArgs) {
  const tool = tools.find((t) => t.name === selected)
  $('detail').hidden = !tool
  $('empty').hidden = !!tool
  if (!tool) return
  $('tool-name').textContent = tool.name
  $('tool-description').textContent = tool.description ?? ''
  $('tool-cost').replaceChildren(...costItems(tool.name))
  $('input-schema').textContent = pretty(tool.inputSchema)
  $('output-block').hidden = !tool.outputSchema
  $('output-schema').textContent = tool.outputSchema ? pretty(tool.outputSchema) : ''
  if (!keepArgs) {
    $('args').value = pretty(skeleton(tool.inputSchema))
    $('args-error').textContent = ''
    $('result').hidden = true
  }
  // Arguments that do not parse are left out: the form starts from the schema's skeleton.
  let args
  try {
    args = readArgs()
  } catch {
    args = {}
  }
  renderForm(tool, args)
}

function select(name) {
  selected = name
  history.replaceState(null, '', `#${encodeURIComponent(name)}`)
  renderList()
  renderDetail(false)
}

function showResult(outcome, meta, items, structured) {
  const result = $('result')
  result.hidden = false
  result.dataset.outcome = outcome
  $('result-meta').textContent = meta
  $('content').replaceChildren(...items)
  $('structured-block').hidden = structured === undefined
  $('structured').textContent = structured === undefined ? '' : pretty(structured)
}

function contentItem(item) {
  if (item.type === 'text') return el('pre', { className: 'text', textContent: showText(item.text) })
  if (item.type === 'image') return el('img', { src: `data:${item.mimeType};base64,${item.data}`, alt: 'image result' })
  return el('pre', { textContent: pretty(item) })
}

async function call() {
  const tool = selected
  if (!tool) return
  let args
  try {
    args = readArgs()
  } catch (error) {
    $('args-error').textContent = `arguments are not JSON: ${error.message}`
    return
  }
  $('args-error').textContent = ''
  const button = $('call')
  button.disabled = true
  const started = performance.now()
  try {
    const result = await withSession(() => client.callTool({ name: tool, arguments: args }))
    const ms = Math.round(performance.now() - started)
    showResult(
      result.isError ? 'error' : 'ok',
      `${result.isError ? 'isError' : 'ok'} · ${ms} ms`,
      (result.content ?? []).map(contentItem),
      result.structuredContent,
    )
  } catch (error) {
    const code = typeof error?.code === 'number' ? ` ${error.code}` : ''
    showResult('error', `protocol error${code}`, [el('pre', { className: 'text', textContent: error.message })], undefined)
  } finally {
    button.disabled = false
  }
}

/** Fetches the listing again; calls queue so refreshes never interleave. */
function refresh() {
  refreshing = refreshing
    .then(async () => {
      const next = (await withSession(() => client.listTools(undefined, { cacheMode: 'refresh' }))).tools
      known = new Set(tools.map((t) => t.name))
      tools = next
      renderMode()
      renderList()
      renderDetail(true)
      fetchCosts(next)
    })
    .catch((error) => setStatus('error', error.message))
  return refreshing
}

async function start() {
  $('endpoint').textContent = new URL(endpoint, location.href).href
  for (let attempt = 0; ; attempt++) {
    try {
      const serverInfo = await connect()
      serverName = serverInfo.name
      $('server').textContent = `${serverInfo.name} ${serverInfo.version}`
      document.title = `${serverInfo.name} · MCP tools`
      break
    } catch (error) {
      setStatus('error', error.message)
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 5000)))
    }
  }
  await refresh()
  const wanted = decodeURIComponent(location.hash.slice(1))
  if (tools.some((t) => t.name === wanted)) select(wanted)
}

$('filter').addEventListener('input', renderList)
$('model-search-form').addEventListener('submit', (event) => modelSearch(event).catch((error) => setStatus('error', error.message)))
$('call').addEventListener('click', call)
$('args').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) call()
})
$('args').addEventListener('input', () => {
  const tool = tools.find((t) => t.name === selected)
  let args
  try {
    args = readArgs()
  } catch {
    return
  }
  if (tool) renderForm(tool, args)
})
start()

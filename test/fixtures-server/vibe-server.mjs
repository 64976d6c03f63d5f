// A child-process MCP server for the wire tests: example.proto's tools on the
// BUILT runtime (path in PROTO_MCP_RUNTIME), served on stdio or HTTP.
// Usage: node vibe-server.mjs stdio|http [default|topeka]
import { readFileSync } from 'node:fs'
import protobuf from 'protobufjs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const { createProtoServer } = await import(process.env.PROTO_MCP_RUNTIME)
const [mode = 'stdio', profile = 'default'] = process.argv.slice(2)
const PROTO = '/work/shared/conformance/topeka/example.proto'
const TOOLS = '/work/shared/conformance/topeka/go-v0.3.0-tools.json'

function portable64(schema) {
  if (Array.isArray(schema)) return schema.map(portable64)
  if (schema === null || typeof schema !== 'object') return schema
  if (Array.isArray(schema.type) && schema.type.includes('integer')) {
    const { type, minimum, ...rest } = schema
    const u = minimum === 0
    return { ...rest, anyOf: [u ? { type: 'integer', minimum: 0 } : { type: 'integer' }, { type: 'string', pattern: u ? '^[0-9]+$' : '^-?[0-9]+$' }] }
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, portable64(v)]))
}

const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false })
;(addFormatsModule.default ?? addFormatsModule)(ajv)
const { root } = protobuf.parse(readFileSync(PROTO, 'utf8'), { alternateCommentMode: true })
const service = root.lookupService('examples.v1.VibeService')
const topeka = JSON.parse(readFileSync(TOOLS, 'utf8')).tools
const tools = service.methodsArray.map((m) => {
  const t = topeka.find((x) => x.name === m.name)
  const inputSchema = profile === 'topeka' ? t.inputSchema : portable64(t.inputSchema)
  const tool = {
    name: m.name, description: t.description, inputSchema,
    service: 'examples.v1.VibeService', method: m.name,
    requestType: root.lookupType(m.requestType).fullName.slice(1),
    responseType: root.lookupType(m.responseType).fullName.slice(1),
    validate: ajv.compile(inputSchema),
  }
  if (profile !== 'topeka') tool.outputSchema = { type: 'object' }
  return tool
})
const server = createProtoServer({ name: 'example', version: '1.2.3', profile, descriptor: root.toJSON(), tools })

let current = ''
server.implement('VibeService', {
  SetVibe(req) {
    if (req.vibe === 'missing') throw Object.assign(new Error('vibe not found'), { code: 'NotFound' })
    const previousVibe = current
    current = req.vibe ?? ''
    return { previousVibe, vibe: current }
  },
  getVibe: () => ({ vibe: current }),
})

if (mode === 'http') {
  const handle = await server.serveHttp({ port: 0 })
  process.stdout.write(`${JSON.stringify({ url: handle.url })}\n`)
  process.stdin.resume()
  process.stdin.on('end', async () => {
    await handle.close()
    process.exit(0)
  })
} else {
  const report = await server.serveStdio()
  process.stderr.write(`REPORT ${JSON.stringify(report)}\n`)
}

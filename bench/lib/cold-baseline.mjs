// Cold-start child, the runtime way: the same tools (names, descriptions,
// schemas as JSON) with every input schema compiled by Ajv at start-up and
// the protobufjs root built for protojson, served by the SDK on stdio.
import { readFileSync } from 'node:fs'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import protobuf from 'protobufjs'
import 'protobufjs/ext/protojson.js'
import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'

const { tools, descriptor } = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false })
addFormats(ajv)
const validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.inputSchema)]))
const root = protobuf.Root.fromJSON(descriptor)
root.resolveAll()
const listed = {
  tools: tools.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
}
const server = new Server({ name: 'baseline', version: '0.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler('tools/list', () => listed)
server.setRequestHandler('tools/call', () => {
  throw new Error(`not used by the benchmark (${validators.size} validators)`)
})
await server.connect(new StdioServerTransport())

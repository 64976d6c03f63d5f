// Import-time child: imports the MCP SDK, then the runtime on top of it, and
// prints both times in ms: the second is what the runtime adds to the SDK's
// import, the floor a hand-written server pays too. Resolved from the bench package.
let start = performance.now()
await import('@modelcontextprotocol/server')
const sdk = performance.now() - start
start = performance.now()
await import('unplugin-proto-mcp/runtime')
process.stdout.write(`${sdk} ${performance.now() - start}\n`)

/**
 * The gRPC benchmark's backend: the example VibeService on a grpc-js server
 * at 127.0.0.1 (port 0), loaded with @grpc/proto-loader, answering SetVibe
 * and SetVibeDetails at once. Prints `{"port"}`; exits when stdin closes.
 */
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'

const definition = protoLoader.loadSync(process.argv[2], { longs: String, enums: String, defaults: true, oneofs: true })[
  'examples.v1.VibeService'
]
const server = new grpc.Server()
server.addService(definition, {
  SetVibe: (call, callback) => callback(null, { previousVibe: '', vibe: call.request.vibe }),
  SetVibeDetails: (call, callback) => callback(null, { previousVibe: '', vibe: call.request.vibe }),
})
const port = await new Promise((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
)
process.stdout.write(`${JSON.stringify({ port })}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  server.forceShutdown()
  process.exit(0)
})

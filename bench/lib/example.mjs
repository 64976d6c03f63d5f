/**
 * The Topeka example proto (fixtures/topeka/example.proto) as the pipeline
 * benchmarks use it: the three requests, the backend every side calls, and
 * the loaded protobufjs / @bufbuild/protobuf types for the baselines.
 */
import { join } from 'node:path'
import protobuf from 'protobufjs'
import descriptor from 'protobufjs/ext/descriptor/index.js'
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { REPO } from './module.mjs'

/** Path of the example proto. */
export const EXAMPLE_PROTO = join(REPO, 'fixtures', 'topeka', 'example.proto')

/** The three request sizes: tool name, request and response type names, and the arguments. */
export const CASES = {
  small: {
    tool: 'SetVibe',
    request: 'examples.v1.SetVibeRequest',
    response: 'examples.v1.SetVibeResponse',
    args: { vibe: 'chill' },
  },
  medium: {
    tool: 'SetVibeDetails',
    request: 'examples.v1.SetVibeDetailsRequest',
    response: 'examples.v1.SetVibeResponse',
    // Every scalar kind of the proto, set to a value that is not its default.
    args: {
      vibe: 'details',
      vibeScalar: {
        vibeDouble: 1.25,
        vibeFloat: 2.5,
        vibeInt32: -7,
        vibeInt64: '9007199254740',
        vibeUint32: 42,
        vibeUint64: '123456789',
        vibeSint32: -3,
        vibeSint64: '-11',
        vibeFixed32: 4000000000,
        vibeFixed64: '77',
        vibeSfixed32: -5,
        vibeSfixed64: '-99',
        vibeBool: true,
        vibeBytes: 'aGVsbG8gd29ybGQ=',
        vibeEnum: ['VIBE_GOOD', 'VIBE_UNSET', 'VIBE_GOOD'],
      },
    },
  },
  large: {
    tool: 'SetVibeObjects',
    request: 'examples.v1.SetVibeObjectsRequest',
    response: 'examples.v1.SetVibeObjectsResponse',
    args: { vibeObject: Array.from({ length: 10_000 }, (_, i) => ({ vibe: `vibe number ${i}` })) },
  },
}

let current = 'chill'
/** The in-process backend every side calls: the same work whoever calls it. */
export const backend = {
  SetVibe: (req) => {
    const previousVibe = current
    current = req.vibe ?? ''
    return { previousVibe, vibe: current }
  },
  SetVibeDetails: (req) => ({ previousVibe: current, vibe: req.vibe ?? '' }),
  SetVibeObjects: (req) => ({ vibeObject: req.vibeObject ?? [] }),
}

/** The example's protobufjs root (reflection, as a hand-rolled server loads it). */
export function protobufjsRoot() {
  const root = new protobuf.Root()
  root.loadSync(EXAMPLE_PROTO, { alternateCommentMode: true })
  root.resolveAll()
  return root
}

/**
 * The example's @bufbuild/protobuf registry, built at run time from a
 * FileDescriptorSet (protobufjs `ext/descriptor`), since protoc-gen-es is not
 * installed; type names are made absolute and JSON names copied from protobufjs.
 */
export function bufbuildRegistry() {
  const root = new protobuf.Root()
  root.loadSync(EXAMPLE_PROTO, { keepCase: true })
  root.resolveAll()
  const set = fromBinary(FileDescriptorSetSchema, descriptor.FileDescriptorSet.encode(root.toDescriptor('proto3')).finish())
  const qualify = (prefix, messages) => {
    for (const message of messages) {
      const type = root.lookupType(`${prefix}.${message.name}`)
      for (const field of message.field) {
        const reflected = type.fields[field.name]
        field.jsonName = reflected.jsonName
        if (field.typeName && !field.typeName.startsWith('.')) field.typeName = reflected.resolvedType.fullName
      }
      qualify(`${prefix}.${message.name}`, message.nestedType)
    }
  }
  for (const file of set.file) qualify(file.package, file.messageType)
  return createFileRegistry(set)
}

/** The body and headers of a plain 2026-07-28 `tools/call` POST of `tool` with `args` (no session, no SDK client). */
export function modernCall(tool, args) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  })
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  }
  return { body, headers }
}

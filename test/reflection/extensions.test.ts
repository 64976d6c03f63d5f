/**
 * Reflection finds the extensions of a request message declared in a file
 * the service's file does not import (the usual layout: `ext.proto` imports
 * `base.proto` and extends its message): a real grpc-js server answering
 * with @grpc/reflection, asked `all_extension_numbers_of_type` and
 * `file_containing_extension` (src/grpc/reflection-client.ts). Before, such
 * an extension was no property, and a call setting it was refused.
 */
import { join } from 'node:path'
import protobuf from 'protobufjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reflectServer, reflectSpec } from '../../src/gateway/reflect-server.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { echoBytesService } from '../grpc/grpc-server.ts'
import { startRawReflectionServer, startReflectionServer, type ReflectionTestServer } from './reflection-server.ts'

const BASE = `syntax = "proto2";
package rb;

message Note {
  optional string title = 1;
  extensions 100 to 199;
}

service Notes {
  rpc Save(Note) returns (Note);
}
`
const EXTENSION = `syntax = "proto2";
package rb.ext;

import "rb/base.proto";

extend rb.Note {
  // Who wrote the note.
  optional string author = 100;
}
`

let files: Uint8Array[]
let server: ReflectionTestServer
let raw: ReflectionTestServer
/** What the service received, decoded with the extension (protobufjs's `.rb.ext.author`). */
const received: unknown[] = []

beforeAll(async () => {
  const dir = writeProtos({ 'rb/base.proto': BASE, 'rb/ext.proto': EXTENSION })
  // ext.proto and the base.proto it imports: what a server built from both registers.
  files = bufBuild(dir, join('rb', 'ext.proto'))
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => join(dir, target)
  root.loadSync('rb/ext.proto')
  root.resolveAll()
  const Note = root.lookupType('rb.Note')
  const service = echoBytesService('/rb.Notes/Save', (request) => received.push(Note.toObject(Note.decode(request))))
  server = await startReflectionServer([service], { files })
  raw = await startRawReflectionServer(files)
})
afterAll(async () => {
  await server?.stop()
  await raw?.stop()
})

describe('reflection and the extensions of a request declared in another file', () => {
  it('@grpc/reflection: the extension is a property, described by its declaration', async () => {
    const { spec } = await reflectSpec(server.address)
    const properties = spec.tools[0]!.inputSchema.properties as Record<string, { description?: string }>
    expect(Object.keys(properties).sort()).toEqual(['rb.ext.author', 'title'])
    expect(properties['rb.ext.author']!.description).toBe('Who wrote the note.')
  })

  it('a call setting it reaches the service with it set, and the answer carries it', async () => {
    const gateway = await reflectServer(server.address)
    received.length = 0
    const result = await gateway.call('Save', { title: 't', 'rb.ext.author': 'ada' })
    expect(received).toEqual([{ title: 't', '.rb.ext.author': 'ada' }])
    expect(result.structuredContent).toEqual({ title: 't', 'rb.ext.author': 'ada' })
  })

  it('a server that answers the extension questions with errors still gives the service, without the extension', async () => {
    const { spec } = await reflectSpec(raw.address)
    expect(Object.keys(spec.tools[0]!.inputSchema.properties as object)).toEqual(['title'])
  })
})

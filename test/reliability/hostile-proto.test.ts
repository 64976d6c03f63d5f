/**
 * Hostile `.proto` files through the plugin's load path (src/proto → schema
 * → codegen, as `buildModuleSource` runs them for every bundler): a message of
 * 2 000 fields (10 000 under `npm run soak`) and a chain of 200 files
 * each importing the next. Both build, and the servers they describe
 * answer calls; a cycle in the chain fails with an error naming the files.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { scaled } from './scale.ts'
import { text } from '../helpers/result.ts'

// protobufjs's parser is quadratic in a message's field count (Type#add): 10 000 fields take
// over a minute to build on a loaded 2-core machine, so `npm test` builds 2 000 and the soak 10 000.
const FIELDS = scaled(2_000, 10_000)
// 200 in both: at 1 000 the messages nest 1 000 deep and Ajv's compiler overflows the stack
// (a clear build error, `cannot compile the input schema of tool "<name>": ...`).
const CHAIN = 200

describe(`a message with ${FIELDS} fields`, () => {
  const lines = Array.from({ length: FIELDS }, (_, i) => `  ${i % 3 === 0 ? 'int32' : i % 3 === 1 ? 'string' : 'bool'} f${i} = ${i + 1};`)
  const dir = writeProtos({
    'wide.proto': `syntax = "proto3";\npackage wide.v1;\nmessage Wide {\n${lines.join('\n')}\n}\nservice WideService {\n  rpc Put(Wide) returns (Wide);\n}\n`,
  })
  const file = join(dir, 'wide.proto')

  it('builds a module whose tool lists every field', { timeout: 120_000 }, () => {
    const built = buildModuleSource(file)
    expect(built.code).toContain(`"f${FIELDS - 1}"`)
    // Every field stays (a request's own fields are never cut); the tool is over the token budget, and says so.
    expect(built.warnings.map((w) => w.code)).toEqual(['TOOL_OVER_BUDGET'])
    const spec = specFromProto(file)
    const properties = (spec.tools[0]!.inputSchema as { properties: Record<string, unknown> }).properties
    expect(Object.keys(properties)).toHaveLength(FIELDS)
  })

  it('answers a call with every field set, and names the one wrong field of another', { timeout: 120_000 }, async () => {
    const server = createProtoServer(specFromProto(file)).implement('WideService', { Put: (request: unknown) => request })
    const args = Object.fromEntries(Array.from({ length: FIELDS }, (_, i) => [`f${i}`, i % 3 === 0 ? i + 1 : i % 3 === 1 ? `s${i}` : true]))
    const result = await server.call('Put', args)
    expect(result.isError, text(result).slice(0, 200)).toBe(false)
    expect(Object.keys(result.structuredContent!)).toHaveLength(FIELDS)
    expect(result.structuredContent!.f3).toBe(4)
    expect(result.structuredContent![`f${FIELDS - 1}`]).toEqual(args[`f${FIELDS - 1}`])
    const wrong = await server.call('Put', { ...args, f4: 4 })
    expect(text(wrong)).toBe('invalid arguments: /f4: 4 is not of type "string"')
  })
})

describe(`a chain of ${CHAIN} files, each importing the next`, () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < CHAIN; i++) {
    const last = i === CHAIN - 1
    files[`chain/f${i}.proto`] = [
      'syntax = "proto3";',
      'package chain.v1;',
      last ? '' : `import "f${i + 1}.proto";`,
      `message M${i} {`,
      '  string s = 1;',
      last ? '' : `  M${i + 1} next = 2;`,
      '}',
      i === 0 ? 'service ChainService {\n  rpc Walk(M0) returns (M0);\n}' : '',
    ].join('\n')
  }
  const dir = writeProtos(files)

  it('builds, watching every file of the chain, and a call reaches several files deep', { timeout: 120_000 }, async () => {
    const built = buildModuleSource(join(dir, 'chain/f0.proto'))
    expect(built.watchFiles.filter((f) => /chain[/\\]f\d+\.proto$/.test(f))).toHaveLength(CHAIN)
    expect(built.code).toContain(`chain.v1.M${CHAIN - 1}`)
    const server = createProtoServer(specFromProto(join(dir, 'chain/f0.proto'))).implement('ChainService', {
      Walk: (request: unknown) => request,
    })
    // Protobuf JSON's own depth limit (100 levels) bounds a value, not the chain.
    let value: Record<string, unknown> = { s: 'end' }
    for (let i = 0; i < 50; i++) value = { s: `${i}`, next: value }
    const result = await server.call('Walk', value)
    expect(result.isError, text(result).slice(0, 200)).toBe(false)
    expect(result.structuredContent).toEqual(value)
    const bad = await server.call('Walk', { next: { next: { next: { s: 5 } } } })
    expect(text(bad)).toBe('invalid arguments: /next/next/next/s: 5 is not of type "string"')
  })

  it('a cycle closing the chain fails to build, naming the whole cycle and the import to remove', { timeout: 120_000 }, () => {
    const cyclic = writeProtos({
      ...files,
      [`chain/f${CHAIN - 1}.proto`]: `syntax = "proto3";\npackage chain.v1;\nimport "f0.proto";\nmessage M${CHAIN - 1} { string s = 1; }\n`,
    })
    const cycle = [...Array.from({ length: CHAIN }, (_, i) => `f${i}.proto`), 'f0.proto'].join(' -> ')
    expect(() => buildModuleSource(join(cyclic, 'chain/f0.proto'))).toThrow(
      `file recursively imports itself: ${cycle} (remove one of these imports) (line 3)`,
    )
  })
})

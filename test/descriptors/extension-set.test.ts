/**
 * A descriptor set of a proto whose request has proto2 extensions gives the
 * tools its text gives: each extension keyed by its dotted full name and
 * described by the comment of its declaration, at file level and inside a
 * message (docs/mapping.md, "Input schema: the shape"). Before, a set
 * recorded no comment for an extension's declaration.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { buildProtoTools } from '../../src/codegen/build-proto.ts'
import { bufSet, setDir, type SetForm } from './set-helpers.ts'

const PROTO = fileURLToPath(new URL('../../fixtures/protos/grpc/extensions.proto', import.meta.url))
const dir = setDir()
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A module root with the fixture and the package's field_behavior.proto it imports. */
function moduleRoot(): string {
  const root = join(dir, 'module')
  mkdirSync(join(root, 'google', 'api'), { recursive: true })
  copyFileSync(PROTO, join(root, 'extensions.proto'))
  const behavior = fileURLToPath(new URL('../../protos/google/api/field_behavior.proto', import.meta.url))
  copyFileSync(behavior, join(root, 'google', 'api', 'field_behavior.proto'))
  return root
}

describe.each<[SetForm]>([['image'], ['protoc']])('the extensions fixture as a %s set', (form) => {
  it('gives the tools its text gives, the extensions described by their declarations', () => {
    const out = bufSet(moduleRoot(), ['extensions.proto'], join(dir, `extensions-${form}.binpb`), form)
    const fromSet = buildProtoTools(out)
    expect(JSON.stringify(fromSet.tools)).toBe(JSON.stringify(buildProtoTools(PROTO).tools))
    const properties = fromSet.tools[0]!.inputSchema.properties as Record<string, { description?: string }>
    expect(properties['ext.v1.author']!.description).toBe('Who wrote the note.')
    expect(properties['ext.v1.Holder.tag']!.description).toBe('A tag, declared inside a message.')
  })
})

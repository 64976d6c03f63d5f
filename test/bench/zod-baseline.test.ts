/**
 * The hand-written baseline of `cold-start-16` (bench/lib/zod-source.mjs)
 * serves the playground's tools with the SDK's McpServer: a real child
 * process over stdio lists the same fields as our server, input and output
 * schemas, each repeated message declared once; a schema it cannot
 * translate fails, and the field comparison notices a dropped field.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadMcpModule } from '../helpers/load-module.ts'

interface ListedTool {
  name: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
}
interface ZodSourceLib {
  zodServerModule(tools: ListedTool[], options?: { outputs?: boolean }): string
  schemaFields(schema: Record<string, unknown>): string[]
}
interface ColdStartLib {
  firstList(script: string, arg: string): Promise<{ ms: number; tools: ListedTool[] }>
}

const ROOT = join(import.meta.dirname, '..', '..')
const OUT = join(ROOT, '.tmp', 'modules')
const COLD_MODULE = join(ROOT, 'bench', 'lib', 'cold-module.mjs')
// Plain .mjs files of bench/, imported by path (they have no declarations).
const lib = async <T>(file: string) => (await import(/* @vite-ignore */ join(ROOT, 'bench', file))) as T

async function playgroundTools() {
  const { server } = await loadMcpModule(join(ROOT, 'playground', 'vibe.proto'))
  return server.listTools() as unknown as ListedTool[]
}

function writeBaseline(name: string, source: string) {
  mkdirSync(OUT, { recursive: true })
  const file = join(OUT, `${name}-${process.pid}.mjs`)
  writeFileSync(file, source)
  return file
}

describe('the cold-start-16 baseline', () => {
  it('lists the fields ours lists, input and output, each repeated message declared once', async () => {
    const { zodServerModule, schemaFields } = await lib<ZodSourceLib>('lib/zod-source.mjs')
    const { firstList } = await lib<ColdStartLib>('cold-start.mjs')
    const ours = await playgroundTools()
    const source = zodServerModule(ours)
    const listed = (await firstList(COLD_MODULE, writeBaseline('zod-baseline', source))).tools
    expect(listed.map((t) => t.name)).toEqual(ours.map((t) => t.name))
    for (const tool of ours) {
      const theirs = listed.find((t) => t.name === tool.name)!
      expect(schemaFields(theirs.inputSchema), `${tool.name} input`).toEqual(schemaFields(tool.inputSchema))
      // The type tool (describe_type) answers JSON text and has no outputSchema, on both sides.
      if (tool.outputSchema === undefined) {
        expect(theirs.outputSchema, `${tool.name} output`).toBeUndefined()
        continue
      }
      expect(theirs.outputSchema, `${tool.name} output`).toBeDefined()
      expect(schemaFields(theirs.outputSchema!), `${tool.name} output`).toEqual(schemaFields(tool.outputSchema!))
    }
    // Messages several tools return are written once, as a developer would: Track (in six outputs),
    // Playlist, the journal entry (three outputs and inside SearchEntries'), Vibe (four places).
    const count = (text: string) => source.split(text).length - 1
    expect(count('"One track of a playlist."')).toBe(1)
    expect(count('"byFingerprint":')).toBe(1)
    expect(count('"comments":')).toBe(1)
    expect(count('z.strictObject({ "changeCount":')).toBe(1)
    // The recursive Comment goes through z.lazy.
    expect(source).toMatch(/z\.lazy\(\(\) => def\d+\)/)
  })

  it('without output schemas lists none', async () => {
    const { zodServerModule } = await lib<ZodSourceLib>('lib/zod-source.mjs')
    const { firstList } = await lib<ColdStartLib>('cold-start.mjs')
    const listed = (await firstList(COLD_MODULE, writeBaseline('zod-inputs', zodServerModule(await playgroundTools(), { outputs: false }))))
      .tools
    // The playground's 16 RPC tools and its type tool.
    expect(listed).toHaveLength(17)
    expect(listed.filter((t) => t.outputSchema)).toEqual([])
  })

  it('fails on a keyword it does not translate; the field comparison sees what a field says, not how zod spells it', async () => {
    const { zodServerModule, schemaFields } = await lib<ZodSourceLib>('lib/zod-source.mjs')
    const tool = (inputSchema: Record<string, unknown>): ListedTool => ({ name: 'T', inputSchema })
    expect(() => zodServerModule([tool({ type: 'object', properties: { a: { type: 'string', maxLength: 3 } } })])).toThrow(
      /no translation for maxLength/,
    )
    expect(() => zodServerModule([tool({ type: 'object', properties: { a: { $ref: '#/$defs/X' } } })])).toThrow(/unresolved \$ref/)
    const full = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'array', items: { $ref: '#/$defs/N' } } },
      $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } },
    }
    expect(schemaFields(full)).toEqual([
      ' {"type":["object"]}',
      '.a {"type":["string"]}',
      '.b {"type":["array"]}',
      '.b[] {"type":["object"]}',
      '.b[].next@',
    ])
    // A dropped field, a dropped description, a closed object for an open one, a format left out: all seen.
    const node = { type: 'object', properties: { at: { type: 'string', format: 'date-time', description: 'When.' } } }
    const fields = schemaFields(node)
    expect(schemaFields({ type: 'object', properties: {} })).not.toEqual(fields)
    expect(schemaFields({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } })).not.toEqual(fields)
    expect(schemaFields({ ...node, additionalProperties: false })).not.toEqual(fields)
    expect(schemaFields({ type: 'object', properties: { at: { type: 'string', description: 'When.' } } })).not.toEqual(fields)
    // What zod adds to its listings is not a difference: safe-integer bounds, a format's pattern, `$schema`, any-value items.
    const zodSpelling = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time', pattern: '^\\d{4}', description: 'When.' },
        n: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        list: { type: 'array', items: {} },
      },
      additionalProperties: {},
    }
    expect(schemaFields(zodSpelling)).toEqual(
      schemaFields({ type: 'object', properties: { ...node.properties, n: { type: 'integer', minimum: 0 }, list: { type: 'array' } } }),
    )
  })
})

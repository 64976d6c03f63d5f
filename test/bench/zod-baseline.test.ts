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
  schemaPaths(schema: Record<string, unknown>): string[]
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
    const { zodServerModule, schemaPaths } = await lib<ZodSourceLib>('lib/zod-source.mjs')
    const { firstList } = await lib<ColdStartLib>('cold-start.mjs')
    const ours = await playgroundTools()
    const source = zodServerModule(ours)
    const listed = (await firstList(COLD_MODULE, writeBaseline('zod-baseline', source))).tools
    expect(listed.map((t) => t.name)).toEqual(ours.map((t) => t.name))
    for (const tool of ours) {
      const theirs = listed.find((t) => t.name === tool.name)!
      expect(schemaPaths(theirs.inputSchema), `${tool.name} input`).toEqual(schemaPaths(tool.inputSchema))
      expect(theirs.outputSchema, `${tool.name} output`).toBeDefined()
      expect(schemaPaths(theirs.outputSchema!), `${tool.name} output`).toEqual(schemaPaths(tool.outputSchema!))
    }
    // Track is in the outputs of six playlist tools: written once, as a developer would.
    expect(source.split('"One track of a playlist."').length - 1).toBe(1)
    // The recursive Comment goes through z.lazy.
    expect(source).toMatch(/z\.lazy\(\(\) => def\d+\)/)
  })

  it('without output schemas lists none', async () => {
    const { zodServerModule } = await lib<ZodSourceLib>('lib/zod-source.mjs')
    const { firstList } = await lib<ColdStartLib>('cold-start.mjs')
    const listed = (await firstList(COLD_MODULE, writeBaseline('zod-inputs', zodServerModule(await playgroundTools(), { outputs: false }))))
      .tools
    expect(listed).toHaveLength(16)
    expect(listed.filter((t) => t.outputSchema)).toEqual([])
  })

  it('fails on a keyword it does not translate, and field paths show a dropped field', async () => {
    const { zodServerModule, schemaPaths } = await lib<ZodSourceLib>('lib/zod-source.mjs')
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
    expect(schemaPaths(full)).toEqual(['', '.a', '.b', '.b[]', '.b[].next@'])
    expect(schemaPaths({ ...full, properties: { a: { type: 'string' } } })).not.toEqual(schemaPaths(full))
  })
})

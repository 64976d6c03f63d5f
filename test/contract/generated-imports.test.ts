/**
 * The contract's table of the names generated code imports
 * (src/contract/generated-imports.ts) against both sides: the codegen
 * entry exports exactly them (from src and as built), and a generated
 * module imports nothing else, from nothing else.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CODEGEN_MODULE, codegenImports, GENERATED_IMPORTS } from '../../src/contract/index.ts'
import { AJV_HELPERS, compileValidators, emitModule } from '../../src/codegen/index.ts'
import * as internal from '../../src/entries/codegen-v1.ts'
import * as runtime from '../../src/entries/runtime.ts'
import { loadProto } from '../../src/proto/index.ts'
import { buildTools } from '../../src/schema/index.ts'
import { topekaFixture } from '../helpers/topeka.ts'
import { REPO } from '../helpers/repo.ts'

const TABLE = [...GENERATED_IMPORTS].sort()

// `import { a, b as $b } from "m"`, or `import * as ns from "m"` and `const { a, b: $b } = ns`, at the start of a line.
const IMPORT_RE = /^import\s*(?:\{([^}]*)\}|\*\s*as\s+([\w$]+))\s*from\s*"([^"]+)"/gm

/** The names a module imports, by the module they come from. */
function importsOf(code: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const [, names, namespace, from] of code.matchAll(IMPORT_RE)) {
    const taken = namespace === undefined ? names! : new RegExp(`^const \\{([^}]*)\\} = \\${namespace}$`, 'm').exec(code)?.[1]
    const list = (taken ?? '')
      .split(',')
      .map((n) => n.trim().split(/\s+as\s+|\s*:\s*/)[0]!)
      .filter(Boolean)
    found.set(from!, [...(found.get(from!) ?? []), ...list])
  }
  return found
}

/** What a generated module outside the table would look like: the check below refuses it. */
const outside = (code: string): string[] =>
  [...importsOf(code)].flatMap(([from, names]) =>
    from === CODEGEN_MODULE ? names.filter((n) => !GENERATED_IMPORTS.includes(n as never)) : [`${from} (module)`],
  )

describe('the generated-import table', () => {
  it('names each export of the codegen entry, and nothing more', () => {
    expect(Object.keys(internal).sort()).toEqual(TABLE)
  })

  it('is exported by the built codegen entries (node and web)', async () => {
    for (const file of [join(REPO, 'dist', 'codegen-v1.mjs'), join(REPO, 'dist', 'web', 'codegen-v1.mjs')]) {
      if (!existsSync(file)) throw new Error(`no ${file}: run \`npm run build\` first (npm test does)`)
      const built = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>
      expect(Object.keys(built).sort(), file).toEqual(TABLE)
    }
  })

  it('stays out of the user API: /runtime exports none of it', () => {
    expect(Object.keys(runtime).filter((name) => GENERATED_IMPORTS.includes(name as never))).toEqual([])
  })

  it('holds every helper the validator rewriter may emit', () => {
    expect(AJV_HELPERS.map((h) => h.name).filter((name) => !GENERATED_IMPORTS.includes(name))).toEqual([])
  })

  it('a generated module imports only names of the table, only from the codegen subpath', () => {
    const codes: string[] = []
    for (const profile of ['portable', 'full', 'strict', 'topeka'] as const) {
      const model = loadProto(topekaFixture('example.proto'))
      const { tools, lenient } = buildTools(model, { profile })
      codes.push(emitModule(model, tools, { name: 'example', profile, hmr: profile === 'full', ...(lenient ? { lenient } : {}) }))
    }
    // Validators that need Ajv's helpers: string lengths, formats, deep equality.
    const validators = compileValidators([
      { type: 'object', properties: { s: { type: 'string', minLength: 2, format: 'email' }, l: { type: 'array', uniqueItems: true } } },
    ])
    expect(validators.helpers.length).toBeGreaterThan(1)
    codes.push(`${codegenImports(validators.helpers)}\n${validators.code}`)
    for (const code of codes) {
      expect([...importsOf(code).keys()]).toEqual([CODEGEN_MODULE])
      expect(outside(code)).toEqual([])
    }
  })

  it('the check refuses a name outside the table and another module', () => {
    expect(
      outside(`import { createProtoServer, Server } from "${CODEGEN_MODULE}"\nimport { x } from "unplugin-proto-mcp/runtime"`),
    ).toEqual(['Server', 'unplugin-proto-mcp/runtime (module)'])
  })
})

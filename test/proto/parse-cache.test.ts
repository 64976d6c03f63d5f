/**
 * The parse cache (src/proto/parse-cache.ts): a file added from the JSON of
 * its first parse gives the model and the runtime descriptor a fresh parse
 * gives, over every fixture proto and Google's APIs (test/corpus); a changed
 * text is parsed afresh; an error is the one a fresh parse gives.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { resetParseCache } from '../../src/proto/parse-cache.ts'
import { REPO } from '../helpers/repo.ts'
import { CORPUS, GOOGLE_PROTOS } from '../corpus/corpus.ts'

/** JSON of a model's Maps and Sets as their entries. */
const entries = (_key: string, value: unknown): unknown => (value instanceof Map || value instanceof Set ? [...value] : value)

/** A load's whole outcome as text: the model (its messages, enums and descriptor included), or the error with where it points. */
function outcome(file: string, importPaths: string[]): string {
  try {
    return JSON.stringify(loadProto(file, { importPaths }), entries)
  } catch (error) {
    const e = error as Error & Record<string, unknown>
    return JSON.stringify({ error: e.message, code: e.code, file: e.file, line: e.line, column: e.column, files: e.files })
  }
}

/** Where two outcomes first differ, with some text around it (the whole of one is megabytes). */
function firstDifference(fresh: string, cached: string): string {
  let at = 0
  while (at < fresh.length && fresh[at] === cached[at]) at++
  return `at ${at}: fresh ...${fresh.slice(Math.max(0, at - 80), at + 80)}... cached ...${cached.slice(Math.max(0, at - 80), at + 80)}...`
}

/** The files whose two outcomes differ, and where. */
const mismatches = (files: readonly string[], fresh: readonly string[], cached: readonly string[]): string[] =>
  files.flatMap((file, i) => (fresh[i] === cached[i] ? [] : [`${file}: ${firstDifference(fresh[i]!, cached[i]!)}`]))

/** Every `.proto` under `dir`. */
function protosUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.proto'))
    .map((path) => join(dir, path))
    .sort()
}

const FIXTURES = protosUnder(join(REPO, 'fixtures'))

/**
 * Each file's outcome with the cache off (every file parsed straight into
 * the build's roots, as protobufjs parses it), then with it on: filling it
 * (a file's imports shared with the files before it come from it), then
 * with every file it reads cached.
 */
function freshAndCached(files: readonly string[], importPaths: (file: string) => string[]): { fresh: string[]; cached: string[] } {
  resetParseCache(false)
  const fresh = files.map((file) => outcome(file, importPaths(file)))
  resetParseCache()
  const filling = files.map((file) => outcome(file, importPaths(file)))
  const cached = files.map((file) => outcome(file, importPaths(file)))
  expect(mismatches(files, fresh, filling)).toEqual([])
  return { fresh, cached }
}

describe('a file added from the cache', () => {
  it('gives what a fresh parse gives: every fixture proto', () => {
    expect(FIXTURES.length).toBeGreaterThan(30)
    const { fresh, cached } = freshAndCached(FIXTURES, (file) => [dirname(file), join(REPO, 'fixtures', 'protos')])
    expect(mismatches(FIXTURES, fresh, cached)).toEqual([])
    // Most load; the broken ones fail the same way each time.
    expect(fresh.filter((o) => !o.startsWith('{"error"')).length).toBeGreaterThan(25)
  })

  it("gives what a fresh parse gives: Google's APIs, which share most of their imports", () => {
    const files = CORPUS.map((proto) => join(GOOGLE_PROTOS, proto))
    const { fresh, cached } = freshAndCached(files, () => [GOOGLE_PROTOS])
    expect(mismatches(files, fresh, cached)).toEqual([])
    expect(fresh.every((o) => o.startsWith('{"file"'))).toBe(true)
    // The messages are compared too (a Map, as its entries), with their fields' custom options (google.api.field_behavior).
    expect(fresh.every((o) => o.includes('"messages":[["'))).toBe(true)
    expect(fresh.filter((o) => o.includes('"google.api.field_behavior":["REQUIRED"]')).length).toBeGreaterThan(20)
  }, 240_000)
})

describe('the cache follows the text', () => {
  afterAll(() => resetParseCache())
  const dir = mkdtempSync(join(tmpdir(), 'proto-mcp-parse-cache-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }

  it('a changed file is parsed afresh, its importer sees the change', () => {
    write('types.proto', 'syntax = "proto3";\npackage t;\nmessage Item { string name = 1; }\n')
    const main = write('main.proto', 'syntax = "proto3";\npackage t;\nimport "types.proto";\nservice S { rpc Get(Item) returns (Item); }\n')
    expect(
      loadProto(main)
        .messages.get('t.Item')
        ?.fields.map((f) => f.name),
    ).toEqual(['name'])
    write('types.proto', 'syntax = "proto3";\npackage t;\nmessage Item { string name = 1; int32 size = 2; }\n')
    expect(
      loadProto(main)
        .messages.get('t.Item')
        ?.fields.map((f) => f.name),
    ).toEqual(['name', 'size'])
  })

  it('a file that fails to parse fails again the same way, and once fixed loads', () => {
    const bad = write('bad.proto', 'syntax = "proto3";\npackage b;\nmessage M { string name = 1 }\n')
    resetParseCache(false)
    const once = outcome(bad, [])
    resetParseCache()
    expect(outcome(bad, [])).toBe(once)
    expect(once).toMatch(/"code":"PROTO_SYNTAX".*"line":3/)
    expect(outcome(bad, [])).toBe(once)
    write('bad.proto', 'syntax = "proto3";\npackage b;\nmessage M { string name = 1; }\nservice S { rpc Get(M) returns (M); }\n')
    expect(loadProto(bad).services.map((s) => s.name)).toEqual(['S'])
  })

  it('a name two files declare is the error a fresh parse gives, whichever of them was cached', () => {
    write('one.proto', 'syntax = "proto3";\npackage d;\nmessage Same { string a = 1; }\n')
    write('two.proto', 'syntax = "proto3";\npackage d;\nmessage Same { string b = 1; }\n')
    const both = write(
      'both.proto',
      'syntax = "proto3";\npackage d;\nimport "one.proto";\nimport "two.proto";\nservice S { rpc Get(Same) returns (Same); }\n',
    )
    resetParseCache(false)
    const fresh = outcome(both, [])
    expect(fresh).toMatch(/duplicate name 'Same'.*"file":"[^"]*two\.proto"/)
    resetParseCache()
    expect(outcome(both, [])).toBe(fresh)
    expect(outcome(both, [])).toBe(fresh)
  })
})

describe('builds in a row give what they give with the cache off', () => {
  const P3 = 'syntax = "proto3";\n'
  const service = (type: string) => `service S { rpc Get(${type}) returns (${type}); }\n`

  /** Writes `files` in a fresh folder and loads each root in turn, with the cache off and then on: where the two differ. */
  function offAndOn(files: Record<string, string>, roots: readonly string[]): string[] {
    const dir = mkdtempSync(join(tmpdir(), 'proto-mcp-parse-cache-'))
    try {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
      const run = (): string[] => roots.map((root) => outcome(join(dir, root), []))
      resetParseCache(false)
      const off = run()
      resetParseCache()
      const on = run()
      return mismatches(roots, off, on)
    } finally {
      resetParseCache()
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it("a name another file declares comes before the file's own later syntax error, as in a parse", () => {
    const files = {
      'a.proto': `${P3}package d;\nmessage Same { string a = 1; }\n`,
      'b.proto': `${P3}package d;\nmessage Same { string b = 1; }\nmessage Bad { string x = ; }\n`,
      'root.proto': `${P3}package r;\nimport "a.proto";\nimport "b.proto";\n${service('d.Same')}`,
    }
    expect(offAndOn(files, ['root.proto', 'root.proto'])).toEqual([])
  })

  it("one build's options stay out of the next: a package named as another file's message", () => {
    const files = {
      't.proto': `${P3}package a;\nmessage B { option deprecated = true; string y = 1; }\n`,
      'p.proto': `${P3}package a.B;\noption java_package = "jp";\nmessage X { string s = 1; }\n`,
      'root1.proto': `${P3}package r;\nimport "t.proto";\nimport "p.proto";\n${service('a.B')}`,
      'root2.proto': `${P3}package r;\nimport "t.proto";\n${service('a.B')}`,
      // The other way round: the message replaces the package, and takes its options.
      'root3.proto': `${P3}package r;\nimport "p.proto";\nimport "t.proto";\n${service('a.B')}`,
    }
    expect(offAndOn(files, ['root1.proto', 'root2.proto', 'root3.proto', 'root2.proto', 'root1.proto'])).toEqual([])
  })

  it("a package named as another file's message keeps its file's edition (proto3 under an editions message)", () => {
    const files = {
      't.proto': 'edition = "2023";\npackage a;\noption features.field_presence = LEGACY_REQUIRED;\nmessage B { string y = 1; }\n',
      'p.proto': `${P3}package a.B;\nmessage X { string s = 1; }\n`,
      'root.proto': `${P3}package r;\nimport "t.proto";\nimport "p.proto";\n${service('a.B.X')}`,
    }
    expect(offAndOn(files, ['root.proto', 'root.proto'])).toEqual([])
  })
})

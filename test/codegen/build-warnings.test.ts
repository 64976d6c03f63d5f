/**
 * Every build warning is data: a code from the table, a one-line message
 * ending in `(fix)` when it has a fix. One case per code, run through the
 * build pipeline; both outputs pass the same warnings up.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildProtoTools, compileInProcess, emitModuleSource, type ProtoTools } from '../../src/codegen/index.ts'
import { BUILD_WARNING_CODES, type BuildWarning, type BuildWarningCode } from '../../src/proto/index.ts'
import { undescribedWarnings } from '../../src/gateway/reflect-server.ts'
import { compile, writeProtos } from '../helpers/inline-proto.ts'

const fromFile = (source: string, options: Parameters<typeof buildProtoTools>[1] = {}): ProtoTools =>
  buildProtoTools(join(writeProtos({ 'w.proto': `syntax = "proto3"; package w.v1;\n${source}` }), 'w.proto'), options)

/** A resource whose List RPC needs a parent (`shelves/{shelf}`). */
const SHELF =
  'import "google/api/resource.proto";\n' +
  'message Book { option (google.api.resource) = { type: "library.example.com/Book" pattern: "shelves/{shelf}/books/{book}" }; string name = 1; }\n' +
  'message GetBookRequest { string name = 1; }\nmessage ListBooksRequest { string parent = 1; }\nmessage ListBooksResponse { repeated Book books = 1; }\n' +
  'service Library { rpc GetBook(GetBookRequest) returns (Book); rpc ListBooks(ListBooksRequest) returns (ListBooksResponse); }'

const fromModel = (source: string, name: string, options: Parameters<typeof buildProtoTools>[1] = {}): ProtoTools =>
  buildProtoTools({ model: compile(source), name }, options)

/** Both outputs of a build: their warnings, which must agree on what the stages before output reported. */
function outputWarnings(built: ProtoTools): BuildWarning[] {
  const emitted = emitModuleSource(built).warnings
  const compiled = compileInProcess(built).warnings
  expect(compiled).toEqual(emitted)
  expect(emitted.slice(0, built.warnings.length)).toEqual(built.warnings)
  return emitted
}

const MANY_FIELDS = 'abcdefghijklmnopqrstuvwx'
  .split('')
  .map((n, i) => `Expr ${n} = ${i + 2};`)
  .join(' ')

/** For each code, a build that reports it. */
const CASES: Record<BuildWarningCode, () => BuildWarning[]> = {
  NO_SERVICE: () => outputWarnings(fromFile('message M {}')),
  RESOURCE_PATTERN: () =>
    outputWarnings(
      fromFile(
        'import "google/api/resource.proto";\nmessage Doc { option (google.api.resource) = { type: "docs.example.com/Doc" pattern: "docs/{path=**}" }; string name = 1; }\n' +
          'message GetDocRequest { string name = 1; }\nservice S { rpc GetDoc(GetDocRequest) returns (Doc); }',
      ),
    ),
  RESOURCE_LISTING: () => outputWarnings(fromFile(SHELF, { listResources: true })),
  STREAMING_RPC_SKIPPED: () => outputWarnings(fromFile('message M {}\nservice S { rpc Up(stream M) returns (M); }')),
  TOOL_NAME_SHORTENED: () =>
    outputWarnings(fromFile('message M {}\nservice S { rpc R(M) returns (M); }', { toolNames: (rpc) => `get-${rpc.method}` })),
  TOOL_NAME_PATTERN: () =>
    outputWarnings(
      fromFile('message M {}\nservice S { rpc R(M) returns (M); }', { profile: 'topeka', toolNames: (rpc) => `${rpc.method}!` }),
    ),
  TOOL_NAME_BUDGET: () =>
    outputWarnings(
      fromModel('message M {}\nservice S { rpc ReconcileWarehouseStockAcrossEveryRegionNow(M) returns (M); }', 'inventory-service'),
    ),
  RECURSION_SHALLOWER: () =>
    outputWarnings(fromFile(`message Expr { string id = 1; ${MANY_FIELDS} }\nservice S { rpc Eval(Expr) returns (Expr); }`)),
  TOOL_NAME_CLASH: () =>
    outputWarnings(fromFile('message M {}\nservice A { rpc Ping(M) returns (M); }\nservice B { rpc Ping(M) returns (M); }')),
  AJV_LOG: () => {
    // No `.proto` gives a format Ajv does not know: the schema is given one.
    const built = fromFile('message M { string s = 1; }\nservice S { rpc R(M) returns (M); }')
    const tool = built.tools[0]!
    const odd: ProtoTools = { ...built, tools: [{ ...tool, validationSchema: { type: 'string', format: 'no-such-format' } }] }
    return outputWarnings(odd)
  },
  TOOL_OVER_BUDGET: () =>
    outputWarnings(
      fromFile(`message M { ${MANY_FIELDS.replace(/Expr/g, 'string')} }\nservice S { rpc R(M) returns (M); }`, { toolTokenBudget: 60 }),
    ),
  METHOD_PATTERN_UNMATCHED: () =>
    outputWarnings(fromFile('message M {}\nservice S { rpc R(M) returns (M); }', { methods: { include: ['**.S.R', 'w.v1.S.Nope*'] } })),
  TYPE_TOOL_CLASH: () =>
    outputWarnings(
      fromFile(`message N { ${MANY_FIELDS.replace(/Expr/g, 'string')} }\nmessage M { N n = 1; }\nservice S { rpc R(M) returns (M); }`, {
        toolTokenBudget: 60,
        typeTool: 'R',
      }),
    ),
  DISCOVERY_SEARCH: () =>
    outputWarnings(fromFile(`message M {}\nservice S { ${Array.from({ length: 41 }, (_, i) => `rpc R${i}(M) returns (M);`).join(' ')} }`)),
  // Both concern a server that lists its tools (discovery 'tools'); 'auto' lists the meta-tools past 40 (DISCOVERY_SEARCH).
  TOO_MANY_TOOLS: () =>
    outputWarnings(
      fromFile(`message M {}\nservice S { ${Array.from({ length: 129 }, (_, i) => `rpc R${i}(M) returns (M);`).join(' ')} }`, {
        discovery: { mode: 'tools' },
      }),
    ),
  LIST_OVER_TOKENS: () =>
    outputWarnings(
      fromFile(
        `message M { ${MANY_FIELDS.replace(/Expr/g, 'string')} }\nservice S { ${Array.from({ length: 500 }, (_, i) => `rpc R${i}(M) returns (M);`).join(' ')} }`,
        { profile: 'full', discovery: { mode: 'tools' } },
      ),
    ),
  // Reflection's own (test/reflection/custom-options.test.ts has it from a real gRPC server).
  SERVICE_UNDESCRIBED: () => undescribedWarnings([{ service: 'x.v1.S', reason: 'code 5: not found' }], '127.0.0.1:50051'),
}

describe('build warnings', () => {
  it("a server 'auto' turns to the meta-tools, or 'search' always, is not told its list is too long", () => {
    const many = `message M {}\nservice S { ${Array.from({ length: 129 }, (_, i) => `rpc R${i}(M) returns (M);`).join(' ')} }`
    expect(outputWarnings(fromFile(many)).map((w) => w.code)).toEqual(['DISCOVERY_SEARCH'])
    expect(outputWarnings(fromFile(many, { discovery: { mode: 'search' } }))).toEqual([])
    expect(outputWarnings(fromFile(many, { discovery: { mode: 'tools' } })).map((w) => w.code)).toEqual(['TOO_MANY_TOOLS'])
  })

  it('listResources: a List RPC needing a parent no under entry gives, and an under entry of no parent shape, are said', () => {
    const said = (listResources: NonNullable<Parameters<typeof buildProtoTools>[1]>['listResources']) =>
      outputWarnings(fromFile(SHELF, { listResources })).map((w) => w.message)
    expect(said(true)).toEqual([
      'resource library.example.com/Book: its List RPC (tool ListBooks) needs a parent like shelves/{shelf}, and listResources.under names none: resources/list lists none of them (add a parent of that shape to listResources.under)',
    ])
    expect(said({ under: ['p1'] })).toEqual([
      'resource library.example.com/Book: its List RPC (tool ListBooks) needs a parent like shelves/{shelf}, and listResources.under names none: resources/list lists none of them (add a parent of that shape to listResources.under)',
      'listResources.under "p1" is the parent of no resource a List RPC lists (their parents: shelves/{shelf})',
    ])
    expect(said({ under: ['shelves/s1'] })).toEqual([])
    expect(said(undefined)).toEqual([])
  })

  it('the cases cover the table of codes', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(BUILD_WARNING_CODES).sort())
  })

  for (const [code, run] of Object.entries(CASES) as [BuildWarningCode, () => BuildWarning[]][]) {
    it(`${code}: reported with its code, one line, the fix at the end of the message`, () => {
      const warnings = run()
      expect(warnings.map((w) => w.code)).toContain(code)
      for (const warning of warnings) {
        expect(Object.keys(BUILD_WARNING_CODES)).toContain(warning.code)
        expect(typeof warning.message).toBe('string')
        expect(warning.message).not.toMatch(/\n/)
        if (warning.fix !== undefined) expect(warning.message.endsWith(` (${warning.fix})`)).toBe(true)
        expect(Object.keys(warning).filter((key) => !['code', 'message', 'fix'].includes(key))).toEqual([])
      }
    })
  }

  it('a clash has the toolNames fix only while tools are named by method', () => {
    const source = 'message M {}\nservice A { rpc Ping(M) returns (M); }\nservice B { rpc Ping(M) returns (M); }'
    expect(fromModel(source, 'w').warnings).toEqual([
      expect.objectContaining({ code: 'TOOL_NAME_CLASH', fix: "set the toolNames option to 'service' or 'qualified' to keep every RPC" }),
    ])
    const byFunction = fromModel(source, 'w', { toolNames: () => 'Same' }).warnings
    expect(byFunction).toEqual([expect.objectContaining({ code: 'TOOL_NAME_CLASH' })])
    expect(byFunction[0]!.fix).toBeUndefined()
  })
})

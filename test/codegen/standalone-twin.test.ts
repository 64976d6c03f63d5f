/**
 * Ajv's "standalone twin": the validators the generated module carries and
 * validators compiled fresh from the same schemas agree on every input
 * (valid/invalid, and the same error objects).
 */
import { describe, expect, it } from 'vitest'
import { topekaFixture } from '../helpers/topeka.ts'
import { compile } from '../helpers/inline-proto.ts'
import { loadProto } from '../../src/proto/index.ts'
import { buildTools, sortKeys } from '../../src/schema/index.ts'
import * as runtime from '../../src/entries/codegen-v1.ts'
import { AJV_HELPERS, compileValidators, createAjv, type JsonSchema } from '../../src/codegen/index.ts'

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null }

/** Evaluates the generated validator code with the runtime's helpers in scope. */
function loadStandalone(schemas: JsonSchema[]): Validate[] {
  const { code, names, helpers } = compileValidators(schemas)
  const values = helpers.map((name) => (runtime as Record<string, unknown>)[name])
  const unique = [...new Set(names)]
  // eslint-disable-next-line no-new-func -- the point is to run generated code
  const table = new Function(...helpers, `${code}\nreturn { ${unique.join(', ')} }`)(...values) as Record<string, Validate>
  return names.map((name) => table[name]!)
}

const CASES: { title: string; schema: JsonSchema; inputs: unknown[] }[] = [
  {
    title: 'strings: type, minLength (ucs2length), pattern, date-time (ajv-formats)',
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        vibe: { type: 'string', minLength: 2, pattern: '^[a-z😀]+$' },
        at: { type: 'string', format: 'date-time' },
        mail: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
      },
    },
    inputs: [
      {},
      { vibe: 'chill' },
      { vibe: 5 },
      { vibe: '😀' },
      { vibe: 'A' },
      { at: '2024-01-02T03:04:05Z' },
      { at: 'yesterday' },
      { mail: 'a@b.co' },
      { mail: 'nope' },
      { site: 'https://x.test/a' },
      { site: 'not a uri' },
      { previous_vibe: 'x' },
      null,
      [],
      'str',
    ],
  },
  {
    title: 'enums, const and uniqueItems (ajvEqual)',
    schema: {
      type: 'object',
      properties: {
        mood: { type: 'string', enum: ['VIBE_UNSET', 'VIBE_GOOD'] },
        pick: { enum: [{ a: 1 }, [1, 2], 'x'] },
        fixed: { const: { k: [1] } },
        set: { type: 'array', uniqueItems: true, items: { type: 'object' } },
        moods: { type: 'array', items: { type: 'string', enum: ['A', 'B', 'C', 'D'] } },
      },
    },
    inputs: [
      { mood: 'VIBE_GOOD' },
      { mood: 1 },
      { pick: { a: 1 } },
      { pick: { a: 2 } },
      { fixed: { k: [1] } },
      { fixed: { k: [2] } },
      { set: [{ a: 1 }, { a: 1 }] },
      { set: [{ a: 1 }, { a: 2 }] },
      { moods: ['A', 'E', 3] },
    ],
  },
  {
    title: 'portable 64-bit integers and floats (anyOf)',
    schema: {
      type: 'object',
      properties: {
        big: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] },
        ubig: {
          anyOf: [
            { type: 'integer', minimum: 0 },
            { type: 'string', pattern: '^[0-9]+$' },
          ],
        },
        ratio: { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] },
        small: { type: 'integer', minimum: 0, maximum: 4294967295 },
      },
    },
    inputs: [
      { big: 1 },
      { big: '-12' },
      { big: 'x' },
      { big: 1.5 },
      { ubig: -1 },
      { ubig: '-1' },
      { ratio: 'NaN' },
      { ratio: 'nan' },
      { ratio: 0.5 },
      { small: -1 },
      { small: 2 ** 33 },
    ],
  },
  {
    title: 'recursion through $defs and maps',
    schema: {
      type: 'object',
      properties: {
        node: { $ref: '#/$defs/schemapb.Node' },
        labels: { type: 'object', additionalProperties: { type: 'integer' } },
      },
      $defs: {
        'schemapb.Node': {
          type: 'object',
          additionalProperties: false,
          properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/schemapb.Node' } } },
        },
      },
    },
    inputs: [
      { node: { value: 'a', children: [{ value: 'b', children: [] }] } },
      { node: { value: 'a', children: [{ value: 1, extra: true }] } },
      { labels: { a: 1, b: 'two' } },
      // Several failing items at several depths: errors appended in place (rewriteErrorConcat).
      {
        node: {
          value: 1,
          children: [
            { value: 2, children: [{ value: 3 }, 'x', { children: [{ bad: 1 }, 5] }] },
            7,
            { value: 'ok', children: [{ value: 4, children: [null, { value: 5 }] }] },
          ],
        },
        labels: { a: 'one' },
      },
    ],
  },
]

/** The recursive `Node` of the quadratic-validation regression, its root a `$ref` target too. */
function treeCases(): typeof CASES {
  const model = compile(`
    message Node { string name = 1; Node child = 2; repeated Node kids = 3; }
    service S { rpc Tree(Node) returns (Node); }
  `)
  const bad = (depth: number): unknown =>
    depth === 0
      ? { name: 1, kids: [1, { name: 2 }, 'x'] }
      : { name: depth, child: bad(depth - 1), kids: [bad(depth - 1), 3, { kids: [4, bad(depth - 1)] }] }
  return buildTools(model, { profile: 'full' }).tools.map((tool) => ({
    title: 'recursive Node (root $ref): failing items at several depths',
    schema: sortKeys(tool.inputSchema),
    inputs: [
      {},
      { kids: [1, 1, 1] },
      { child: { kids: [1, { kids: [2, 3] }] }, kids: [4] },
      bad(1),
      bad(3),
      { name: 'ok', kids: [{ name: 'a' }, { name: 'b', child: { name: 'c' } }] },
    ],
  }))
}

/** The input schemas of example.proto's tools in both profiles, with inputs from docs/calls.md and more. */
function exampleCases(): typeof CASES {
  const model = loadProto(topekaFixture('example.proto'))
  const inputs = [
    {},
    { vibe: 'chill' },
    { vibe: 5 },
    { previous_vibe: 'x' },
    null,
    { vibe: 'details', vibeScalar: { vibeEnum: [1] } },
    { vibeScalar: { vibeInt64: '12', vibeUint64: '-1', vibeDouble: 'NaN', vibeFloat: 'nan', vibeBytes: 'aGk=', vibeUint32: -1 } },
    { vibeArray: { vibeInt64s: [1, '2', 'x'], vibeBools: [true, 'no'], vibeDoubles: ['Infinity', {}] } },
    { vibeObject: [{ vibe: 'a' }, { vibe: 1, other: true }] },
  ]
  return (['full', 'topeka'] as const).flatMap((profile) =>
    buildTools(model, { profile }).tools.map((tool) => ({
      title: `example.proto ${profile}: ${tool.name}`,
      schema: sortKeys(tool.inputSchema),
      inputs,
    })),
  )
}

describe('generated validators agree with freshly compiled ones', () => {
  const cases = [...CASES, ...exampleCases(), ...treeCases()]
  const standalone = loadStandalone(cases.map((c) => c.schema))
  cases.forEach((c, i) => {
    it(c.title, () => {
      const fresh = createAjv().compile(c.schema)
      const twin = standalone[i]!
      const kept: { errors: unknown; copy: unknown }[] = []
      for (const input of c.inputs) {
        const expected = fresh(input)
        expect(twin(input), JSON.stringify(input)).toBe(expected)
        expect(twin.errors ?? null, JSON.stringify(input)).toEqual(fresh.errors ?? null)
        kept.push({ errors: twin.errors, copy: structuredClone(twin.errors) })
      }
      // Errors are appended in place: a later call must not change an earlier result.
      for (const { errors, copy } of kept) expect(errors).toEqual(copy)
    })
  })

  it('every helper the rewriter may emit is exported by unplugin-proto-mcp/codegen-v1', () => {
    for (const { name } of AJV_HELPERS) expect(runtime, name).toHaveProperty(name)
  })

  it('identical schemas share one validator', () => {
    const { names } = compileValidators([CASES[0]!.schema, CASES[1]!.schema, structuredClone(CASES[0]!.schema)])
    expect(names).toEqual(['inputValidator0', 'inputValidator1', 'inputValidator0'])
  })
})

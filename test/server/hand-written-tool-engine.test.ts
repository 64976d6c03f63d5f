/**
 * The Ajv hand-written tools compile with (docs/serving.md, "Tools, errors and visibility"): on Node the
 * 2020-12 class of the MCP SDK's bundled copy (server/validation/ajv-engine.ts), in
 * the web build the package's own (server/validation/ajv-engine-web.ts). Both must be
 * JSON Schema 2020-12 with formats, and give the same verdicts.
 */
import Ajv2020Own from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { HAND_TOOL_VALIDATOR_OPTIONS } from '../../src/contract/index.ts'
import { loadAjv } from '../../src/server/validation/ajv-engine.ts'
import { loadAjv as loadWebAjv } from '../../src/server/validation/ajv-engine-web.ts'

/** Schemas only a 2020-12 engine with formats reads as written, with values each must accept and reject. */
const CASES: Array<{ schema: object; good: unknown[]; bad: unknown[] }> = [
  { schema: { type: 'array', prefixItems: [{ type: 'string' }], items: false }, good: [['a']], bad: [['a', 1], [1]] },
  {
    schema: { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false },
    good: [{ a: 'x' }],
    bad: [{ a: 'x', b: 1 }],
  },
  {
    schema: { $defs: { n: { $anchor: 'num', type: 'number' } }, type: 'object', properties: { n: { $ref: '#num' } } },
    good: [{ n: 1 }],
    bad: [{ n: 'one' }],
  },
  {
    schema: {
      $id: 'https://example.com/tree',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { kids: { type: 'array', items: { $dynamicRef: '#node' } } },
    },
    good: [{ kids: [{ kids: [] }] }],
    bad: [{ kids: [1] }],
  },
  { schema: { if: { required: ['a'] }, then: { required: ['b'] } }, good: [{}, { a: 1, b: 2 }], bad: [{ a: 1 }] },
  { schema: { type: 'string', format: 'date-time' }, good: ['2026-12-01T10:00:00Z'], bad: ['yesterday'] },
  { schema: { type: 'string', format: 'email' }, good: ['a@example.com'], bad: ['a@'] },
]

describe.each([
  ['the SDK copy (Node)', loadAjv],
  ['the bundled copy (web build)', loadWebAjv],
])('hand-written tools on %s', (_, load) => {
  it('is JSON Schema 2020-12 with formats', () => {
    const { Ajv2020, addFormats } = load()
    const ajv = new Ajv2020({ ...HAND_TOOL_VALIDATOR_OPTIONS, logger: false })
    addFormats(ajv)
    for (const { schema, good, bad } of CASES) {
      const validate = ajv.compile(schema)
      for (const value of good) expect(validate(value), `${JSON.stringify(schema)} accepts ${JSON.stringify(value)}`).toBe(true)
      for (const value of bad) expect(validate(value), `${JSON.stringify(schema)} rejects ${JSON.stringify(value)}`).toBe(false)
      ajv.removeSchema(schema)
    }
    expect(ajv.validateSchema({ type: 'nope' })).toBe(false)
  })
})

it('on Node, the class is the SDK copy, not a second one of this package', () => {
  expect(loadAjv().Ajv2020).not.toBe(Ajv2020Own)
  expect(loadWebAjv().Ajv2020).toBe(Ajv2020Own)
  expect(loadAjv()).toBe(loadAjv())
})

/**
 * Ajv standalone code runs on the helpers `/runtime` exports: every
 * `require(...)` Ajv emits for JSON Schema maps onto one of them.
 */
import standaloneCode from 'ajv/dist/standalone/index.js'
import { describe, expect, it } from 'vitest'
import { ajvEqual, ajvFormats, ajvUcs2length, ajvUri, ajvValidationError } from '../../src/entries/codegen-v1.ts'
import type { ValidateFunction } from '../../src/runtime/types.ts'
import { makeAjv } from '../helpers/spec-from-proto.ts'

const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as (ajv: unknown, v: unknown) => string

const RUNTIME: Record<string, unknown> = {
  'ajv/dist/runtime/equal': { default: ajvEqual },
  'ajv/dist/runtime/ucs2length': { default: ajvUcs2length },
  'ajv/dist/runtime/uri': { default: ajvUri },
  'ajv/dist/runtime/validation_error': { default: ajvValidationError },
  'ajv-formats/dist/formats': { fullFormats: ajvFormats },
}

function compileStandalone(schema: object): ValidateFunction {
  const ajv = makeAjv()
  // CommonJS standalone output, so the test can hand it a `require`.
  const ajvWithCode = ajv as unknown as { opts: { code: { source: boolean; esm: boolean } } }
  ajvWithCode.opts.code.source = true
  ajvWithCode.opts.code.esm = false
  const code = standalone(ajv, ajv.compile(schema))
  const required = new Set<string>()
  const module = { exports: {} as { default?: ValidateFunction } }
  const requireFn = (id: string) => {
    required.add(id)
    if (!(id in RUNTIME)) throw new Error(`unexpected require(${id})`)
    return RUNTIME[id]
  }
  // eslint-disable-next-line no-new-func -- the point is to run the generated code
  new Function('module', 'exports', 'require', code)(module, module.exports, requireFn)
  return module.exports as unknown as ValidateFunction
}

describe('Ajv runtime helpers', () => {
  it('are functions and objects of the expected kind', () => {
    expect(typeof ajvEqual).toBe('function')
    expect(typeof ajvUcs2length).toBe('function')
    expect(typeof (ajvUri as { resolve?: unknown }).resolve).toBe('function')
    expect(typeof ajvValidationError).toBe('function')
    expect(ajvFormats).toHaveProperty('date-time')
    expect(ajvUcs2length('😀')).toBe(1)
    expect(ajvEqual({ a: [1] }, { a: [1] })).toBe(true)
  })

  it('run standalone validators (uniqueItems, const, minLength, formats)', () => {
    const validate = compileStandalone({
      type: 'object',
      properties: {
        list: { type: 'array', uniqueItems: true },
        fixed: { const: { a: 1 } },
        name: { type: 'string', minLength: 2 },
        when: { type: 'string', format: 'date-time' },
        email: { type: 'string', format: 'email' },
      },
    })
    expect(validate({ list: [1, 2], fixed: { a: 1 }, name: '😀😀', when: '2024-01-01T00:00:00Z', email: 'a@b.co' })).toBe(true)
    expect(validate({ list: [{ x: 1 }, { x: 1 }] })).toBe(false)
    expect(validate({ name: '😀' })).toBe(false)
    expect(validate({ when: 'yesterday' })).toBe(false)
    expect(validate({ fixed: { a: 2 } })).toBe(false)
  })
})

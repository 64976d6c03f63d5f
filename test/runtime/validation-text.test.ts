import { describe, expect, it } from 'vitest'
import { MAX_LISTED_CHARS, renderValidationErrors } from '../../src/runtime/validation-text.ts'
import { makeAjv } from '../helpers/spec-from-proto.ts'
import type { ValidateFunction } from '../../src/runtime/types.ts'

function texts(schema: object, data: unknown): string {
  const validate = makeAjv().compile(schema) as unknown as ValidateFunction
  expect(validate(data)).toBe(false)
  return renderValidationErrors(validate.errors ?? [], data)
}

describe('validation messages (docs/calls.md, "Validation texts" table)', () => {
  it('type, single and several', () => {
    expect(texts({ type: 'string' }, 5)).toBe('invalid arguments: : 5 is not of type "string"')
    expect(texts({ type: ['integer', 'string'] }, null)).toBe('invalid arguments: : null is not of types "integer", "string"')
  })

  it('enum with one, two, three and more candidates', () => {
    expect(texts({ enum: ['A'] }, 'x')).toBe('invalid arguments: : "x" is not one of "A"')
    expect(texts({ enum: ['A', 'B'] }, 'x')).toBe('invalid arguments: : "x" is not one of "A" or "B"')
    expect(texts({ enum: ['A', 'B', 'C'] }, 'x')).toBe('invalid arguments: : "x" is not one of "A", "B" or "C"')
    expect(texts({ enum: ['A', 'B', 'C', 'D'] }, 'x')).toBe('invalid arguments: : "x" is not one of "A", "B", "C" or "D"')
    // Every name while they fit in MAX_LISTED_CHARS; then the first ones and a count.
    const many = Array.from({ length: 200 }, (_, i) => `VALUE_NUMBER_${i}`)
    const text = texts({ enum: many }, 'x')
    expect(text).toMatch(
      /^invalid arguments: : "x" is not one of "VALUE_NUMBER_0", "VALUE_NUMBER_1", .* or \d+ other candidates \(the schema lists them\)$/,
    )
    expect(text.length).toBeLessThan(MAX_LISTED_CHARS + 200)
    expect(text.length).toBeGreaterThan(MAX_LISTED_CHARS - 100)
  })

  it('minimum, maximum', () => {
    expect(texts({ minimum: 0 }, -1)).toBe('invalid arguments: : -1 is less than the minimum of 0')
    expect(texts({ maximum: 3 }, 5)).toBe('invalid arguments: : 5 is greater than the maximum of 3')
  })

  it('required', () => {
    expect(texts({ type: 'object', required: ['name'] }, {})).toBe('invalid arguments: : "name" is a required property')
  })

  it('minLength, maxLength (singular and plural)', () => {
    expect(texts({ minLength: 1 }, '')).toBe('invalid arguments: : "" is shorter than 1 character')
    expect(texts({ minLength: 2 }, 'a')).toBe('invalid arguments: : "a" is shorter than 2 characters')
    expect(texts({ maxLength: 5 }, 'abcdef')).toBe('invalid arguments: : "abcdef" is longer than 5 characters')
  })

  it('pattern', () => {
    expect(texts({ pattern: '^a+$' }, 'x')).toBe('invalid arguments: : "x" does not match "^a+$"')
  })

  it('minItems, maxItems', () => {
    expect(texts({ minItems: 1 }, [])).toBe('invalid arguments: : [] has less than 1 item')
    expect(texts({ maxItems: 2 }, [1, 2, 3])).toBe('invalid arguments: : [1,2,3] has more than 2 items')
  })

  it('anyOf is one message without its branches, other errors kept in order', () => {
    const schema = {
      type: 'object',
      properties: {
        f: { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] },
        s: { type: 'string' },
      },
    }
    expect(texts(schema, { f: 'x', s: 1 })).toBe(
      'invalid arguments: /f: "x" is not valid under any of the schemas listed in the \'anyOf\' keyword; /s: 1 is not of type "string"',
    )
  })

  it('pointers escape ~ and /', () => {
    expect(texts({ properties: { 'a/b': { type: 'string' } } }, { 'a/b': 1 })).toBe('invalid arguments: /a~1b: 1 is not of type "string"')
  })
})

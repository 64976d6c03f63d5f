/**
 * What validators are compiled from (src/codegen/validator-schema.ts): no
 * annotations, floats and `not_in` as keywords, shared message schemas
 * compiled once; and that none of it changes what is accepted or what an
 * error says.
 */
import { describe, expect, it } from 'vitest'
import {
  compileValidators,
  compileValidatorsInProcess,
  createAjv,
  shareSchemas,
  validatorSchema,
  type JsonSchema,
} from '../../src/codegen/index.ts'
import { renderValidationErrors } from '../../src/runtime/validation-text.ts'
import type { ValidationError } from '../../src/runtime/types.ts'

const item: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'An item.',
  properties: { id: { type: 'string', description: 'The id.' }, count: { type: 'string', pattern: '^-?[0-9]+$' } },
}

function texts(schema: JsonSchema, data: unknown): string | undefined {
  const [validate] = compileValidatorsInProcess([schema]).validators
  return validate!(data) ? undefined : renderValidationErrors((validate!.errors ?? []) as ValidationError[], data)
}

describe('validatorSchema', () => {
  it('drops annotations at schema positions only: a property named "description" stays', () => {
    const schema = {
      type: 'object',
      title: 'T',
      description: 'd',
      properties: { description: { type: 'string', description: 'x', default: 'y' } },
      required: ['description'],
    }
    expect(validatorSchema(schema)).toEqual({ type: 'object', properties: { description: { type: 'string' } }, required: ['description'] })
  })

  it('writes an advertised float as one keyword, `null` included in strict', () => {
    const float = {
      anyOf: [
        { type: 'number', exclusiveMinimum: 5 },
        { type: 'string', enum: ['Infinity'] },
      ],
      'x-advertised-branch': 0,
      description: 'd',
    }
    expect(validatorSchema(float)).toEqual({ exclusiveMinimum: 5, 'x-proto-float': ['Infinity'] })
    const strict = { ...float, anyOf: [...float.anyOf, { type: 'null' }] }
    expect(validatorSchema(strict)).toEqual({ exclusiveMinimum: 5, 'x-proto-float': ['Infinity', null] })
    // Without the mark (`full`), the anyOf stays.
    const { 'x-advertised-branch': _, ...unmarked } = float
    expect(validatorSchema(unmarked)).toEqual({ anyOf: float.anyOf })
  })

  it('the float keyword accepts what the anyOf accepts, and says what the advertised branch says', () => {
    const raw = {
      type: 'object',
      properties: {
        f: {
          anyOf: [
            { type: 'number', exclusiveMinimum: 5 },
            { type: 'string', enum: ['Infinity'] },
          ],
          'x-advertised-branch': 0,
        },
      },
    }
    const plain = createAjv().compile({ ...raw, properties: { f: { anyOf: raw.properties.f.anyOf } } })
    const [validate] = compileValidatorsInProcess([raw]).validators
    for (const f of [6, 5, 4, 'Infinity', 'NaN', '-Infinity', 'x', true, null, {}, [], 5.5]) {
      expect(validate!({ f }), JSON.stringify(f)).toBe(plain({ f }))
    }
    expect(texts(raw, { f: 'x' })).toBe('invalid arguments: /f: "x" is not of type "number"')
    expect(texts(raw, { f: 4 })).toBe('invalid arguments: /f: 4 is less than or equal to the minimum of 5')
    expect(texts(raw, { f: 'NaN' })).toBe('invalid arguments: /f: "NaN" is not of type "number"')
  })

  it('`not: {enum}` keeps its text and its meaning', () => {
    const raw = { type: 'object', properties: { s: { type: 'string', not: { enum: ['a', 'b'] } }, n: { not: { enum: [1, 2] } } } }
    expect(validatorSchema(raw.properties.s)).toEqual({ type: 'string', 'x-not-in': ['a', 'b'] })
    const plain = createAjv().compile(raw)
    const [validate] = compileValidatorsInProcess([raw]).validators
    for (const value of ['a', 'b', 'c', 1, 2, 3, '1', null]) {
      expect(validate!({ s: value, n: value }), JSON.stringify(value)).toBe(plain({ s: value, n: value }))
    }
    expect(texts(raw, { s: 'a', n: 2 })).toBe(
      'invalid arguments: /s: "a" should not be valid under {"enum":["a","b"]}; /n: 2 should not be valid under {"enum":[1,2]}',
    )
  })
})

describe('edge cases', () => {
  it('`not_in: []` excludes nothing (and compiles)', () => {
    const raw = { type: 'object', properties: { s: { type: 'string', not: { enum: [] } } } }
    expect(validatorSchema(raw.properties.s)).toEqual({ type: 'string', 'x-not-in': [] })
    const [validate] = compileValidatorsInProcess([raw]).validators
    expect(validate!({ s: 'anything' })).toBe(true)
  })

  it('a schema that is no 2020-12 schema is refused by name: checked against the draft for a module, build after build; by Ajv in process', () => {
    const bad = { type: 'object', properties: { s: { type: 'string', minLength: 'three' } } }
    for (let build = 0; build < 2; build++) {
      expect(() => compileValidators([bad], ['Bad'])).toThrow(
        'cannot compile the input schema of tool "Bad": schema is invalid: data/properties/s/minLength must be integer',
      )
      expect(() => compileValidatorsInProcess([bad], ['Bad'])).toThrow(
        'cannot compile the input schema of tool "Bad": minLength value must be ["number"]',
      )
    }
    // A shared message schema is checked too.
    const message = { type: 'object', properties: { n: { type: 'integer', maximum: 'ten' } } }
    const twice = { type: 'object', properties: { a: message, b: message } }
    expect(() => compileValidators([twice], ['Twice'])).toThrow(/schema is invalid: .*maximum must be number/)
    expect(() => compileValidatorsInProcess([twice], ['Twice'])).toThrow(/maximum value must be \["number"\]/)
  })

  it('an inherited key a validator visits shows its value (arguments built in process)', () => {
    const raw = { type: 'object', additionalProperties: { type: 'object' } }
    const args = Object.create({ name: 'x' }) as Record<string, unknown>
    expect(texts(raw, args)).toBe('invalid arguments: /name: "x" is not of type "object"')
  })
})

describe('shared message schemas', () => {
  const toolA: JsonSchema = { type: 'object', properties: { item: item, items: { type: 'array', items: item } } }
  const toolB: JsonSchema = { type: 'object', properties: { other: item, f: { anyOf: [item, { type: 'string' }] } } }

  it('moves an object schema used twice into one schema, not inside anyOf branches', () => {
    const { roots, shared } = shareSchemas([validatorSchema(toolA) as JsonSchema, validatorSchema(toolB) as JsonSchema])
    expect(shared).toEqual([{ $id: 'shared:0', ...(validatorSchema(item) as JsonSchema) }])
    expect(roots[0]).toEqual({
      type: 'object',
      properties: { item: { $ref: 'shared:0' }, items: { type: 'array', items: { $ref: 'shared:0' } } },
    })
    expect((roots[1]!.properties as JsonSchema).other).toEqual({ $ref: 'shared:0' })
    expect(((roots[1]!.properties as JsonSchema).f as JsonSchema).anyOf).toEqual([validatorSchema(item), { type: 'string' }])
  })

  it('leaves a schema with a $ref into its tool where it is', () => {
    const recursive = {
      type: 'object',
      properties: { child: { $ref: '#/$defs/N' }, name: { type: 'string', description: 'long enough to be worth sharing, surely' } },
    }
    const { shared } = shareSchemas([{ $defs: { N: recursive }, properties: { a: recursive, b: recursive } }])
    expect(shared).toEqual([])
  })

  it('compiles the shared schema once per module; errors keep their full paths', () => {
    const { code } = compileValidators([toolA, toolB])
    expect(code.match(/sourceURL="shared:0"/g)).toHaveLength(1)
    expect(texts(toolA, { item: { id: 1 }, items: [{ id: 'ok' }, { count: 'x', extra: true }] })).toBe(
      'invalid arguments: /item/id: 1 is not of type "string"; /items/1: Additional properties are not allowed (\'extra\' was unexpected); /items/1/count: "x" does not match "^-?[0-9]+$"',
    )
    expect(texts(toolB, { other: { id: 2 }, f: 3 })).toBe(
      'invalid arguments: /other/id: 2 is not of type "string"; /f: 3 is not valid under any of the schemas listed in the \'anyOf\' keyword',
    )
  })
})

/**
 * Regression: a field with `[json_name = "__proto__"]` silently vanished from
 * the schema (`properties[jsonName] = ...` set the prototype; `sortKeys` too).
 */
import { describe, expect, it } from 'vitest'
import { messageSchema, setOwn, sortKeys } from '../../src/schema/index.ts'
import { compile } from '../helpers/inline-proto.ts'

describe('a "__proto__" key stays an own property', () => {
  it('json_name = "__proto__" is a property of the schema (and a pattern property, which Ajv honours)', () => {
    const model = compile('message M { string name = 1; string weird = 2 [json_name = "__proto__"]; }')
    const schema = messageSchema(model, 't.M')
    const properties = schema.properties as Record<string, unknown>
    expect(Object.keys(properties)).toEqual(['__proto__', 'name'])
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype)
    expect(JSON.parse(JSON.stringify(schema))).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: JSON.parse('{"__proto__":{"type":"string"},"name":{"type":"string"}}'),
      patternProperties: { '^__proto__$': { type: 'string' } },
    })
    expect(JSON.stringify(schema)).toContain('"properties":{"__proto__":{"type":"string"},"name":')
  })

  it('sortKeys copies a "__proto__" key as an own key', () => {
    const sorted = sortKeys(JSON.parse('{"b":1,"__proto__":{"x":1}}') as Record<string, unknown>)
    expect(Object.keys(sorted)).toEqual(['__proto__', 'b'])
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype)
    expect(JSON.stringify(sorted)).toBe('{"__proto__":{"x":1},"b":1}')
  })

  it('setOwn defines an enumerable, writable own property', () => {
    const target: Record<string, unknown> = {}
    setOwn(target, '__proto__', 1)
    expect(Object.getOwnPropertyDescriptor(target, '__proto__')).toEqual({ value: 1, enumerable: true, writable: true, configurable: true })
  })
})

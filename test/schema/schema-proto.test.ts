/**
 * Schema rules (docs/mapping.md, "Input schema: the shape") on the conformance fixture schema.proto.
 */
import { fileURLToPath } from 'node:url'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { messageSchema } from '../../src/schema/message-schema.ts'

const model = loadProto(fileURLToPath(new URL('../../fixtures/topeka/schema.proto', import.meta.url)))
const topeka = (name: string): Record<string, any> => messageSchema(model, name, { profile: 'topeka' })
const portable = (name: string): Record<string, any> => messageSchema(model, name, { profile: 'full' })

const FLOAT = { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] }
const INT64 = { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] }
const UINT64 = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^[0-9]+$' },
  ],
}
const VALUE = {
  anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
}
const COLOR = {
  type: 'string',
  enum: ['COLOR_UNSPECIFIED', 'COLOR_RED', 'COLOR_GREEN', 'COLOR_BLUE'],
  description: 'Color is a plain enum used to test enum schema generation.',
}
const INNER = {
  type: 'object',
  additionalProperties: false,
  description: 'Inner is a plain nested message with no recursion, used for the "nested message" row.',
  properties: { name: { type: 'string', description: 'A string field on the nested message.' } },
}
const NODE = {
  type: 'object',
  additionalProperties: false,
  description:
    'Node is a recursive message, used to test that recursive messages are represented with $defs + $ref instead of looping forever.',
  properties: {
    value: { type: 'string', description: 'The value held by this node.' },
    children: { type: 'array', description: 'Child nodes.', items: { $ref: '#/$defs/schemapb.Node' } },
  },
}
const NOTE = 'Part of the "contact" oneof: at most one of its fields may be set.'

describe('AllScalars', () => {
  const expected: Record<string, [string, object, object]> = {
    sString: ['A string field.', { type: 'string' }, { type: 'string' }],
    sBytes: ['A bytes field.', { type: 'string', contentEncoding: 'base64' }, { type: 'string', contentEncoding: 'base64' }],
    sBool: ['A bool field.', { type: 'boolean' }, { type: 'boolean' }],
    sInt32: ['An int32 field.', { type: 'integer' }, { type: 'integer' }],
    sSint32: ['A sint32 field.', { type: 'integer' }, { type: 'integer' }],
    sSfixed32: ['An sfixed32 field.', { type: 'integer' }, { type: 'integer' }],
    sUint32: ['A uint32 field.', { type: 'integer', minimum: 0 }, { type: 'integer', minimum: 0 }],
    sFixed32: ['A fixed32 field.', { type: 'integer', minimum: 0 }, { type: 'integer', minimum: 0 }],
    sInt64: ['An int64 field.', { type: ['integer', 'string'] }, INT64],
    sSint64: ['A sint64 field.', { type: ['integer', 'string'] }, INT64],
    sSfixed64: ['An sfixed64 field.', { type: ['integer', 'string'] }, INT64],
    sUint64: ['A uint64 field.', { type: ['integer', 'string'], minimum: 0 }, UINT64],
    sFixed64: ['A fixed64 field.', { type: ['integer', 'string'], minimum: 0 }, UINT64],
    sFloat: ['A float field.', FLOAT, FLOAT],
    sDouble: ['A double field.', FLOAT, FLOAT],
  }

  it('has exactly one property per field, under its JSON name', () => {
    expect(Object.keys(topeka('schemapb.AllScalars').properties).sort()).toEqual(Object.keys(expected).sort())
  })

  it.each(Object.entries(expected))('%s', (key, [description, topekaSchema, defaultSchema]) => {
    expect(topeka('schemapb.AllScalars').properties[key]).toEqual({ ...topekaSchema, description })
    expect(portable('schemapb.AllScalars').properties[key]).toEqual({ ...defaultSchema, description })
  })

  it('is a closed object with the message description and no required/title/$schema', () => {
    const schema = topeka('schemapb.AllScalars')
    expect(schema.type).toBe('object')
    expect(schema.additionalProperties).toBe(false)
    expect(schema.description).toBe('AllScalars covers every scalar proto kind in the schema table.')
    for (const key of ['required', 'title', '$schema', '$defs', 'default']) expect(schema).not.toHaveProperty(key)
  })
})

describe('SchemaTestMessage', () => {
  const topekaProperties = {
    name: { type: 'string', description: 'A plain string field.' },
    numbers: { type: 'array', description: 'A repeated scalar field.', items: { type: 'integer' } },
    counts: { type: 'object', description: 'A map from string to an int32.', additionalProperties: { type: 'integer' } },
    namedInners: { type: 'object', description: 'A map from string to a message.', additionalProperties: INNER },
    colorByName: { type: 'object', description: 'A map from string to an enum.', additionalProperties: COLOR },
    inner: { ...INNER, description: 'A nested (non-recursive) message field.' },
    root: { $ref: '#/$defs/schemapb.Node', description: 'A recursive message field.' },
    favoriteColor: { ...COLOR, description: 'An enum field.' },
    colors: { type: 'array', description: 'A repeated enum field.', items: COLOR },
    nickname: { type: 'string', description: 'A proto3 optional field: never required.' },
    email: { type: 'string', description: `Email address. ${NOTE}` },
    phone: { type: 'string', description: `Phone number. ${NOTE}` },
    createdAt: { type: 'string', format: 'date-time' },
    ttl: { type: 'string' },
    nicknameWrapper: { type: 'string' },
    countWrapper: { type: 'integer' },
    flagWrapper: { type: 'boolean' },
    blobWrapper: { type: 'string', contentEncoding: 'base64' },
    metadata: { type: 'object' },
    anyValue: {},
    anyList: { type: 'array' },
    updateMask: { type: 'string' },
    nothing: { type: 'object', additionalProperties: false },
    scoreWrapper: FLOAT,
    ratioWrapper: FLOAT,
    bigCountWrapper: { type: ['integer', 'string'] },
    bigUnsignedWrapper: { type: ['integer', 'string'], minimum: 0 },
    smallUnsignedWrapper: { type: 'integer', minimum: 0 },
    anyPayload: { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'] },
  }
  const description =
    'SchemaTestMessage is the top-level request message used to test the schema builder: ' +
    'it exercises every row of the schema table in the issue.'

  it('topeka profile: every row of the table, $defs holding exactly schemapb.Node', () => {
    expect(topeka('schemapb.SchemaTestMessage')).toEqual({
      type: 'object',
      additionalProperties: false,
      description,
      properties: topekaProperties,
      $defs: { 'schemapb.Node': NODE },
    })
  })

  it('default profile: differs only in 64-bit wrappers and Value/ListValue', () => {
    expect(portable('schemapb.SchemaTestMessage')).toEqual({
      type: 'object',
      additionalProperties: false,
      description,
      properties: {
        ...topekaProperties,
        anyValue: VALUE,
        anyList: { type: 'array', items: VALUE },
        bigCountWrapper: INT64,
        bigUnsignedWrapper: UINT64,
      },
      $defs: { 'schemapb.Node': NODE },
    })
  })

  it('validates a full instance and rejects snake_case keys, numbers for enums, two bad shapes', () => {
    const validate = ajv().compile(portable('schemapb.SchemaTestMessage'))
    const good = {
      name: 'n',
      numbers: [1, 2],
      counts: { a: 1 },
      namedInners: { x: { name: 'i' } },
      colorByName: { a: 'COLOR_RED' },
      inner: { name: 'i' },
      root: { value: 'r', children: [{ value: 'c', children: [] }] },
      favoriteColor: 'COLOR_BLUE',
      colors: ['COLOR_RED'],
      nickname: 'nick',
      email: 'a@b.c',
      createdAt: '2024-01-02T03:04:05Z',
      ttl: '1s',
      nicknameWrapper: 's',
      countWrapper: 3,
      flagWrapper: true,
      blobWrapper: 'AAE=',
      metadata: { k: [1] },
      anyValue: null,
      anyList: [1, 'a', null],
      updateMask: 'a,b',
      nothing: {},
      scoreWrapper: 'NaN',
      ratioWrapper: 1.5,
      bigCountWrapper: '-9223372036854775808',
      bigUnsignedWrapper: 18,
      smallUnsignedWrapper: 0,
      anyPayload: { '@type': 'type.googleapis.com/schemapb.Inner', name: 'x' },
    }
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true)
    for (const bad of [
      { favorite_color: 'COLOR_RED' },
      { favoriteColor: 1 },
      { bigCountWrapper: '12x' },
      { bigUnsignedWrapper: -1 },
      { anyPayload: { name: 'x' } },
      { nothing: { a: 1 } },
      { inner: { name: 'i', extra: 1 } },
    ])
      expect(validate(bad), JSON.stringify(bad)).toBe(false)
  })
})

describe('recursive root Node', () => {
  it('is an object (a copy of its own def, never a bare $ref) plus $defs', () => {
    expect(topeka('schemapb.Node')).toEqual({ ...NODE, $defs: { 'schemapb.Node': NODE } })
    expect(portable('schemapb.Node')).not.toHaveProperty('$ref')
  })

  it('validates a 3-level tree and rejects a bad node deep down', () => {
    const validate = ajv().compile(portable('schemapb.Node'))
    const tree = { value: 'a', children: [{ value: 'b', children: [{ value: 'c', children: [] }] }, { value: 'd' }] }
    expect(validate(tree), JSON.stringify(validate.errors)).toBe(true)
    const bad = { value: 'a', children: [{ value: 'b', children: [{ value: 3 }] }] }
    expect(validate(bad)).toBe(false)
    expect(validate.errors?.[0]?.instancePath).toBe('/children/0/children/0/value')
    expect(validate({ value: 'a', children: [{ value: 'b', children: [{ extra: true }] }] })).toBe(false)
  })
})

function ajv(): InstanceType<typeof Ajv2020> {
  const instance = new Ajv2020({ allErrors: true, strict: true })
  addFormats(instance)
  return instance
}

/**
 * Regression: JSON spliced into the generated module as a JS object literal
 * turned a `"__proto__"` key (a field with `json_name = "__proto__"`) into the
 * object's prototype at run time.
 */
import { describe, expect, it } from 'vitest'
import { compileValidators, emitModule, protectProtoKeys } from '../../src/codegen/index.ts'
import { buildTools, sortKeys } from '../../src/schema/index.ts'
import * as runtime from '../../src/entries/codegen-v1.ts'
import { compile } from '../helpers/inline-proto.ts'

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null }

// eslint-disable-next-line no-new-func -- evaluates emitted literals
const evaluate = (code: string): unknown => new Function(`return (${code})`)()

const PROTO = `
message Req { string name = 1; string weird = 2 [json_name = "__proto__"]; }
service S { rpc Go(Req) returns (Req); }
`

describe('protectProtoKeys', () => {
  it('makes "__proto__" keys computed, so the literal has an own property', () => {
    const text = JSON.stringify(JSON.parse('{"a":{"__proto__":1},"b":[{ "__proto__" :2}]}'), null, 2)
    const value = evaluate(protectProtoKeys(text)) as { a: object; b: object[] }
    expect(Object.keys(value.a)).toEqual(['__proto__'])
    expect(Object.keys(value.b[0]!)).toEqual(['__proto__'])
    expect(JSON.stringify(value)).toBe('{"a":{"__proto__":1},"b":[{"__proto__":2}]}')
  })

  it('leaves "__proto__" inside strings alone', () => {
    const text = JSON.stringify({ description: 'x {"__proto__": 1}, "__proto__":' })
    expect(protectProtoKeys(text)).toBe(text)
  })
})

describe('json_name = "__proto__" end to end', () => {
  const model = compile(PROTO)
  const { tools } = buildTools(model, { profile: 'full' })
  const schema = sortKeys(tools[0]!.inputSchema)

  it('the generated validator accepts and checks the field like a fresh Ajv', () => {
    const { code, names, helpers } = compileValidators([schema])
    const values = helpers.map((name) => (runtime as Record<string, unknown>)[name])
    // eslint-disable-next-line no-new-func -- the point is to run generated code
    const validate = new Function(...helpers, `${code}\nreturn ${names[0]}`)(...values) as Validate
    expect(validate(JSON.parse('{"__proto__":"x","name":"n"}'))).toBe(true)
    expect(validate({})).toBe(true)
    expect(validate(JSON.parse('{"__proto__":1}'))).toBe(false)
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/__proto__', keyword: 'type' })
  })

  it('the emitted tools keep the property in inputSchema', () => {
    const code = emitModule(model, tools, { name: 'test' })
    const literal = /export const tools = (\[[\s\S]*?\n\])\n/.exec(code)![1]!.replace(/"(validate|decode|encode)": \w+/g, '"$1": null')
    // The schemas tools share are constants declared before the table.
    const shared = /\/\/ Schemas that several tools share, emitted once\.\n([\s\S]*?)\n\nexport const tools/.exec(code)?.[1] ?? ''
    // eslint-disable-next-line no-new-func -- evaluates emitted literals
    const [tool] = new Function(`${shared}\nreturn (${literal})`)() as { inputSchema: { properties: object } }[]
    expect(Object.keys(tool!.inputSchema.properties)).toEqual(['__proto__', 'name'])
    expect(JSON.stringify(tool!.inputSchema)).toContain('"__proto__":{"type":"string"}')
  })
})

import { describe, expect, it } from 'vitest'
import { rewriteRequires } from '../../src/codegen/index.ts'

describe('rewriteRequires', () => {
  it('turns the Ajv helpers into runtime exports', () => {
    const code = [
      'const func0 = require("ajv/dist/runtime/equal").default;',
      'const func1 = require("ajv/dist/runtime/ucs2length").default;',
      'const formats0 = require("ajv-formats/dist/formats").fullFormats["date-time"];',
      'const formats2 = require("ajv-formats/dist/formats").fullFormats.uri;',
    ].join('')
    expect(rewriteRequires(code)).toEqual({
      code: [
        'const func0 = ajvEqual;',
        'const func1 = ajvUcs2length;',
        'const formats0 = ajvFormats["date-time"];',
        'const formats2 = ajvFormats.uri;',
      ].join(''),
      helpers: ['ajvEqual', 'ajvFormats', 'ajvUcs2length'],
    })
  })

  it('fails loudly on a require it does not know', () => {
    expect(() => rewriteRequires('const func3 = require("ajv/dist/runtime/re2").default;')).toThrow(
      /unknown helper `require\("ajv\/dist\/runtime\/re2"\)\.default`/,
    )
  })

  it('leaves text inside embedded schemas alone', () => {
    const code = 'const schema1 = {"description":"x = require(\\"fs\\")"};'
    expect(rewriteRequires(code)).toEqual({ code, helpers: [] })
  })
})

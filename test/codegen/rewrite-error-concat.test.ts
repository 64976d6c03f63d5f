/**
 * Regression: `{"kids":[1,1,...]}` with 30,000 items took 11 s to validate,
 * because Ajv's `allErrors` code concatenates the error array once per
 * failing `$ref` item (O(n²)). The generated code appends in place instead.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { compileValidators, rewriteErrorConcat } from '../../src/codegen/index.ts'
import { buildTools, sortKeys } from '../../src/schema/index.ts'
import * as runtime from '../../src/entries/codegen-v1.ts'
import { compile } from '../helpers/inline-proto.ts'

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null }

const TREE_PROTO = `
message Node { string name = 1; Node child = 2; repeated Node kids = 3; }
service S { rpc Tree(Node) returns (Node); }
`

function treeValidator(): { code: string; validate: Validate } {
  const { tools } = buildTools(compile(TREE_PROTO), { profile: 'full' })
  const { code, names, helpers } = compileValidators([sortKeys(tools[0]!.inputSchema)])
  const values = helpers.map((name) => (runtime as Record<string, unknown>)[name])
  // eslint-disable-next-line no-new-func -- the point is to run generated code
  const validate = new Function(...helpers, `${code}\nreturn ${names[0]}`)(...values) as Validate
  return { code, validate }
}

describe('rewriteErrorConcat', () => {
  it('turns both shapes Ajv emits into an in-place append', () => {
    const code = [
      'vErrors = vErrors === null ? validate21.errors : vErrors.concat(validate21.errors);',
      'vErrors = vErrors === null ? wrapper0.validate.errors : vErrors.concat(wrapper0.validate.errors);',
    ].join('\n')
    expect(rewriteErrorConcat(code)).toBe(
      [
        'if(vErrors === null){vErrors = validate21.errors;}else{for(let i = 0, e = validate21.errors; i < e.length; i++){vErrors.push(e[i]);}}',
        'if(vErrors === null){vErrors = wrapper0.validate.errors;}else{for(let i = 0, e = wrapper0.validate.errors; i < e.length; i++){vErrors.push(e[i]);}}',
      ].join('\n'),
    )
  })

  it('fails loudly on a concat it does not know', () => {
    expect(() => rewriteErrorConcat('vErrors = vErrors.concat(other.errors);')).toThrow(/unknown `\.concat\(`/)
    expect(() => rewriteErrorConcat('vErrors = vErrors === null ? a.errors : vErrors.concat(b.errors);')).toThrow(/unknown `\.concat\(`/)
  })

  it('leaves text inside embedded schemas alone', () => {
    const code = 'const schema1 = {"description":"x.concat(y) \\" .concat(z)"};'
    expect(rewriteErrorConcat(code)).toBe(code)
  })
})

describe('validating many failing $ref items is linear', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('the generated code has no error-array concat', () => {
    const { code } = treeValidator()
    expect(code).toContain('for(let i = 0, e = ')
    expect(code).not.toContain('.concat(')
  })

  it('30,000 bad kids: every error reported, no array copied per item', () => {
    const { validate } = treeValidator()
    const n = 30_000
    // Counts the elements concat copies: n²/2 (450 million) with Ajv's own code.
    let copied = 0
    const concat = Array.prototype.concat
    vi.spyOn(Array.prototype, 'concat').mockImplementation(function (this: unknown[], ...items: unknown[]) {
      copied += this.length
      return concat.apply(this, items)
    })
    expect(validate({ kids: new Array(n).fill(1) })).toBe(false)
    vi.restoreAllMocks()
    expect(copied).toBe(0)
    expect(validate.errors).toHaveLength(n)
    expect((validate.errors as { instancePath: string }[])[n - 1]!.instancePath).toBe(`/kids/${n - 1}`)
  })
})

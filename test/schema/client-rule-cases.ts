/**
 * For every client rule, the smallest tools that break it and a near twin
 * that keeps it (client-rules.test.ts runs them).
 */
import type { CheckedTool } from '../../src/schema/client-rules.ts'

/** Tools to check, with the configured server name. */
export interface RuleInput {
  tools: CheckedTool[]
  server?: string
}

/** One rule's cases. */
export interface RuleCase {
  /** The rule sets that have the rule. */
  dialects: string[]
  rule: string
  /** Each must give at least one violation of the rule. */
  bad: RuleInput[]
  /** JSON Pointer of the first bad input's violation. */
  ptr?: string
  /** Each must give none. */
  good: RuleInput | RuleInput[]
}

type Schema = Record<string, unknown>

const S: Schema = { type: 'string' }
const obj = (properties: Record<string, unknown>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra })
/** One tool `T` with this input schema. */
const input = (inputSchema: unknown, outputSchema?: unknown): RuleInput => ({
  tools: [outputSchema === undefined ? { name: 'T', inputSchema } : { name: 'T', inputSchema, outputSchema }],
})
/** One tool with a plain schema and this name. */
const named = (name: string, server?: string): RuleInput =>
  server === undefined ? { tools: [{ name, inputSchema: obj({ a: S }) }] } : { tools: [{ name, inputSchema: obj({ a: S }) }], server }
/** `count` tools T0, T1, ... */
const many = (count: number): RuleInput => ({
  tools: Array.from({ length: count }, (_, i) => ({ name: `T${i}`, inputSchema: obj({ a: S }) })),
})
/** An object nested `levels` deep (the root being level 1). */
const nested = (levels: number): Schema => (levels <= 1 ? obj({ a: S }) : obj({ a: nested(levels - 1) }))
/** An object with `count` properties; the first `required` of them required. */
const wide = (count: number, required = 0, property: Schema = S): Schema => {
  const keys = Array.from({ length: count }, (_, i) => `p${i}`)
  return obj(Object.fromEntries(keys.map((k) => [k, property])), { required: keys.slice(0, required) })
}
/** A linked list: `N` refers to itself through `next`, required or not. */
const linked = (required: boolean): Schema => {
  const node = obj({ next: { $ref: '#/$defs/N' } }, required ? { required: ['next'] } : {})
  return { ...node, $defs: { N: node } }
}
const UNION: Schema = { anyOf: [{ type: 'integer' }, S] }

/** An example use of each keyword a rule refuses outright. */
const KEYWORD_EXAMPLES: Record<string, Schema> = {
  allOf: { allOf: [S] },
  not: { not: { type: 'number' } },
  if: { if: { minLength: 1 }, then: S },
  then: { then: S },
  else: { else: S },
  dependentRequired: { dependentRequired: { a: ['b'] } },
  dependentSchemas: { dependentSchemas: { a: obj({}) } },
  propertyNames: { propertyNames: { pattern: '^[a-z]+$' } },
  patternProperties: { patternProperties: { '^x-': S } },
  unevaluatedProperties: { unevaluatedProperties: false },
  minProperties: { minProperties: 1 },
  maxProperties: { maxProperties: 3 },
  oneOf: { oneOf: [S, { type: 'number' }] },
  minLength: { minLength: 1 },
  maxLength: { maxLength: 10 },
  uniqueItems: { uniqueItems: true },
  contains: { contains: S },
  prefixItems: { prefixItems: [S] },
  contentEncoding: { contentEncoding: 'base64' },
  default: { default: 'x' },
  minimum: { minimum: 0 },
  maximum: { maximum: 9 },
  exclusiveMinimum: { exclusiveMinimum: 0 },
  exclusiveMaximum: { exclusiveMaximum: 9 },
  multipleOf: { multipleOf: 2 },
  maxItems: { maxItems: 3 },
}

/** `keyword:<kw>` cases: the keyword on a property, and the property without it. */
const keywordCases = (dialect: string, names: readonly string[]): RuleCase[] =>
  names.map((kw) => ({
    dialects: [dialect],
    rule: `keyword:${kw}`,
    bad: [input(obj({ a: { type: 'string', ...KEYWORD_EXAMPLES[kw] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: S })),
  }))

const OPENAI = ['openai', 'openai-strict']

/** Every rule's cases. */
export const RULE_CASES: RuleCase[] = [
  // OpenAI, both modes.
  { dialects: OPENAI, rule: 'root-type-object', bad: [input({ type: 'array', items: S })], ptr: '/inputSchema', good: input(obj({})) },
  {
    dialects: OPENAI,
    rule: 'root-no-combinator',
    bad: [input(obj({}, { anyOf: [{ required: ['a'] }] })), input(obj({}, { enum: [{}] }))],
    good: input(obj({})),
  },
  { dialects: OPENAI, rule: 'root-properties', bad: [input({ type: 'object' })], good: input(obj({})) },
  {
    dialects: OPENAI,
    rule: 'array-items',
    bad: [input(obj({ a: { type: 'array' } })), input({ type: 'array' })],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'array', items: S } })),
  },
  {
    dialects: OPENAI,
    rule: 'array-items-nested',
    bad: [input(obj({ a: { anyOf: [{ type: 'array' }, S] } }))],
    ptr: '/inputSchema/properties/a/anyOf/0',
    good: input(obj({ a: { anyOf: [{ type: 'array', items: S }, S] } })),
  },
  { dialects: OPENAI, rule: 'name', bad: [named('get.vibe'), named('a'.repeat(65)), named('')], good: named(`get-vibe_${'a'.repeat(55)}`) },
  { dialects: OPENAI, rule: 'max-128-tools', bad: [many(129)], good: many(128) },
  // OpenAI strict mode.
  {
    dialects: ['openai-strict'],
    rule: 'object-additionalProperties-false',
    bad: [input(obj({})), input(obj({ a: obj({}, { additionalProperties: S }) }, { additionalProperties: false }))],
    ptr: '/inputSchema',
    good: input(obj({}, { additionalProperties: false })),
  },
  {
    dialects: ['openai-strict'],
    rule: 'object-properties',
    bad: [input(obj({ a: { type: 'object', additionalProperties: false } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: obj({}, { additionalProperties: false }) })),
  },
  {
    dialects: ['openai-strict'],
    rule: 'all-required',
    bad: [input(obj({ a: S, b: S }, { required: ['a'] }))],
    ptr: '/inputSchema',
    good: input(obj({ a: S, b: { type: ['string', 'null'] } }, { required: ['a', 'b'] })),
  },
  {
    dialects: ['openai-strict'],
    rule: 'node-type',
    bad: [input(obj({ a: { description: 'anything' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: S, b: { enum: ['x'] }, c: { const: 1 }, d: UNION })),
  },
  {
    dialects: ['openai-strict'],
    rule: 'format',
    bad: [input(obj({ a: { type: 'string', format: 'uri' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', format: 'date-time' } })),
  },
  ...keywordCases('openai-strict', [
    'allOf',
    'not',
    'if',
    'then',
    'else',
    'dependentRequired',
    'dependentSchemas',
    'propertyNames',
    'patternProperties',
    'unevaluatedProperties',
    'minProperties',
    'maxProperties',
    'oneOf',
    'minLength',
    'maxLength',
    'uniqueItems',
    'contains',
    'prefixItems',
    'contentEncoding',
    'default',
  ]),
  {
    dialects: ['openai-strict'],
    rule: 'ref-siblings',
    bad: [input(obj({ a: { $ref: '#/$defs/A', description: 'an A' } }, { $defs: { A: S } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: S } })),
  },
  {
    dialects: ['openai-strict'],
    rule: 'limits',
    bad: [
      input(nested(11)),
      input(wide(5001)),
      input(obj({ a: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } })),
      input(obj({ a: { type: 'string', enum: Array.from({ length: 251 }, (_, i) => `${i}`.padStart(60, 'x')) } })),
      input(obj({ ['k'.repeat(120001)]: S })),
    ],
    good: input(nested(10)),
  },
  // Anthropic.
  { dialects: ['anthropic'], rule: 'name', bad: [named('a'.repeat(129)), named('get vibe')], good: named('a'.repeat(128)) },
  {
    dialects: ['anthropic'],
    rule: 'root-no-combinator',
    bad: [input(obj({}, { oneOf: [{ required: ['a'] }] }))],
    ptr: '/inputSchema',
    good: input(obj({ a: UNION })),
  },
  {
    dialects: ['anthropic'],
    rule: 'root-type-object',
    bad: [input({ type: 'array', items: S }), input({ properties: {} })],
    good: input(obj({})),
  },
  {
    dialects: ['anthropic'],
    rule: 'property-keys',
    bad: [input(obj({ '[ext.v1.author]': S })), input(obj({ 'Account Number': S })), input(obj({ ['a'.repeat(65)]: S }))],
    // Only the top level is checked: a nested key outside the pattern passes.
    good: [input(obj({ 'ext.v1.author': S, 'a-b_c': S, ['a'.repeat(64)]: S })), input(obj({ a: obj({ '[x]': S }) }))],
  },
  {
    dialects: ['anthropic'],
    rule: 'draft-2020-12',
    bad: [
      input(obj({ a: { type: 'text' } })),
      input(obj({ a: { minLength: -1 } })),
      input({ $schema: 'https://example.com/unknown-meta-schema', type: 'object' }),
    ],
    good: input(obj({ a: { type: 'string', minLength: 1 } })),
  },
  {
    dialects: ['anthropic'],
    rule: 'typeless-leaf',
    bad: [input(obj({ a: { description: 'anything' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: S, b: UNION })),
  },
  // Anthropic strict tool use.
  {
    dialects: ['anthropic-strict'],
    rule: 'object-additionalProperties-false',
    bad: [input(obj({}))],
    ptr: '/inputSchema',
    good: input(obj({}, { additionalProperties: false })),
  },
  {
    dialects: ['anthropic-strict'],
    rule: 'recursion',
    bad: [input(linked(false))],
    good: input(obj({ a: { $ref: '#/$defs/A' }, b: { $ref: '#/$defs/A' } }, { $defs: { A: S } })),
  },
  ...keywordCases('anthropic-strict', [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'maxItems',
    'uniqueItems',
    'propertyNames',
    'patternProperties',
    'minProperties',
    'maxProperties',
    'not',
    'oneOf',
    'if',
  ]),
  {
    dialects: ['anthropic-strict'],
    rule: 'minItems',
    bad: [input(obj({ a: { type: 'array', items: S, minItems: 2 } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'array', items: S, minItems: 1 } })),
  },
  {
    dialects: ['anthropic-strict'],
    rule: 'optional-and-union-budget',
    bad: [input(wide(25)), input(wide(17, 17, UNION))],
    good: [input(wide(24)), input(wide(16, 0, UNION))],
  },
  // Gemini `parameters`.
  {
    dialects: ['gemini-legacy'],
    rule: 'name',
    bad: [named('1st'), named('get/vibe'), named('a'.repeat(65))],
    good: named(`_get.vibe:v1-x${'a'.repeat(50)}`),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'unknown-field',
    bad: [
      input(obj({ a: S }, { additionalProperties: false })),
      input(obj({ a: { const: 'x', type: 'string' } })),
      input(obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: S } })),
    ],
    ptr: '/inputSchema',
    good: input(
      obj(
        { a: { type: 'string', description: 'x', nullable: true, pattern: '^a', enum: ['a'] } },
        { required: ['a'], propertyOrdering: ['a'] },
      ),
    ),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'type-list',
    bad: [input(obj({ a: { type: ['string', 'null'] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', nullable: true } })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'type-required',
    bad: [input(obj({ a: { description: 'anything' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { anyOf: [S, { type: 'number' }] } })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'enum-strings',
    bad: [input(obj({ a: { type: 'string', enum: ['a', 1] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', enum: ['a', '1'] } })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'enum-on-string',
    bad: [input(obj({ a: { type: 'integer', enum: ['1'] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', enum: ['1'] } })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'format',
    bad: [input(obj({ a: { type: 'string', format: 'uuid' } })), input(obj({ a: { type: 'integer', format: 'uint64' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(
      obj({ a: { type: 'string', format: 'date-time' }, b: { type: 'number', format: 'double' }, c: { type: 'integer', format: 'int64' } }),
    ),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'anyOf-alone',
    bad: [input(obj({ a: { ...UNION, nullable: true } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { ...UNION, description: 'x' } })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'anyOf-alone-doc',
    bad: [input(obj({ a: { ...UNION, description: 'x' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: UNION })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'object-nonempty-root',
    bad: [input(obj({})), input({ type: 'object' })],
    ptr: '/inputSchema',
    good: input(obj({ a: S })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'object-nonempty',
    bad: [input(obj({ a: obj({}) }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: obj({ b: S }) })),
  },
  {
    dialects: ['gemini-legacy'],
    rule: 'param-names',
    bad: [input(obj({ 'a-b': S })), input(obj({ '1a': S }))],
    ptr: '/inputSchema/properties/a-b',
    good: input(obj({ _a_B1: S })),
  },
  // Gemini `parametersJsonSchema`.
  { dialects: ['gemini-json'], rule: 'name', bad: [named('get/vibe')], good: named('get.vibe') },
  { dialects: ['gemini-json'], rule: 'root-object', bad: [input({ anyOf: [obj({})] })], ptr: '/inputSchema', good: input(obj({})) },
  {
    dialects: ['gemini-json'],
    rule: 'ref-siblings',
    bad: [input(obj({ a: { $ref: '#/$defs/A', type: 'string' } }, { $defs: { A: S } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { $ref: '#/$defs/A', description: 'x', default: 'y' } }, { $defs: { A: S } })),
  },
  {
    dialects: ['gemini-json'],
    rule: 'ref',
    bad: [input(obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: S } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: S })),
  },
  { dialects: ['gemini-json'], rule: 'required-cycle', bad: [input(linked(true))], good: input(linked(false)) },
  {
    dialects: ['gemini-json'],
    rule: 'ignored-keyword',
    bad: [input(obj({ a: { type: 'string', pattern: '^a' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', format: 'date-time', enum: ['x'] } }, { additionalProperties: false })),
  },
  // Cursor.
  {
    dialects: ['cursor'],
    rule: 'composition',
    bad: [input(obj({ a: UNION })), input(obj({ a: { type: 'array', items: { allOf: [S] } } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: S })),
  },
  {
    dialects: ['cursor'],
    rule: 'server+tool-length',
    bad: [named('t'.repeat(30), 's'.repeat(30))],
    good: named('t'.repeat(29), 's'.repeat(30)),
  },
  { dialects: ['cursor'], rule: 'name-chars', bad: [named('get-vibe'), named('get.vibe')], good: named('Get_Vibe2') },
  // Tool-name rules of MCP clients.
  { dialects: ['name-rules'], rule: 'mcp-spec', bad: [named('get vibe'), named('a'.repeat(65))], good: named('v1/get.vibe-x_y') },
  { dialects: ['name-rules'], rule: 'provider-common', bad: [named('v1/get')], good: named('get-vibe') },
  { dialects: ['name-rules'], rule: 'vscode-chars', bad: [named('get.vibe')], good: named('get-vibe') },
  { dialects: ['name-rules'], rule: 'vscode-prefixed-64', bad: [named('t'.repeat(57), 'srv')], good: named('t'.repeat(56), 'srv') },
  { dialects: ['name-rules'], rule: 'claude-code-64', bad: [named('t'.repeat(55), 'srv')], good: named('t'.repeat(54), 'srv') },
  {
    dialects: ['name-rules'],
    rule: 'codex-rename',
    bad: [named('get.vibe', 'srv'), named('t'.repeat(55), 'srv'), named('t', 'my server')],
    good: named('t'.repeat(54), 'srv'),
  },
  { dialects: ['name-rules'], rule: 'duplicates', bad: [{ tools: [...named('T').tools, ...named('T').tools] }], good: many(2) },
  // Codex.
  {
    dialects: ['codex'],
    rule: 'combinator-to-string',
    bad: [input(obj({ a: UNION }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'integer', anyOf: [{ minimum: 0 }, { maximum: -10 }] }, b: { anyOf: [obj({})], properties: {} } })),
  },
  {
    dialects: ['codex'],
    rule: 'ref-to-string',
    bad: [input(obj({ a: { $ref: '#/$defs/A' } }, { $defs: { A: S } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', $ref: '#/$defs/A' } }, { $defs: { A: S } })),
  },
  {
    dialects: ['codex'],
    rule: 'type-list',
    bad: [input(obj({ a: { type: ['integer', 'string'] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'integer' } })),
  },
  {
    dialects: ['codex'],
    rule: 'dropped-constraints',
    bad: [input(obj({ a: { type: 'string', pattern: '^-?[0-9]+$' } })), input(obj({ a: { type: 'string', enum: ['A', 'B'] } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'string', description: 'decimal digits' } })),
  },
  // MCP clients.
  { dialects: ['mcp-clients'], rule: 'input-root-object', bad: [input({ type: 'string' }), input(null)], good: input(obj({})) },
  {
    dialects: ['mcp-clients'],
    rule: 'output-root-object',
    bad: [input(obj({}), { type: 'array', items: S })],
    good: input(obj({}), obj({ a: S })),
  },
  {
    dialects: ['mcp-clients'],
    rule: 'array-items',
    bad: [input(obj({ a: { type: 'array' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { type: 'array', items: S } })),
  },
  {
    dialects: ['mcp-clients'],
    rule: 'array-items-nested',
    bad: [input(obj({ a: obj({}, { additionalProperties: { type: 'array' } }) }))],
    ptr: '/inputSchema/properties/a/additionalProperties',
    good: input(obj({ a: obj({}, { additionalProperties: { type: 'array', items: S } }) })),
  },
  {
    dialects: ['mcp-clients'],
    rule: 'dynamic-ref',
    bad: [input(obj({ a: { $dynamicRef: '#node' } })), input(obj({ a: { $recursiveRef: '#' } }))],
    ptr: '/inputSchema/properties/a',
    good: input(obj({ a: { $ref: '#' } })),
  },
  {
    dialects: ['mcp-clients'],
    rule: 'refs-resolve',
    bad: [input(obj({ a: { $ref: '#/$defs/Missing' } })), input(obj({}), obj({ a: { $ref: 'other.json#/A' } }))],
    good: input(
      obj({ a: { $ref: '#/$defs/A%20B' }, b: { $ref: '#/$defs/a~1b' } }, { $defs: { 'A B': S, 'a/b': S } }),
      obj({ c: { $ref: '#' } }),
    ),
  },
]

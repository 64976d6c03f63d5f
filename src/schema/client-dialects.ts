/**
 * The tool-schema rules that AI clients and model providers enforce, as
 * data: per client rule set ("dialect"), each rule with its id, how bad a
 * breach is, and the public reports or documentation it is based on.
 */
import Ajv2020 from 'ajv/dist/2020.js'
import { isRecord } from '../contract/is-record.ts'
import {
  COMBINATORS,
  hasCombinator,
  hasRefCycle,
  isArrayNode,
  isObjectNode,
  isSchemaNode,
  resolveLocalRef,
  schemaStats,
  walkSchema,
} from './walk-schema.ts'
import type { NodeVisit, SchemaNode } from './walk-schema.ts'
import { allowOnlyRule, keywordRules, listRule, nameRule, nodeRule, rootRule, toolRule } from './define-client-rules.ts'
import type { ClientDialect, ClientRule, Finding } from './define-client-rules.ts'

// Evidence: issues, pull requests and documentation where each behaviour was
// reported or stated.
const EV = {
  oaiRootObject: 'https://github.com/chatanywhere/GPT_API_free/issues/403',
  oaiRootComb: 'https://github.com/langchain-ai/langchainjs/issues/9804',
  oaiRootComb2: 'https://github.com/nspady/google-calendar-mcp/issues/39',
  oaiMissingProps: 'https://github.com/github/github-mcp-server/issues/1548',
  oaiMissingProps2: 'https://github.com/mark3labs/mcp-go/issues/719',
  oaiMissingItems: 'https://github.com/apify/apify-mcp-server/issues/36',
  oaiMissingItems2: 'https://github.com/ogx-ai/ogx/issues/3004',
  oaiNamePattern: 'https://github.com/openai/codex/issues/8174',
  oaiNameLen: 'https://github.com/microsoft/foundry-dev-tools/issues/201',
  oaiMaxTools: 'https://github.com/zed-industries/zed/issues/32946',
  oaiStrictAddl: 'https://github.com/lastmile-ai/openai-agents-mcp/issues/2',
  oaiStrictReq: 'https://github.com/vercel/ai/issues/6484',
  oaiStrictType: 'https://github.com/can1357/oh-my-pi/issues/211',
  oaiStrictType2: 'https://github.com/apexive/odoo-llm/issues/212',
  oaiStrictPropNames: 'https://github.com/can1357/oh-my-pi/issues/209',
  oaiStrictFormat: 'https://github.com/can1357/oh-my-pi/issues/206',
  oaiStrictAllOf: 'https://github.com/makenotion/notion-mcp-server/issues/102',
  oaiStrictDoc: 'https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai',
  oaiStrictPropsObj: 'https://github.com/google/adk-go/pull/1614',
  oaiStrictDefault: 'https://github.com/567-labs/instructor/issues/1074',
  oaiStrictDefault2026: 'https://github.com/openai/openai-agents-python/issues/4390',
  oaiAgentsStrict: 'https://github.com/openai/openai-agents-python/blob/main/src/agents/strict_schema.py',
  redpanda44: 'https://github.com/redpanda-data/protoc-gen-go-mcp/pull/44',
  antRootComb: 'https://github.com/anthropics/claude-code/issues/5973',
  antRootComb2: 'https://github.com/anthropics/claude-code/issues/95504',
  antDraft: 'https://github.com/anthropics/claude-code/issues/63673',
  antName128: 'https://github.com/anthropics/claude-code/issues/96152',
  antNamePattern: 'https://github.com/home-assistant/core/issues/147760',
  antNonObject: 'https://github.com/anthropics/claude-code/issues/88049',
  antPropertyKeys: 'https://github.com/beautyfree/appstore-connect-mcp/issues/2',
  antPropertyKeys2: 'https://github.com/decocms/studio/pull/6874',
  bedrockPropertyKeys: 'https://github.com/aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws/issues/709',
  antStrictDoc: 'https://platform.claude.com/docs/en/build-with-claude/structured-outputs',
  antStrictLimits: 'https://repo.hex.pm/docs/lang_schema-0.7.1.tar.gz:LangSchema.Converter.Anthropic.html',
  gemUnknownField: 'https://github.com/brainlid/langchain/issues/598',
  gemUnknownField2: 'https://github.com/decolua/9router/pull/3018',
  gemUnknownField3: 'https://github.com/pizza-bot-app/pizza-bot/issues/62',
  gemConst: 'https://github.com/zed-extensions/mcp-server-brave-search/issues/12',
  gemRef: 'https://github.com/pydantic/pydantic-ai/issues/1598',
  gemSchemaPropNames: 'https://github.com/thClaws/thClaws/issues/172',
  gemAllowList: 'https://raw.githubusercontent.com/nousresearch/hermes-agent/main/agent/gemini_schema.py',
  gemTypeList: 'https://github.com/voocel/litellm/issues/9',
  gemTypeMissing: 'https://github.com/danny-avila/LibreChat/issues/6971',
  gemEnumString: 'https://github.com/microsoft/azure-devops-mcp/issues/145',
  gemEnumType: 'https://github.com/decolua/9router/pull/380',
  gemFormat: 'https://github.com/google-gemini/gemini-cli/issues/3178',
  gemAnyOfAlone: 'https://github.com/vercel/ai/pull/19000',
  gemEmptyObject: 'https://github.com/pipecat-ai/pipecat-flows/issues/110',
  gemParamNames: 'https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration',
  gemFnName:
    'https://googleapis.dev/dotnet/Google.Apis.Aiplatform.v1/latest/api/Google.Apis.Aiplatform.v1.Data.GoogleCloudAiplatformV1FunctionDeclaration.html',
  gemJsonDoc:
    'https://googleapis.github.io/java-genai/javadoc/google-genai/com.google.genai.types/-function-declaration/parameters-json-schema.html',
  gemJsonRefSiblings: 'https://github.com/anomalyco/opencode/issues/12295',
  gemJsonRefSiblings2: 'https://github.com/su-kaka/gcli2api/pull/374',
  gemJsonRefUndefined: 'https://github.com/google-gemini/gemini-cli/issues/13326',
  gemJsonCycles: 'https://github.com/tetsuo-ai/agenc-core/issues/1890',
  gemJsonIgnores: 'https://docs.dottxt.ai/providers-comparison',
  curComb: 'https://github.com/code-yeongyu/senpi/issues/952',
  curComb2: 'https://github.com/can1357/oh-my-pi/issues/10432',
  curLen: 'https://github.com/ComposioHQ/composio/issues/2788',
  curLen2: 'https://github.com/awslabs/mcp/issues/1283',
  curChars: 'https://github.com/webstudio-is/webstudio/issues/5960',
  curChars2: 'https://github.com/bavix/gripmock/issues/875',
  sep986: 'https://github.com/github/copilot-cli/issues/1879',
  vscodeChars: 'https://github.com/microsoft/vscode/issues/308463',
  vscodeLen: 'https://github.com/microsoft/vscode/issues/243602',
  vscodeItems: 'https://github.com/microsoft/vscode-copilot-release/issues/7462',
  vscodeDynRef: 'https://github.com/firecrawl/firecrawl-mcp-server/issues/107',
  ccToolRef64: 'https://github.com/anthropics/claude-code/issues/19882',
  ccToolRef64b: 'https://github.com/mims-harvard/ToolUniverse/issues/65',
  codexQualify: 'https://github.com/openai/codex/blob/main/codex-rs/core/src/mcp_connection_manager.rs',
  codexLowering: 'https://github.com/openai/codex/issues/13768',
  codexLoweringSrc: 'https://github.com/openai/codex/pull/1975',
  sdkObjectRoot: 'https://github.com/opentokenz/mcpx/issues/28',
  ajvUnresolved: 'https://github.com/davideast/stitch-mcp/issues/184',
} as const

// Tool-name patterns.
const OPENAI_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/
const ANTHROPIC_NAME_RE = /^[a-zA-Z0-9_-]{1,128}$/
/** The top-level property keys of an input schema Anthropic (and Bedrock Converse) accept; one other key refuses the whole request. */
const ANTHROPIC_PROPERTY_KEY_RE = /^[a-zA-Z0-9_.-]{1,64}$/
const GEMINI_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/
const GEMINI_PARAM_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const CURSOR_NAME_RE = /^[A-Za-z0-9_]+$/
const MCP_SPEC_NAME_RE = /^[A-Za-z0-9_./-]{1,64}$/
const VSCODE_NAME_RE = /^[A-Za-z0-9_-]+$/
const CODEX_QUALIFIED_RE = /^[a-zA-Z0-9_-]+$/

/** The formats OpenAI's strict mode accepts. */
const OPENAI_STRICT_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']

/** The formats Gemini's `parameters` accepts, by type. */
const GEMINI_FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
}

/** The fields of Gemini's `Schema` message: anything else fails the request. */
const GEMINI_SCHEMA_FIELDS = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]

/** The keywords Gemini's `parametersJsonSchema` documents; it ignores the others. */
const GEMINI_JSON_KEYWORDS = [
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  '$schema',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
  'nullable',
  'default',
]

/** Keywords Anthropic's strict tool use does not take. */
const ANTHROPIC_STRICT_UNSUPPORTED = [
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
]

/** Constraints Codex's schema subset has no room for. */
const CODEX_DROPPED = ['enum', 'const', 'pattern', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']

// The "array needs items" failures were reported for arrays that are the
// root, a property or an item; elsewhere (a union branch, a map value) the
// same failure is assumed, not seen.
const REPORTED_ARRAY_POSITIONS = new Set<string | null>([null, 'properties', 'items'])

const typeless = (n: SchemaNode): boolean =>
  n.type === undefined && !('$ref' in n) && !hasCombinator(n) && !('enum' in n) && !('const' in n)
const missingItems = (at: NodeVisit): boolean => isArrayNode(at.node) && !('items' in at.node)
const notFalse = (n: SchemaNode): Finding =>
  isObjectNode(n) && n.additionalProperties !== false
    ? `an object with additionalProperties ${JSON.stringify(n.additionalProperties)}; it must be false`
    : null
const rootObject = (n: SchemaNode): Finding => (n.type === 'object' ? null : `the root's type is ${JSON.stringify(n.type)}, not "object"`)
const emptyObject = (n: SchemaNode): boolean =>
  n.type === 'object' && (!isSchemaNode(n.properties) || Object.keys(n.properties).length === 0)

let draftChecker: Ajv2020 | undefined

/** Why `schema` is not a valid draft 2020-12 schema, or null when it is. */
export function draft2020Problem(schema: unknown): string | null {
  draftChecker ??= new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  try {
    return draftChecker.validateSchema(schema as SchemaNode) ? null : draftChecker.errorsText(draftChecker.errors)
  } catch (cause) {
    // A `$schema` naming an unknown meta-schema throws instead of failing.
    return (cause as Error).message
  }
}

const OPENAI_BASE: readonly ClientRule[] = [
  rootRule('root-type-object', 'reject', [EV.oaiRootObject], rootObject),
  rootRule('root-no-combinator', 'reject', [EV.oaiRootComb, EV.oaiRootComb2], (n) => {
    const found = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'].filter((k) => k in n)
    return found.length > 0
      ? `the root uses ${found.join(', ')}; OpenAI takes none of oneOf, anyOf, allOf, enum, not at the top level`
      : null
  }),
  rootRule('root-properties', 'reject', [EV.oaiMissingProps, EV.oaiMissingProps2], (n) =>
    isSchemaNode(n.properties) ? null : 'the root object has no "properties"',
  ),
  nodeRule('array-items', 'reject', [EV.oaiMissingItems, EV.oaiMissingItems2], (at) =>
    missingItems(at) && REPORTED_ARRAY_POSITIONS.has(at.via) ? 'an array without "items"' : null,
  ),
  nodeRule('array-items-nested', 'risk', [EV.oaiMissingItems, EV.oaiMissingItems2], (at) =>
    missingItems(at) && !REPORTED_ARRAY_POSITIONS.has(at.via)
      ? `an array without "items" under ${at.via} (failures were reported for properties)`
      : null,
  ),
  nameRule('name', 'reject', [EV.oaiNamePattern, EV.oaiNameLen], OPENAI_NAME_RE, 'OpenAI function names'),
  listRule('max-128-tools', 'reject', [EV.oaiMaxTools], (tools) =>
    tools.length > 128 ? `${tools.length} tools in one request; OpenAI takes at most 128` : null,
  ),
]

/** The client rule sets by name. */
export const CLIENT_DIALECTS: Readonly<Record<string, ClientDialect>> = {
  openai: {
    about: 'OpenAI Chat Completions and Responses without strict mode, as most MCP hosts call them',
    rules: OPENAI_BASE,
  },

  'openai-strict': {
    about:
      'OpenAI function calling with strict: true (the Structured Outputs subset), which Responses also tries first when strict is not set',
    rules: [
      ...OPENAI_BASE,
      nodeRule('object-additionalProperties-false', 'reject', [EV.oaiStrictAddl, EV.oaiAgentsStrict], (at) => notFalse(at.node)),
      nodeRule('object-properties', 'reject', [EV.oaiStrictPropsObj], (at) =>
        isObjectNode(at.node) && !isSchemaNode(at.node.properties) ? 'an object without "properties"' : null,
      ),
      nodeRule('all-required', 'reject', [EV.oaiStrictReq, EV.oaiAgentsStrict], ({ node: n }) => {
        if (!isSchemaNode(n.properties)) return null
        const required = new Set(Array.isArray(n.required) ? n.required : [])
        const optional = Object.keys(n.properties).filter((p) => !required.has(p))
        return optional.length > 0
          ? `${optional.length} properties are not required (${optional.slice(0, 5).join(', ')}${optional.length > 5 ? ', ...' : ''}); strict mode wants every property required, optional ones nullable`
          : null
      }),
      nodeRule('node-type', 'reject', [EV.oaiStrictType, EV.oaiStrictType2], (at) =>
        typeless(at.node) ? 'a schema without "type"' : null,
      ),
      nodeRule('format', 'reject', [EV.oaiStrictFormat, EV.redpanda44], ({ node: n }) =>
        typeof n.format === 'string' && !OPENAI_STRICT_FORMATS.includes(n.format)
          ? `format "${n.format}" is not one of ${OPENAI_STRICT_FORMATS.join(', ')}`
          : null,
      ),
      ...keywordRules({
        allOf: { sev: 'reject', evidence: [EV.oaiStrictAllOf, EV.oaiStrictDoc], why: 'refused in strict mode' },
        not: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        if: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        then: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        else: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        dependentRequired: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        dependentSchemas: { sev: 'reject', evidence: [EV.oaiStrictDoc], why: 'documented as unsupported' },
        propertyNames: { sev: 'reject', evidence: [EV.oaiStrictPropNames, EV.redpanda44], why: 'refused in strict mode' },
        patternProperties: {
          sev: 'risk',
          evidence: [EV.oaiStrictDoc],
          why: 'listed as unsupported; newer docs limit that to fine-tuned models',
        },
        unevaluatedProperties: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'listed as unsupported' },
        minProperties: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'listed as unsupported' },
        maxProperties: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'listed as unsupported' },
        oneOf: {
          sev: 'risk',
          evidence: [EV.oaiAgentsStrict],
          why: 'the OpenAI Agents SDK rewrites it to anyOf, calling it unsupported when nested',
        },
        minLength: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'missing from the supported list' },
        maxLength: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'missing from the supported list' },
        uniqueItems: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'missing from the supported list' },
        contains: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'missing from the supported list' },
        prefixItems: { sev: 'risk', evidence: [EV.oaiStrictDoc], why: 'missing from the supported list' },
        contentEncoding: {
          sev: 'risk',
          evidence: [EV.redpanda44],
          why: 'stripped for OpenAI by another generator; a refusal is not confirmed',
        },
        default: {
          sev: 'risk',
          evidence: [EV.oaiStrictDefault, EV.oaiStrictDefault2026],
          why: 'refused in 2024, accepted by api.openai.com since, still refused by Azure',
        },
      }),
      nodeRule('ref-siblings', 'risk', [EV.oaiAgentsStrict], ({ node: n }) => {
        const siblings = Object.keys(n).filter((k) => k !== '$ref')
        return '$ref' in n && siblings.length > 0
          ? `$ref beside ${siblings.join(', ')} (the OpenAI Agents SDK inlines such references)`
          : null
      }),
      toolRule('limits', 'reject', [EV.oaiStrictDoc], (t) => {
        const s = schemaStats(t.inputSchema)
        const over: string[] = []
        if (s.properties > 5000) over.push(`${s.properties} properties in all; at most 5000`)
        if (s.maxDepth > 10) over.push(`${s.maxDepth} levels of nesting (not following $ref); at most 10`)
        if (s.enumValues > 1000) over.push(`${s.enumValues} enum values in all; at most 1000`)
        if (s.chars > 120000) over.push(`${s.chars} characters of names and enum values; at most 120000`)
        for (const e of s.bigEnums) over.push(`an enum of ${e.count} strings and ${e.chars} characters; beyond 250 values, at most 15000`)
        return over
      }),
    ],
  },

  anthropic: {
    about: 'Anthropic Messages API input_schema without strict tool use, as Claude Code and Claude Desktop send it',
    rules: [
      nameRule(
        'name',
        'reject',
        [EV.antName128, EV.antNamePattern],
        ANTHROPIC_NAME_RE,
        'Anthropic tool names; 64 characters before mid-2025',
      ),
      rootRule('root-no-combinator', 'reject', [EV.antRootComb, EV.antRootComb2], (n) => {
        const found = COMBINATORS.filter((k) => k in n)
        return found.length > 0 ? `the root uses ${found.join(', ')}; Anthropic takes none of them at the top level` : null
      }),
      rootRule('root-type-object', 'reject', [EV.antNonObject, EV.sdkObjectRoot], rootObject),
      toolRule('property-keys', 'reject', [EV.antPropertyKeys, EV.antPropertyKeys2, EV.bedrockPropertyKeys], (t) => {
        const properties = isRecord(t.inputSchema) ? t.inputSchema.properties : undefined
        const keys = isRecord(properties) ? Object.keys(properties) : []
        const bad = keys.filter((key) => !ANTHROPIC_PROPERTY_KEY_RE.test(key))
        return bad.length > 0
          ? `top-level property keys outside ${ANTHROPIC_PROPERTY_KEY_RE.source}: ${bad.map((key) => JSON.stringify(key)).join(', ')}`
          : null
      }),
      toolRule('draft-2020-12', 'reject', [EV.antDraft], (t) => {
        const problem = draft2020Problem(t.inputSchema)
        return problem === null ? null : `not a valid draft 2020-12 schema: ${problem}`
      }),
      nodeRule('typeless-leaf', 'risk', [EV.redpanda44], (at) =>
        !at.isRoot && typeless(at.node) ? 'a schema without "type" (said to be refused; not confirmed)' : null,
      ),
    ],
  },

  'anthropic-strict': {
    about: 'Anthropic strict tool use (strict: true, grammar-constrained); opt-in, Claude Code does not use it for MCP tools',
    rules: [
      nodeRule('object-additionalProperties-false', 'reject', [EV.antStrictDoc, EV.antStrictLimits], (at) => notFalse(at.node)),
      toolRule('recursion', 'reject', [EV.antStrictDoc], (t) => (hasRefCycle(t.inputSchema) ? 'a recursive schema (a $ref cycle)' : null)),
      ...keywordRules(
        Object.fromEntries(
          ANTHROPIC_STRICT_UNSUPPORTED.map((kw) => [
            kw,
            { sev: 'reject' as const, evidence: [EV.antStrictDoc, EV.antStrictLimits], why: 'outside the strict subset' },
          ]),
        ),
      ),
      nodeRule('minItems', 'reject', [EV.antStrictLimits], ({ node: n }) =>
        typeof n.minItems === 'number' && n.minItems > 1 ? `minItems ${n.minItems}; only 0 or 1 is taken` : null,
      ),
      toolRule('optional-and-union-budget', 'risk', [EV.antStrictLimits], (t) => {
        const s = schemaStats(t.inputSchema)
        const over: string[] = []
        if (s.optional > 24) over.push(`${s.optional} optional properties; at most 24 over all strict tools of a request`)
        if (s.unions > 16) over.push(`${s.unions} union properties; at most 16 over all strict tools of a request`)
        return over
      }),
    ],
  },

  'gemini-legacy': {
    about:
      'Gemini FunctionDeclaration.parameters (an OpenAPI 3.0 subset read into a protobuf message): one unknown field fails the whole request',
    rules: [
      nameRule('name', 'reject', [EV.gemFnName], GEMINI_NAME_RE, 'Gemini function names'),
      allowOnlyRule(
        'unknown-field',
        'reject',
        [EV.gemAllowList, EV.gemUnknownField, EV.gemUnknownField2, EV.gemUnknownField3, EV.gemConst, EV.gemRef, EV.gemSchemaPropNames],
        GEMINI_SCHEMA_FIELDS,
        "fields Gemini's Schema does not have",
      ),
      nodeRule('type-list', 'reject', [EV.gemTypeList], ({ node: n }) =>
        Array.isArray(n.type) ? `type is a list, ${JSON.stringify(n.type)}` : null,
      ),
      nodeRule('type-required', 'reject', [EV.gemTypeMissing], ({ node: n }) =>
        n.type === undefined && !('anyOf' in n) ? 'a schema without "type" or "anyOf"' : null,
      ),
      nodeRule('enum-strings', 'reject', [EV.gemEnumString], ({ node: n }) =>
        Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string') ? 'an enum with values that are not strings' : null,
      ),
      nodeRule('enum-on-string', 'reject', [EV.gemEnumType], ({ node: n }) =>
        Array.isArray(n.enum) && n.type !== 'string' ? `an enum on type ${JSON.stringify(n.type)}; only strings take one` : null,
      ),
      nodeRule('format', 'reject', [EV.gemFormat], ({ node: n }) => {
        if (typeof n.format !== 'string') return null
        const allowed = (typeof n.type === 'string' ? GEMINI_FORMATS[n.type] : undefined) ?? []
        return allowed.includes(n.format) ? null : `format "${n.format}" on type ${JSON.stringify(n.type)}`
      }),
      nodeRule('anyOf-alone', 'reject', [EV.gemAnyOfAlone], ({ node: n }) => {
        const beside = Object.keys(n).filter((k) => k !== 'anyOf' && k !== 'description' && k !== 'title')
        return 'anyOf' in n && beside.length > 0 ? `anyOf beside ${beside.join(', ')}; it must be the only field` : null
      }),
      nodeRule('anyOf-alone-doc', 'risk', [EV.gemAnyOfAlone], ({ node: n }) =>
        'anyOf' in n && ('description' in n || 'title' in n)
          ? 'anyOf beside a description or title (the error asks for anyOf alone)'
          : null,
      ),
      nodeRule('object-nonempty-root', 'reject', [EV.gemEmptyObject], (at) =>
        at.isRoot && emptyObject(at.node) ? 'the root object has no properties' : null,
      ),
      nodeRule('object-nonempty', 'risk', [EV.gemEmptyObject], (at) =>
        !at.isRoot && emptyObject(at.node) ? 'a nested object without properties (refused at the root; assumed here)' : null,
      ),
      nodeRule('param-names', 'risk', [EV.gemParamNames], (at) =>
        at.prop !== undefined && !GEMINI_PARAM_NAME_RE.test(at.prop)
          ? `property name "${at.prop}" breaks the documented ${GEMINI_PARAM_NAME_RE.source}`
          : null,
      ),
    ],
  },

  'gemini-json': {
    about: 'Gemini FunctionDeclaration.parametersJsonSchema (JSON Schema; unknown keywords ignored, a few shapes refused)',
    rules: [
      nameRule('name', 'reject', [EV.gemFnName], GEMINI_NAME_RE, 'Gemini function names'),
      rootRule('root-object', 'reject', [EV.gemJsonDoc], (n) => (n.type === 'object' ? null : 'the root does not describe an object')),
      nodeRule('ref-siblings', 'reject', [EV.gemJsonRefSiblings, EV.gemJsonRefSiblings2], ({ node: n }) => {
        const beside = Object.keys(n).filter((k) => k !== '$ref' && k !== 'description' && k !== 'default')
        return '$ref' in n && beside.length > 0 ? `$ref beside ${beside.join(', ')}; only description and default may be` : null
      }),
      nodeRule('ref', 'risk', [EV.gemJsonRefUndefined], ({ node: n }) =>
        '$ref' in n ? `$ref ${String(n.$ref)} (valid references were reported as undefined)` : null,
      ),
      toolRule('required-cycle', 'risk', [EV.gemJsonCycles], (t) =>
        hasRefCycle(t.inputSchema, { requiredOnly: true })
          ? 'a $ref cycle through required properties; cycles may only pass optional ones'
          : null,
      ),
      allowOnlyRule(
        'ignored-keyword',
        'lossy',
        [EV.gemJsonIgnores, EV.gemJsonCycles],
        GEMINI_JSON_KEYWORDS,
        'keywords Gemini ignores, so the model never sees them',
      ),
    ],
  },

  cursor: {
    about: 'Cursor, whose gateway passes MCP tool schemas on to the model provider',
    rules: [
      nodeRule('composition', 'reject', [EV.curComb, EV.curComb2], ({ node: n }) => {
        const found = COMBINATORS.filter((k) => k in n)
        return found.length > 0 ? `${found.join(', ')} in the input schema: Cursor's whole request fails` : null
      }),
      toolRule('server+tool-length', 'reject', [EV.curLen, EV.curLen2], (t, env) => {
        const length = env.server.length + t.name.length
        return length >= 60 ? `server "${env.server}" and tool "${t.name}" make ${length} characters; Cursor drops tools from 60 on` : null
      }),
      nameRule('name-chars', 'reject', [EV.curChars, EV.curChars2], CURSOR_NAME_RE, 'Cursor takes letters, digits and underscores only'),
    ],
  },

  'name-rules': {
    about: 'Tool-name rules of MCP clients (prefixes, characters, lengths), given the configured server name',
    rules: [
      nameRule('mcp-spec', 'risk', [EV.sep986], MCP_SPEC_NAME_RE, 'what the MCP specification recommends'),
      nameRule(
        'provider-common',
        'reject',
        [EV.oaiNamePattern, EV.antNamePattern],
        OPENAI_NAME_RE,
        'the pattern OpenAI, Anthropic and Gemini all accept',
      ),
      nameRule('vscode-chars', 'risk', [EV.vscodeChars], VSCODE_NAME_RE, 'VS Code warns about other characters'),
      toolRule('vscode-prefixed-64', 'risk', [EV.vscodeLen], (t, env) => {
        const qualified = `mcp_${env.server}_${t.name}`
        return qualified.length > 64 ? `VS Code's "${qualified}" has ${qualified.length} characters; its model API takes 64` : null
      }),
      toolRule('claude-code-64', 'reject', [EV.ccToolRef64, EV.ccToolRef64b], (t, env) => {
        const qualified = `mcp__${env.server}__${t.name}`
        return qualified.length > 64 ? `Claude Code's "${qualified}" has ${qualified.length} characters; its tool search takes 64` : null
      }),
      toolRule('codex-rename', 'lossy', [EV.codexQualify], (t, env) => {
        const qualified = `mcp__${env.server}__${t.name}`
        if (!CODEX_QUALIFIED_RE.test(qualified)) return `Codex renames "${qualified}": other characters than [a-zA-Z0-9_-] become _`
        return qualified.length > 64 ? `Codex shortens "${qualified}" (${qualified.length} characters) to a prefix and a hash` : null
      }),
      listRule('duplicates', 'reject', [EV.codexQualify], (tools) => {
        const counts = new Map<string, number>()
        for (const t of tools) counts.set(t.name, (counts.get(t.name) ?? 0) + 1)
        const twice = [...counts].filter(([, n]) => n > 1).map(([k]) => k)
        return twice.length > 0 ? `tool names used more than once: ${twice.join(', ')}` : null
      }),
    ],
  },

  codex: {
    about: 'Codex CLI, which lowers every MCP schema to boolean, string, number, array and object: nothing refused, much lost',
    rules: [
      nodeRule('combinator-to-string', 'lossy', [EV.codexLowering, EV.codexLoweringSrc], ({ node: n }) =>
        n.type === undefined && hasCombinator(n) && !isSchemaNode(n.properties) && !('items' in n) && !('enum' in n)
          ? `a ${COMBINATORS.filter((k) => k in n).join(', ')} without "type" is sent as a string`
          : null,
      ),
      nodeRule('ref-to-string', 'lossy', [EV.codexLoweringSrc], ({ node: n }) =>
        '$ref' in n && n.type === undefined ? `$ref ${String(n.$ref)} is sent as a string (references are not followed)` : null,
      ),
      nodeRule('type-list', 'lossy', [EV.codexLoweringSrc], ({ node: n }) =>
        Array.isArray(n.type) ? `type ${JSON.stringify(n.type)} is sent as "${String(n.type.find((x) => x !== 'null'))}"` : null,
      ),
      nodeRule('dropped-constraints', 'lossy', [EV.codexLoweringSrc], ({ node: n }) => {
        const dropped = CODEX_DROPPED.filter((k) => k in n)
        return dropped.length > 0 ? `${dropped.join(', ')} dropped; only a description reaches the model` : null
      }),
    ],
  },

  'mcp-clients': {
    about: 'What MCP clients check before a provider sees the schema (the official SDKs, VS Code, Ajv-based clients)',
    rules: [
      toolRule('input-root-object', 'reject', [EV.sdkObjectRoot, EV.antNonObject], (t) =>
        isSchemaNode(t.inputSchema) && t.inputSchema.type === 'object'
          ? null
          : 'inputSchema\'s type is not "object"; the SDKs refuse the whole tools/list',
      ),
      toolRule('output-root-object', 'reject', [EV.sdkObjectRoot], (t) =>
        t.outputSchema === undefined || (isSchemaNode(t.outputSchema) && t.outputSchema.type === 'object')
          ? null
          : 'outputSchema\'s type is not "object"',
      ),
      nodeRule('array-items', 'reject', [EV.vscodeItems], (at) =>
        missingItems(at) && REPORTED_ARRAY_POSITIONS.has(at.via) ? 'an array without "items"; VS Code refuses the tool' : null,
      ),
      nodeRule('array-items-nested', 'risk', [EV.vscodeItems], (at) =>
        missingItems(at) && !REPORTED_ARRAY_POSITIONS.has(at.via)
          ? `an array without "items" under ${at.via} (VS Code's refusal was reported for properties)`
          : null,
      ),
      nodeRule('dynamic-ref', 'reject', [EV.vscodeDynRef], ({ node: n }) =>
        '$dynamicRef' in n || '$recursiveRef' in n ? "a dynamic reference, which VS Code's validator cannot follow" : null,
      ),
      toolRule('refs-resolve', 'reject', [EV.ajvUnresolved], (t) => {
        const unresolved: string[] = []
        for (const [key, schema] of [
          ['inputSchema', t.inputSchema],
          ['outputSchema', t.outputSchema],
        ] as const) {
          if (!isSchemaNode(schema)) continue
          walkSchema(schema, `/${key}`, (at) => {
            const ref = at.node.$ref
            if (typeof ref === 'string' && resolveLocalRef(schema, ref) === undefined)
              unresolved.push(`${at.ptr}: reference ${ref} does not resolve`)
          })
        }
        return unresolved
      }),
    ],
  },
}

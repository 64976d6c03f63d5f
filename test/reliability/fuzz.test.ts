/**
 * Fuzzing the call pipeline end to end (`server.call`, generated codecs
 * attached as a `?mcp` module has them): arbitrary JSON, schema-shaped
 * objects of arbitrary values, and valid requests with one value mutated,
 * for every tool of the playground and the Topeka protos, in every profile.
 * The pipeline never throws; a backend call happens only for arguments a
 * fresh Ajv accepts, as sent or after the lenient pass rewrote another
 * spelling into the advertised one; accepted arguments decode, except for
 * the range rules the decoder alone checks (what a schema cannot say) and,
 * in `portable`/`strict`, what JSON text holds.
 */
import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { ValidateFunction } from 'ajv'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { coerceArguments } from '../../src/runtime/lenient.ts'
import type { LenientPlan, Profile, ProtoServerSpec, ToolResult } from '../../src/runtime/types.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { loadCodecs } from '../codegen/codec-harness.ts'
import { makeAjv, specFromProto } from '../helpers/spec-from-proto.ts'
import { recordingBackend } from '../helpers/recording-backend.ts'
import { messageArbitrary } from '../protojson/arbitrary.ts'
import { createOracle } from '../protojson/oracle.ts'
import { respell, SCHEMA_SPELLINGS, seededRandom } from '../protojson/spellings.ts'
import { scaled, SEED } from './scale.ts'
import { text as textOf } from '../helpers/result.ts'

const path = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

const PROTOS = ['playground/vibe.proto', 'fixtures/topeka/example.proto', 'fixtures/topeka/fixture.proto']

/**
 * Decode failures a schema-valid request may still meet: the range rules of
 * docs/calls.md, "Decoding" (out-of-range numbers, bad base64, bad timestamps and
 * durations, two oneof members, field masks, depth).
 */
const RANGE_RULE_RE = /out of range|base64|timestamp|duration|oneof|field ?mask|max depth/i

/** Whether `value` holds an object with key `key` at any depth. */
function holdsKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsKey(item, key))
  if (value === null || typeof value !== 'object') return false
  return Object.hasOwn(value, key) || Object.values(value).some((item) => holdsKey(item, key))
}

/**
 * Whether a schema-valid request may fail to decode with `text`: a range
 * rule; anything inside an `Any` (docs/mapping.md, "Input schema: types": its schema is open, the packed
 * message's fields are checked by the decoder only); in the topeka profile a
 * 64-bit string that is not a decimal (Topeka's `["integer","string"]` has no pattern).
 */
function documentedDecodeFailure(text: string, args: unknown, profile: Profile, jsonText: ReadonlySet<string>): boolean {
  if (RANGE_RULE_RE.test(text) || holdsKey(args, '@type') || (profile === 'topeka' && /invalid integer/.test(text))) return true
  // portable/strict: JSON text (open values, recursion past the inlined depth) is checked by the decoder alone.
  const path = /^decoding arguments: ([^:]*):/.exec(text)?.[1] ?? ''
  return jsonText.size > 0 && (/not valid JSON text/.test(text) || path.split('.').some((segment) => jsonText.has(segment)))
}

/** JSON names of the fields a `portable`/`strict` plan advertises as JSON text (open values, recursive messages). */
function jsonTextFields(plan: LenientPlan | undefined): Set<string> {
  const out = new Set<string>()
  if (!plan?.portable) return out
  for (const fields of Object.values(plan.messages)) for (const f of fields) if (f.k === 'json' || f.k === 'msg') out.add(f.j)
  return out
}

interface Target {
  name: string
  requestType: string
  validate: ValidateFunction
  properties: string[]
}

/** A server of `file` with every service bound to a recording backend, its tools and a fresh-Ajv validator per tool. */
function fuzzServer(file: string, profile: Profile) {
  const plain = specFromProto(file, { profile })
  const { codecs } = loadCodecs(file)
  const spec: ProtoServerSpec = {
    ...plain,
    tools: plain.tools.map((t) => ({ ...t, decode: codecs.get(t.requestType), encode: codecs.get(t.responseType) })),
  }
  const server = createProtoServer(spec)
  const streaming = new Set(spec.tools.filter((t) => t.serverStreaming).map((t) => `${t.service}/${t.method}`))
  const recorded: Array<{ length: number }> = []
  for (const [service, methods] of Object.entries(spec.services ?? {})) {
    const answers = Object.fromEntries(methods.map((m) => [m, () => (streaming.has(`${service}/${m}`) ? [] : {})]))
    const { impl, calls } = recordingBackend(methods, answers)
    server.implement(service, impl)
    recorded.push(calls)
  }
  const calls = {
    get length() {
      return recorded.reduce((n, c) => n + c.length, 0)
    },
  }
  const ajv = makeAjv()
  // The exact schema the validator is compiled from (it says more than the advertised one in portable and strict).
  const exact = new Map(buildTools(loadProto(file), { profile }).tools.map((t) => [t.name, t.validationSchema ?? t.inputSchema]))
  const targets: Target[] = spec.tools.map((t) => ({
    name: t.name,
    requestType: t.requestType,
    validate: ajv.compile(exact.get(t.name)!) as unknown as ValidateFunction,
    properties: Object.keys((t.inputSchema as { properties?: object }).properties ?? {}),
  }))
  return { server, targets, calls, plan: spec.lenient, jsonText: jsonTextFields(spec.lenient) }
}

const json = (depth: number) => fc.jsonValue({ maxDepth: depth })

/** Replaces one value somewhere inside `value` (chosen by `pick`) with `replacement`. */
function mutate(value: unknown, pick: number, replacement: unknown): unknown {
  const slots: Array<[Record<string, unknown> | unknown[], string | number]> = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v))
      v.forEach((item, i) => {
        slots.push([v, i])
        walk(item)
      })
    else if (v !== null && typeof v === 'object')
      for (const [k, item] of Object.entries(v)) {
        slots.push([v as Record<string, unknown>, k])
        walk(item)
      }
  }
  const copy = structuredClone(value)
  walk(copy)
  if (slots.length === 0) return replacement
  const [parent, key] = slots[pick % slots.length]!
  ;(parent as Record<string | number, unknown>)[key] = replacement
  return copy
}

/** Arguments for `target`: pure arbitrary JSON, its properties with arbitrary values, or a valid request (sometimes mutated). */
function argumentsFor(target: Target, oracle: ReturnType<typeof createOracle>): fc.Arbitrary<unknown> {
  const keys = [...target.properties, 'extra', '__proto__', 'constructor']
  const shaped = fc.dictionary(fc.constantFrom(...keys), json(3), { maxKeys: 4 })
  const valid = fc
    .tuple(
      messageArbitrary(oracle, target.requestType, { maxDepth: 2, unknownEnums: false, emptyAny: false, negativeZero: false }),
      fc.integer(),
    )
    .map(
      ([message, seed]) =>
        JSON.parse(
          JSON.stringify(
            respell(
              oracle.message(target.requestType),
              oracle.toJson(target.requestType, message),
              seededRandom(seed),
              SCHEMA_SPELLINGS,
              oracle.registry,
            ),
          ),
        ) as unknown,
    )
  const mutated = fc.tuple(valid, fc.nat(), json(2)).map(([v, pick, replacement]) => mutate(v, pick, replacement))
  return fc.oneof(json(4), shaped, valid, mutated)
}

describe.each(PROTOS)('fuzzing every tool of %s', (relative) => {
  const file = path(relative)
  const oracle = createOracle(file)
  it.each(['portable', 'strict', 'full', 'topeka'] as const)(
    'profile %s: never throws, invalid never reaches the backend, valid decodes',
    async (profile) => {
      const { server, targets, calls, plan, jsonText } = fuzzServer(file, profile)
      expect(targets.length).toBeGreaterThan(0)
      const stats = { valid: 0, invalid: 0, documented: 0 }
      const cases = fc.oneof(...targets.map((t) => fc.tuple(fc.constant(t), argumentsFor(t, oracle))))
      await fc.assert(
        fc.asyncProperty(cases, async ([target, args]) => {
          // The validator sees the arguments as the wire delivers them (JSON), before the call can touch them.
          const wire = JSON.parse(JSON.stringify(args ?? null)) as unknown
          const sent = wire === null ? {} : wire
          const valid =
            target.validate(sent) === true ||
            (plan !== undefined && target.validate(coerceArguments(plan, target.requestType, sent)) === true)
          const before = calls.length
          let result: ToolResult
          try {
            result = await server.call(target.name, args)
          } catch (error) {
            throw new Error(`${target.name} threw for ${JSON.stringify(args).slice(0, 300)}: ${(error as Error).stack}`, { cause: error })
          }
          expect(Array.isArray(result.content) && typeof textOf(result) === 'string').toBe(true)
          const reached = calls.length - before
          const text = textOf(result)
          if (!valid) {
            stats.invalid++
            expect(reached, `${target.name}: invalid ${JSON.stringify(args).slice(0, 300)} reached the backend`).toBe(0)
            expect(result.isError).toBe(true)
            return
          }
          stats.valid++
          if (text.startsWith('decoding arguments')) {
            stats.documented++
            expect(
              documentedDecodeFailure(text, args, profile, jsonText),
              `${target.name}: valid ${JSON.stringify(args).slice(0, 300)} failed to decode: ${text}`,
            ).toBe(true)
            expect(reached).toBe(0)
            return
          }
          expect(text, `${target.name}: valid ${JSON.stringify(args).slice(0, 300)}`).not.toMatch(/^invalid arguments/)
          expect(reached, `${target.name}: valid arguments did not reach the backend: ${text}`).toBe(1)
          expect(result.isError, `${target.name}: ${text}`).toBe(false)
        }),
        { seed: SEED, numRuns: scaled(300, 5000) },
      )
      // Both sides of the property were exercised, and decoding failures stayed the exception.
      expect(stats.valid).toBeGreaterThan(20)
      expect(stats.invalid).toBeGreaterThan(20)
      expect(stats.documented).toBeLessThan(stats.valid / 2)
    },
  )
})

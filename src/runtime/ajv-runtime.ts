/**
 * The Ajv run-time helpers standalone validators `require`, as ES exports
 * (src/codegen/rewrite-requires.ts maps each `require` onto one); each loads
 * on first use (ajv-helpers.cjs).
 */
import * as formatsModule from 'ajv-formats/dist/formats.js'
import { loadEqual, loadUcs2length, loadUri, loadValidationError } from './ajv-helpers.cjs'

// Ajv's runtime files are CommonJS with `exports.default`; depending on who
// loads them (Node, a bundler) the value sits one or two `default`s deep.
function cjsDefault<T>(mod: unknown): T {
  let value = mod as { default?: unknown }
  // At most two levels: some exports (fast-uri) point `default` at themselves.
  for (let i = 0; i < 2 && typeof value !== 'function' && value?.default != null && value.default !== value; i++) {
    value = value.default as { default?: unknown }
  }
  return value as T
}

/** The value `load()` gives, unwrapped by {@link cjsDefault}, loaded once on first use. */
function lazily<T>(load: () => unknown): () => T {
  let value: T | undefined
  return () => (value ??= cjsDefault<T>(load()))
}

const equal = lazily<(a: unknown, b: unknown) => boolean>(loadEqual)
const ucs2length = lazily<(str: string) => number>(loadUcs2length)
const uri = lazily<Record<PropertyKey, unknown>>(loadUri)
const validationError = lazily<new (errors: unknown[]) => Error>(loadValidationError)

/** Ajv's deep-equal helper (`require("ajv/dist/runtime/equal").default` in standalone code). */
export const ajvEqual = (a: unknown, b: unknown): boolean => equal()(a, b)
/** Ajv's Unicode-aware string length (`require("ajv/dist/runtime/ucs2length").default`). */
export const ajvUcs2length = (str: string): number => ucs2length()(str)
/** Ajv's URI resolver (`require("ajv/dist/runtime/uri").default`): fast-uri, loaded on first property read. */
export const ajvUri: unknown = new Proxy({}, { get: (_, key) => uri()[key] })
/** Ajv's `ValidationError` class (`require("ajv/dist/runtime/validation_error").default`, `$async` schemas only). */
export const ajvValidationError = function (errors: unknown[]) {
  return new (validationError())(errors)
} as unknown as new (errors: unknown[]) => Error
/** ajv-formats' full format set (`require("ajv-formats/dist/formats").fullFormats`). */
export const ajvFormats: Record<string, unknown> =
  (formatsModule as { fullFormats?: Record<string, unknown> }).fullFormats ??
  (formatsModule as unknown as { default: { fullFormats: Record<string, unknown> } }).default.fullFormats

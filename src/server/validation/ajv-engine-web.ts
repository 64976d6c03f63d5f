/**
 * What the runtime's web build (Workers, browsers) has in place of
 * ajv-engine.ts: the SDK validates with another library there, so
 * hand-written tools use the Ajv this package bundles, evaluated when the
 * first one is registered (ajv-compiler.cjs).
 */
export { loadAjv } from './ajv-compiler.cjs'

/**
 * Ajv for hand-written tools on Node, Bun and Deno: the 2020-12 class of
 * the copy the MCP SDK bundles, which its default JSON Schema validator
 * has already loaded with the SDK. A server start then compiles no second
 * Ajv compiler (about a third of the runtime's start-up chunks), and
 * registering a tool can still compile its schema at once, as it must
 * (docs/serving.md, "Tools, errors and visibility"). The runtime's web build puts ajv-engine-web.ts in
 * this module's place: on Workers the SDK validates with another library.
 */
import { AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/server/validators/ajv'
import type Ajv2020 from 'ajv/dist/2020.js'
import type AddFormats from 'ajv-formats'
import { runtimeError } from '../../runtime/errors.ts'

/** Ajv's 2020-12 class and ajv-formats' plugin. */
export interface AjvEngine {
  Ajv2020: typeof Ajv2020
  addFormats: typeof AddFormats
}

let engine: AjvEngine | undefined

/**
 * The SDK's 2020-12 class, found through the engine its validator builds
 * on first use (`ajv`, a getter its types keep private: the SDK exports
 * only its draft-07 class). test/server/hand-written-tool-engine.test.ts checks it
 * is the 2020-12 one, with every keyword this runtime documents.
 */
export function loadAjv(): AjvEngine {
  if (engine) return engine
  const instance = (new AjvJsonSchemaValidator() as unknown as { ajv?: { constructor?: unknown } }).ajv
  const Ajv2020Class = instance?.constructor
  if (typeof Ajv2020Class !== 'function') {
    throw runtimeError('BAD_SPEC', "hand-written tools need JSON Schema 2020-12, and this MCP SDK's validator does not expose its engine")
  }
  engine = { Ajv2020: Ajv2020Class as typeof Ajv2020, addFormats: addFormats as unknown as typeof AddFormats }
  return engine
}

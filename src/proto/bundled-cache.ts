/**
 * Shipped `.proto` files (this package's option protos, protobufjs's
 * `google/` files) never change, and `buf/validate/validate.proto` alone
 * takes hundreds of milliseconds to parse and scan: each is parsed and
 * scanned once per process, then added to every root from its JSON.
 */
import protobuf from 'protobufjs'
import { scanDeclarations } from './scan-declarations.ts'
import type { ScannedFile } from './scan-declarations.ts'

type Nested = Record<string, protobuf.AnyNestedObject>

interface Entry {
  text: string
  scanned?: ScannedFile
  parsed?: {
    /** protobufjs JSON of the file parsed with `keepCase` (model) and without (runtime). */
    model: Nested
    runtime: Nested
    result: Pick<protobuf.IParserResult, 'imports' | 'weakImports'>
  }
}

const cache = new Map<string, Entry>()

function entry(path: string, text: string): Entry {
  let hit = cache.get(path)
  if (!hit || hit.text !== text) {
    hit = { text }
    cache.set(path, hit)
  }
  return hit
}

/** {@link scanDeclarations} of a shipped file, once per process. */
export function scanBundled(path: string, text: string): ScannedFile {
  const hit = entry(path, text)
  hit.scanned ??= scanDeclarations(text)
  return hit.scanned
}

/**
 * Adds a shipped file to both roots as `parse` would (the model's with proto
 * names, the runtime's with lowerCamel ones), without its comments, which
 * shipped files never contribute. `parse(root, keepCase)` parses it fresh
 * (throwing what protobufjs throws); it runs once per process and file.
 */
export function addBundled(
  model: protobuf.Root,
  runtime: protobuf.Root,
  path: string,
  text: string,
  parse: (root: protobuf.Root, keepCase: boolean) => protobuf.IParserResult,
): Pick<protobuf.IParserResult, 'imports' | 'weakImports'> {
  const hit = entry(path, text)
  if (!hit.parsed) {
    const fresh = [new protobuf.Root(), new protobuf.Root()] as const
    const result = parse(fresh[0], true)
    parse(fresh[1], false)
    hit.parsed = {
      model: fresh[0].toJSON().nested ?? {},
      runtime: fresh[1].toJSON().nested ?? {},
      result: { imports: result.imports, weakImports: result.weakImports },
    }
  }
  for (const [root, json] of [
    [model, hit.parsed.model],
    [runtime, hit.parsed.runtime],
  ] as const) {
    root.addJSON(json)
    stampFilename(root, json, '', path)
  }
  return hit.parsed.result
}

/** Sets `filename` on the types, enums, services and extensions `json` declared, as `parse` does. */
function stampFilename(root: protobuf.Root, json: Nested, prefix: string, path: string): void {
  for (const [name, node] of Object.entries(json)) {
    const fullName = prefix ? `${prefix}.${name}` : name
    const nested = (node as protobuf.INamespace).nested
    const obj = root.lookup(fullName)
    const declared = 'fields' in node || 'values' in node || 'methods' in node || 'extend' in node
    if (obj && declared) obj.filename = path
    if (nested) stampFilename(root, nested, fullName, path)
  }
}

/**
 * Each `.proto` file is parsed and scanned once per process for as long as
 * its text stays the same (docs/internals.md, "Parse cache"): a build
 * parses every file its `.proto` imports, and big APIs import the same
 * dozens of files (`google/api/*.proto`, `google/longrunning/...`) that make
 * up most of the parse (a Google API's own file is about a tenth of it).
 * The next build that reads a file with the same text, a dev server's
 * rebuild after an edit or another `.proto` of the same app, adds it to its
 * roots from the JSON of the first parse. A file whose text changed is
 * parsed afresh; a file that fails to parse is not kept.
 */
import protobuf from 'protobufjs'
import { scanDeclarations } from './scan-declarations.ts'
import type { ScannedFile } from './scan-declarations.ts'

type Nested = Record<string, protobuf.AnyNestedObject>
type Statements = Record<string, unknown>[]

/** One root's share of a parsed file. */
interface RootJson {
  /** protobufjs JSON of the file parsed alone into a fresh root (the `nested` of `Root.toJSON()`), as text: parsed afresh for each build. */
  text: string
  /**
   * The custom option statements (`parsedOptions`) of its declarations by
   * full name, which the JSON leaves out (it keeps the flat `options`): the
   * custom options read them (custom-options.ts). A package's own (file
   * options) are not read, and stay out.
   */
  statements: Map<string, Statements>
}

interface Entry {
  text: string
  /** The characters it holds: its text, and its JSON once parsed. */
  chars: number
  scanned?: ScannedFile
  parsed?: {
    /** Parsed with `keepCase` (the model's root) and without (the runtime's). */
    model: RootJson
    runtime: RootJson
    result: Pick<protobuf.IParserResult, 'imports' | 'weakImports'>
  }
}

const cache = new Map<string, Entry>()
let cachedChars = 0
/** Off: every file parsed straight into the build's roots (the tests compare the two ways). */
let enabled = true

/** The most characters (texts and their JSON) the cache holds before it starts afresh. */
export const PARSE_CACHE_CHARS = 32 * 1024 * 1024

function entry(path: string, text: string): Entry {
  let hit = cache.get(path)
  if (!hit || hit.text !== text) {
    if (hit) cachedChars -= hit.chars
    if (cachedChars + text.length > PARSE_CACHE_CHARS) {
      cache.clear()
      cachedChars = 0
    }
    hit = { text, chars: text.length }
    cache.set(path, hit)
    cachedChars += text.length
  }
  return hit
}

/**
 * Forgets every file; `use: false` turns the cache off, every file then
 * parsed straight into the build's roots, as before the cache (the tests
 * compare the two ways: test/proto/parse-cache.test.ts).
 */
export function resetParseCache(use = true): void {
  cache.clear()
  cachedChars = 0
  enabled = use
}

/** {@link scanDeclarations} of a file's text, once per process and text. */
export function scanCached(path: string, text: string): ScannedFile {
  const hit = entry(path, text)
  hit.scanned ??= scanDeclarations(text)
  return hit.scanned
}

/**
 * Adds a file to both roots as `parse` would (the model's with proto names,
 * the runtime's with lowerCamel ones). `parse(root, keepCase)` parses it
 * (throwing what protobufjs throws): into fresh roots the first time its
 * text is seen, straight into the build's roots when that is the only way
 * to be the same as a parse: the file fails to parse (a name it shares
 * with another file may come before its own error), or one of its packages
 * is another file's message. `added(error)` turns an error of adding it (a
 * name another file declared too) into the one a parse would have given.
 */
export function addParsed(
  model: protobuf.Root,
  runtime: protobuf.Root,
  path: string,
  text: string,
  parse: (root: protobuf.Root, keepCase: boolean) => protobuf.IParserResult,
  added: (error: unknown) => Error,
): Pick<protobuf.IParserResult, 'imports' | 'weakImports'> {
  const straight = (): protobuf.IParserResult => {
    const result = parse(model, true)
    parse(runtime, false)
    return result
  }
  if (!enabled) return straight()
  const hit = entry(path, text)
  if (!hit.parsed) {
    const fresh = [new protobuf.Root(), new protobuf.Root()] as const
    let result: protobuf.IParserResult
    try {
      result = parse(fresh[0], true)
      parse(fresh[1], false)
    } catch {
      return straight()
    }
    hit.parsed = {
      model: rootJson(fresh[0]),
      runtime: rootJson(fresh[1]),
      result: { imports: result.imports, weakImports: result.weakImports },
    }
    const json = hit.parsed.model.text.length + hit.parsed.runtime.text.length
    hit.chars += json
    cachedChars += json
  }
  const { parsed } = hit
  // A copy each time: protobufjs keeps the objects it is given (options) and writes into them.
  const adds = [
    [model, parsed.model, JSON.parse(parsed.model.text) as Nested],
    [runtime, parsed.runtime, JSON.parse(parsed.runtime.text) as Nested],
  ] as const
  if (adds.some(([root, , nested]) => packageIsDeclared(root, nested))) return straight()
  for (const [root, json, nested] of adds) {
    try {
      addNested(root, nested)
    } catch (error) {
      throw added(error)
    }
    stamp(root, json, '', path, nested)
  }
  return parsed.result
}

/**
 * Whether a package of the file's JSON is already a message, enum or
 * service of `ns` (another file's `message B` in `package a`, this file's
 * `package a.B`): the parser then declares the file's types inside it.
 */
function packageIsDeclared(ns: protobuf.Namespace, nested: Nested): boolean {
  for (const [name, node] of Object.entries(nested)) {
    if (isDeclaration(node)) continue
    const there = ns.get(name)
    if (there === null) continue
    if (!isPackage(there)) return true
    const inner = (node as protobuf.INamespace).nested
    if (inner && packageIsDeclared(there as protobuf.Namespace, inner)) return true
  }
  return false
}

/** A declaration's JSON (a type, enum, service or extension field), as protobufjs's `addJSON` tells them from namespaces. */
const isDeclaration = (node: protobuf.AnyNestedObject): boolean => 'fields' in node || 'values' in node || 'methods' in node || 'id' in node

/**
 * Adds a file's JSON to `ns` as `parse` adds the file: its packages are
 * found or made (`define`), their options set, and its declarations added
 * after what the namespace holds. (protobufjs's `addJSON` makes each package
 * afresh and moves what was there after the new declarations: the model's
 * order, and with it the declaration order the schemas follow, would change.)
 */
function addNested(ns: protobuf.Namespace, nested: Nested): void {
  for (const [name, node] of Object.entries(nested)) {
    if (isDeclaration(node)) {
      ns.add(declarationFromJson(name, node))
      continue
    }
    const json = node as protobuf.INamespace
    const inner = ns.define(name)
    for (const [key, value] of Object.entries(json.options ?? {})) inner.setOption(key, value)
    if (json.nested) addNested(inner, json.nested)
  }
}

function declarationFromJson(name: string, node: protobuf.AnyNestedObject): protobuf.ReflectionObject {
  if ('fields' in node) return protobuf.Type.fromJSON(name, node as protobuf.IType)
  if ('values' in node) return protobuf.Enum.fromJSON(name, node as protobuf.IEnum)
  if ('methods' in node) return protobuf.Service.fromJSON(name, node as protobuf.IService)
  return protobuf.Field.fromJSON(name, node as protobuf.IField)
}

function rootJson(root: protobuf.Root): RootJson {
  const statements = new Map<string, Statements>()
  const collect = (obj: protobuf.ReflectionObject): void => {
    const parsed = (obj as { parsedOptions?: Statements | null }).parsedOptions
    if (parsed && parsed.length > 0 && !isPackage(obj)) statements.set(obj.fullName, structuredClone(parsed))
    for (const child of childrenOf(obj)) collect(child)
  }
  collect(root)
  return { text: JSON.stringify(root.toJSON().nested ?? {}), statements }
}

/** A plain namespace: a package, whose statements are file options. */
const isPackage = (obj: protobuf.ReflectionObject): boolean =>
  obj instanceof protobuf.Namespace && !(obj instanceof protobuf.Type) && !(obj instanceof protobuf.Service)

function childrenOf(obj: protobuf.ReflectionObject): protobuf.ReflectionObject[] {
  const children: protobuf.ReflectionObject[] = []
  if (obj instanceof protobuf.Type) children.push(...obj.fieldsArray, ...obj.oneofsArray)
  if (obj instanceof protobuf.Service) children.push(...obj.methodsArray)
  if (obj instanceof protobuf.Namespace) children.push(...obj.nestedArray)
  return children
}

/**
 * Sets on the declarations the file added what `parse` sets and the JSON
 * does not carry: `filename` (on each type, enum, service and extension,
 * and on their fields, oneofs and methods) and the custom option statements.
 */
function stamp(root: protobuf.Root, json: RootJson, prefix: string, path: string, nested: Nested): void {
  const restore = (obj: protobuf.ReflectionObject): void => {
    obj.filename = path
    const statements = json.statements.get(obj.fullName)
    if (statements) (obj as { parsedOptions?: Statements }).parsedOptions = structuredClone(statements)
  }
  for (const [name, node] of Object.entries(nested)) {
    const fullName = prefix ? `${prefix}.${name}` : name
    const obj = isDeclaration(node) ? root.lookup(fullName) : null
    if (obj) {
      restore(obj)
      if (obj instanceof protobuf.Type) [...obj.fieldsArray, ...obj.oneofsArray].forEach(restore)
      if (obj instanceof protobuf.Service) obj.methodsArray.forEach(restore)
    }
    const inner = (node as protobuf.INamespace).nested
    if (inner) stamp(root, json, fullName, path, inner)
  }
}

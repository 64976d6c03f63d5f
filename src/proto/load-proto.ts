/**
 * Loads a `.proto` file and its imports into the neutral {@link ProtoModel}.
 */
import { readFileSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import protobuf from 'protobufjs'
import { checkNesting } from './check-nesting.ts'
import { buildDescriptor } from './descriptor.ts'
import { isProtoError, protoError } from './errors.ts'
import type { ProtoModel } from './model.ts'
import { addParsed, scanCached } from './parse-cache.ts'
import { resolveImport } from './resolve-import.ts'
import { declarationKey } from './scan-declarations.ts'
import { tokenize, type Token } from './tokenize.ts'
import { toModel } from './to-model.ts'
import type { Sources } from './to-model.ts'

/** Options of {@link loadProto}. */
export interface LoadProtoOptions {
  /**
   * Directories searched for `import "..."` after the importing file's own
   * directory and the imported file's directory.
   * @default []
   */
  importPaths?: string[]
}

/** The well-known types every descriptor carries (bundled with protobufjs). */
export const WELL_KNOWN_FILES = ['any', 'duration', 'empty', 'field_mask', 'struct', 'timestamp', 'wrappers'].map(
  (name) => `google/protobuf/${name}.proto`,
)

/** The largest `.proto` file read, in bytes (16 MiB). */
export const MAX_PROTO_BYTES = 16 * 1024 * 1024

const LINE_SUFFIX_RE = /\s*\((?:[^()]*, )?line (\d+)\)\s*$/
const OFFENDING_TOKEN_RE = /^illegal [a-z ]*'([^']*)'/
const DUPLICATE_RE = /^duplicate (?:name '([^']+)'|id (\d+)) in \w+(?: (\S+))?/
// What comes before an option's name inside `[...]`: `[default = 1]` is no field.
const OPTION_START_RE = /^[[,]$/
const DECLARING_RE = /^(?:message|enum|service|rpc|oneof)$/

/**
 * Reads `file` and everything it imports and returns the model of its
 * services and every type they reach. Sync. Throws a `ProtoError` (see
 * `errors.ts`: `PROTO_SYNTAX`, `PROTO_IMPORT`, `PROTO_TYPE`, with the file,
 * line and column) for a syntax error, a missing import or an unknown type.
 */
export function loadProto(file: string, options: LoadProtoOptions = {}): ProtoModel {
  const rootFile = resolve(file)
  const importPaths = options.importPaths ?? []
  // Two roots from the same text: proto names for the model (keepCase), and
  // protobufjs's default lowerCamel names for the runtime's descriptor.
  const model = new protobuf.Root()
  const runtime = new protobuf.Root()
  const sources: Sources = { scanned: new Map(), bundledFiles: new Set(), order: [] }
  const loadedBundles = new Set<string>()
  // Imports before importers, as protoc builds them: the order errors are reported in.
  const built: string[] = []

  // Every file read so far, for a ProtoError's `files` (watch them all on failure).
  const read: string[] = []
  // The files being loaded, importer before imported, with their names as imported.
  const importing: { path: string; name: string }[] = []
  // Who imports each file, and which files are this package's option protos:
  // types reached only through those stay out of the runtime's descriptor.
  const importers = new Map<string, Set<string>>()
  const shipped = new Set<string>()

  const load = (path: string, bundled: boolean, name: string): void => {
    if (sources.scanned.has(path)) return
    let text: string
    try {
      // A device or FIFO would be read forever (`/dev/zero`) or block (a FIFO): only regular files, of a bounded size.
      const stat = statSync(path)
      if (!stat.isFile()) throw new Error('not a regular file (a .proto must be a file)')
      if (stat.size > MAX_PROTO_BYTES) throw new Error(`${stat.size} bytes, more than the ${MAX_PROTO_BYTES} a .proto may have`)
      text = readFileSync(path, 'utf8')
    } catch (cause) {
      throw new Error(`cannot read "${path}": ${(cause as Error).message}`, { cause })
    }
    read.push(path)
    importing.push({ path, name })
    // Parsed once per process and text (parse-cache.ts): a file imported again, or unchanged since the last build, is added from its JSON.
    const parsed = addParsed(
      model,
      runtime,
      path,
      text,
      (root, keepCase) => {
        if (keepCase) checkReservedNames(path, text)
        return parseOne(root, keepCase, text, path)
      },
      (cause) => syntaxError(path, text, cause),
    )
    const scanned = scanCached(path, text)
    sources.scanned.set(path, scanned)
    sources.order.push(path)
    if (bundled) sources.bundledFiles.add(path)
    for (const importPath of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      const found = resolveImport(importPath, path, rootFile, importPaths)
      if (found?.kind === 'refused') {
        const at = scanned.imports.find((i) => i.path === importPath)
        throw protoError('PROTO_IMPORT', path, at?.line ?? 1, at?.column ?? 1, found.reason)
      }
      if (!found) {
        const at = scanned.imports.find((i) => i.path === importPath)
        const error = protoError(
          'PROTO_IMPORT',
          path,
          at?.line ?? 1,
          at?.column ?? 1,
          `import "${importPath}" not found next to the importing file, next to "${rootFile}" or in importPaths ` +
            '(add the directory it is relative to to importPaths)',
        )
        error.missingImport = importPath
        throw error
      }
      const cycleStart = found.kind === 'file' ? importing.findIndex((f) => f.path === found.path) : -1
      if (cycleStart !== -1) {
        // protoc rejects a cycle ("File recursively imports itself"); protobufjs would load it silently.
        const chain = [...importing.slice(cycleStart).map((f) => f.name), importPath]
        const at = scanned.imports.find((i) => i.path === importPath)
        throw protoError(
          'PROTO_IMPORT',
          path,
          at?.line ?? 1,
          at?.column ?? 1,
          `file recursively imports itself: ${chain.join(' -> ')} (remove one of these imports)`,
        )
      }
      if (found.kind === 'bundled') {
        if (loadedBundles.has(found.name)) continue
        loadedBundles.add(found.name)
        model.addJSON(found.json.nested ?? {})
        runtime.addJSON(found.json.nested ?? {})
      } else {
        if (!importers.has(found.path)) importers.set(found.path, new Set())
        importers.get(found.path)!.add(path)
        if (found.shipped) shipped.add(found.path)
        load(found.path, found.bundled, importPath)
      }
    }
    importing.pop()
    built.push(path)
  }

  try {
    load(rootFile, false, basename(rootFile))
    // protojson resolves an `Any`'s type from a global registry (Go's holds
    // every well-known type): the runtime's descriptor carries them all.
    for (const name of WELL_KNOWN_FILES) {
      if (loadedBundles.has(name)) continue
      loadedBundles.add(name)
      runtime.addJSON(protobuf.common.get(name)?.nested ?? {})
    }
    checkTypes(model, sources, built)
    resolveOrThrow(model, rootFile)
    resolveOrThrow(runtime, rootFile)
    checkNesting(model, sources)
    const result = toModel(model, rootFile, sources)
    result.descriptor = buildDescriptor(runtime, optionOnlyFiles(rootFile, importers, shipped))
    return result
  } catch (error) {
    if (isProtoError(error)) error.files = [...read].sort()
    throw error
  }
}

/**
 * The files imported only for their options: the package's shipped option
 * protos and whatever only they import (`google/protobuf/descriptor.proto`
 * through `buf/validate/validate.proto`).
 */
export function optionOnlyFiles(rootFile: string, importers: Map<string, Set<string>>, shipped: Set<string>): Set<string> {
  const memo = new Map<string, boolean>()
  const isOptionOnly = (file: string): boolean => {
    if (file === rootFile) return false
    if (shipped.has(file)) return true
    const known = memo.get(file)
    if (known !== undefined) return known
    memo.set(file, false)
    const by = [...(importers.get(file) ?? [])]
    const result = by.length > 0 && by.every(isOptionOnly)
    memo.set(file, result)
    return result
  }
  return new Set([...importers.keys()].filter(isOptionOnly))
}

/**
 * Rejects `__proto__` as a name: protobufjs keeps messages, fields, services
 * and RPCs in plain objects, where that key sets the prototype, so the
 * declaration would vanish without a word (no tool, no field).
 */
function checkReservedNames(path: string, text: string): void {
  if (!text.includes('__proto__')) return
  const at = tokenize(text).find((t) => t.text === '__proto__')
  if (at === undefined) return
  throw protoError(
    'PROTO_SYNTAX',
    path,
    at.line,
    at.column,
    'the name "__proto__" cannot be used: JavaScript objects cannot hold it as a key, so its declaration would vanish (rename it)',
  )
}

/** Parses one file's text into `root`, turning protobufjs errors into `PROTO_SYNTAX`. */
function parseOne(root: protobuf.Root, keepCase: boolean, text: string, path: string): protobuf.IParserResult {
  try {
    holdParseFilename(path)
    return protobuf.parse(text, root, { keepCase, alternateCommentMode: true })
  } catch (cause) {
    throw syntaxError(path, text, cause)
  } finally {
    releaseParseFilename()
  }
}

/** A protobufjs parse error as a `PROTO_SYNTAX` ProtoError pointing at the offending token. */
function syntaxError(path: string, text: string, cause: unknown): Error {
  const raw = cause instanceof Error ? cause.message : String(cause)
  const reason = raw.replace(LINE_SUFFIX_RE, '')
  const lineMatch = LINE_SUFFIX_RE.exec(raw)
  const tokens = tokenize(text)
  let line = lineMatch ? Number(lineMatch[1]) : undefined
  let column: number | undefined
  const offending = OFFENDING_TOKEN_RE.exec(reason)?.[1]
  // A duplicate name or number carries no line of its own (or the parser's
  // line 1): point at the second declaration, the one that clashes.
  const duplicate = locateDuplicate(reason, tokens)
  if (duplicate !== undefined) {
    line = duplicate.line
    column = duplicate.column
  } else if (line !== undefined) {
    column = tokens.find((t) => t.line === line && t.text === offending)?.column ?? tokens.find((t) => t.line === line)?.column
  } else {
    // A top-level name declared twice (in two files): its declaration in this one.
    const name = DUPLICATE_RE.exec(reason)?.[1]
    const at = tokens.findIndex((t, i) => t.text === name && i > 0 && DECLARING_RE.test(tokens[i - 1]!.text))
    line = tokens[at]?.line
    column = tokens[at]?.column
  }
  // The offending text is the file's content (which may not be a .proto at all): point at it instead of quoting it.
  const shown =
    offending === undefined
      ? reason
      : reason.replace(OFFENDING_TOKEN_RE, (whole) => `${whole.slice(0, whole.indexOf("'")).trimEnd()} at column ${column ?? 1}`)
  return protoError('PROTO_SYNTAX', path, line ?? 1, column ?? 1, shown, cause)
}

/**
 * For protobufjs's "duplicate name 'x' in Type A" and "duplicate id 2 in
 * Type A": the name token of the second member of `A` (fields of its
 * oneofs included, nested declarations not) with that name or number.
 */
function locateDuplicate(reason: string, tokens: Token[]): Token | undefined {
  const match = DUPLICATE_RE.exec(reason)
  if (match === null) return undefined
  const [, name, id, owner] = match
  if (owner === undefined) return undefined
  const short = owner!.slice(owner!.lastIndexOf('.') + 1)
  const hits: Token[] = []
  for (let i = 1; i < tokens.length; i++) {
    if (tokens[i]!.text !== short || !DECLARING_RE.test(tokens[i - 1]!.text) || tokens[i + 1]?.text !== '{') continue
    hits.length = 0
    // The braces opened inside A: a oneof's members are A's, a nested declaration's are not.
    const opened: boolean[] = []
    for (let j = i + 2; j < tokens.length; j++) {
      const text = tokens[j]!.text
      if (text === '{') opened.push(tokens[j - 2]?.text === 'oneof')
      else if (text === '}') {
        if (opened.pop() === undefined) break
      } else if (opened.every(Boolean) && tokens[j + 1]?.text === '=' && !OPTION_START_RE.test(tokens[j - 1]!.text)) {
        const value = tokens[j + 2]?.text
        if (name !== undefined ? text === name : value === id) hits.push(tokens[j]!)
      } else if (name !== undefined && text === name && opened.every(Boolean) && DECLARING_RE.test(tokens[j - 1]!.text)) {
        hits.push(tokens[j]!)
      }
    }
    if (hits.length > 1) return hits[1]
  }
  return hits[0]
}

/**
 * Resolves every field and method type one by one, so that an unknown type
 * is reported at the field or rpc using it (protobufjs's own error has no
 * position). The first one wins, imports before importers, then by line.
 */
function checkTypes(root: protobuf.Root, sources: Sources, built: string[]): void {
  const failures: { file: string; line: number; column: number; reason: string; cause: unknown }[] = []
  const locate = (key: string): { file: string; line: number; column: number } | undefined => {
    for (const [file, scanned] of sources.scanned) {
      const decl = scanned.declarations.get(key)
      if (decl) return { file, line: decl.line, column: decl.column }
    }
    return undefined
  }
  const fail = (obj: protobuf.ReflectionObject, keys: string[], what: string, cause: unknown): void => {
    let at: { file: string; line: number; column: number } | undefined
    for (const key of keys) at ??= locate(key)
    at ??= { file: obj.filename ?? sources.order[0]!, line: 1, column: 1 }
    failures.push({ ...at, reason: `unknown type "${what}"`, cause })
  }
  const visit = (ns: protobuf.NamespaceBase): void => {
    const name = ns.fullName.slice(1)
    const fields = ns instanceof protobuf.Type ? [...ns.fieldsArray] : []
    // Extension fields (`extend X { ... }`) sit among the nested objects.
    for (const nested of ns.nestedArray) if (nested instanceof protobuf.Field) fields.push(nested)
    for (const field of fields) {
      // The copy of an extension field that protobufjs puts in the type it extends: its declaring field (among its own
      // file's nested objects) is resolved with the same type and reported where it is written, not in the extended file.
      if (field.declaringField !== null) continue
      try {
        field.resolve()
      } catch (cause) {
        fail(field, [declarationKey('field', name, field.name), declarationKey('message', name)], field.type, cause)
      }
    }
    if (ns instanceof protobuf.Service) {
      for (const method of ns.methodsArray) {
        try {
          method.resolve()
        } catch (cause) {
          const missing = safeLookup(ns, method.requestType) ? method.responseType : method.requestType
          fail(method, [declarationKey('method', name, method.name), declarationKey('service', name)], missing, cause)
        }
      }
    }
    for (const nested of ns.nestedArray) if (nested instanceof protobuf.Namespace) visit(nested)
  }
  visit(root)
  if (failures.length === 0) return
  failures.sort((a, b) => built.indexOf(a.file) - built.indexOf(b.file) || a.line - b.line || a.column - b.column)
  const first = failures[0]!
  throw protoError('PROTO_TYPE', first.file, first.line, first.column, first.reason, first.cause)
}

/** Anything protobufjs still rejects while resolving (a last resort, with no better position). */
function resolveOrThrow(root: protobuf.Root, file: string): void {
  try {
    root.resolveAll()
  } catch (cause) {
    throw protoError('PROTO_TYPE', file, 1, 1, (cause as Error).message, cause)
  }
}

function safeLookup(from: protobuf.Service, name: string): boolean {
  try {
    return from.lookupType(name) !== null
  } catch {
    return false
  }
}

/**
 * Sets the global through which protobufjs names the file in its messages
 * and stamps it on each declaration (`filename`, untyped in its .d.ts), so
 * that it holds for the whole parse: protobufjs clears it whenever it builds
 * an error, even one it catches itself, as it does for each name of an
 * editions `reserved foo, bar;` (tried as a number first). Every declaration
 * after such a line would belong to no file, and its services give no tools.
 */
function holdParseFilename(path: string): void {
  Object.defineProperty(protobuf.parse, 'filename', {
    configurable: true,
    enumerable: true,
    get: () => path,
    set: () => {},
  })
}

/** Puts back the plain, empty `filename` global of {@link holdParseFilename}. */
function releaseParseFilename(): void {
  Object.defineProperty(protobuf.parse, 'filename', { configurable: true, enumerable: true, writable: true, value: null })
}

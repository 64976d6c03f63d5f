/**
 * The declaration file of typed `?mcp` imports (the `dts` option): kept up to
 * date as modules are built, written only when its text changes (a watcher on
 * the project must not see a write per rebuild).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { emitDtsFile, emitModuleDeclarations, parseDtsFile } from '../codegen/index.ts'
import { loadProto } from '../proto/index.ts'

/** Where `dts: true` writes, relative to the project root. */
export const DEFAULT_DTS_FILE = 'proto-mcp.d.ts'

/** The absolute path the `dts` option names (relative to `root`), `undefined` when off. */
export function resolveDtsFile(option: boolean | string | undefined, root: string): string | undefined {
  if (!option) return undefined
  return resolve(root, option === true ? DEFAULT_DTS_FILE : option)
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * One declaration file and the blocks it holds. Blocks of protos this
 * process never built are kept from the file on disk while their `.proto`
 * exists, so a build that loads only some protos does not drop the others.
 */
export class DeclarationFile {
  readonly file: string
  #entries: Map<string, string> | undefined

  constructor(file: string) {
    this.file = file
  }

  /** The key of a `.proto`: its POSIX path relative to the file's folder. */
  #key(proto: string): string {
    const rel = relative(dirname(this.file), proto)
    return (isAbsolute(rel) ? proto : rel).split(sep).join('/')
  }

  #load(): Map<string, string> {
    if (this.#entries) return this.#entries
    const entries = new Map<string, string>()
    const text = readText(this.file)
    for (const entry of text === undefined ? [] : parseDtsFile(text)) {
      if (existsSync(resolve(dirname(this.file), entry.proto))) entries.set(entry.proto, entry.body)
    }
    this.#entries = entries
    return entries
  }

  /**
   * Records the declarations of the `.proto` at the absolute path `proto`
   * and rewrites the file if that changes its text. Returns `true` when it
   * wrote. Throws what the file system throws.
   */
  update(proto: string, body: string): boolean {
    const entries = this.#load()
    entries.set(this.#key(proto), body)
    const text = emitDtsFile([...entries].map(([key, value]) => ({ proto: key, body: value })))
    if (readText(this.file) === text) return false
    mkdirSync(dirname(this.file), { recursive: true })
    writeFileSync(this.file, text)
    return true
  }
}

/** Options of {@link writeProtoDeclarations}. */
export interface WriteProtoDeclarationsOptions {
  /** Directories searched for imports, relative to `root`. @default [] */
  importPaths?: string[]
  /** The declaration file, relative to `root`. @default 'proto-mcp.d.ts' */
  out?: string
  /** The project root. @default process.cwd() */
  root?: string
}

/**
 * Writes (or updates) the declaration file typing `import x from './x.proto?mcp'`
 * for each of `protos` (paths relative to `root`), with no bundler: what the
 * plugin's `dts` option writes. Returns the file's absolute path.
 * Throws a `ProtoError` for a `.proto` that does not load.
 */
export function writeProtoDeclarations(protos: readonly string[], options: WriteProtoDeclarationsOptions = {}): string {
  const root = resolve(options.root ?? process.cwd())
  const importPaths = (options.importPaths ?? []).map((dir) => resolve(root, dir))
  const target = new DeclarationFile(resolve(root, options.out ?? DEFAULT_DTS_FILE))
  for (const proto of protos) {
    const file = resolve(root, proto)
    target.update(file, emitModuleDeclarations(loadProto(file, { importPaths })))
  }
  return target.file
}

/**
 * Where an `import "..."` of a `.proto` comes from: a well-known type bundled
 * with protobufjs, or a file on disk.
 */
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'

/** A resolved import: bundled JSON (no file read) or an absolute path on disk. */
export type ResolvedImport =
  | { kind: 'bundled'; name: string; json: protobuf.INamespace }
  | { kind: 'file'; path: string; bundled: boolean; shipped?: boolean }

/** protobufjs's own `google/` folder (descriptor.proto, google/api/*.proto), found once. */
let shippedDir: string | undefined

function protobufjsDir(): string {
  shippedDir ??= dirname(createRequire(import.meta.url).resolve('protobufjs'))
  return shippedDir
}

/** A file this package ships in its `protos/` folder, found from src/proto/ and from dist/ alike. */
const SHIPPED_MARKER = 'proto_mcp/options.proto'

let packageProtosDir: string | null | undefined

/**
 * The package's own `protos/` folder (`google/api/field_behavior.proto`,
 * `buf/validate/validate.proto`, `proto_mcp/options.proto`), or null when it
 * cannot be found (the code was bundled away from the package).
 */
export function shippedProtosDir(): string | null {
  if (packageProtosDir !== undefined) return packageProtosDir
  packageProtosDir = null
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    if (isFile(join(dir, 'protos', SHIPPED_MARKER))) return (packageProtosDir = join(dir, 'protos'))
    dir = dirname(dir)
  }
  return packageProtosDir
}

/**
 * Resolves `importPath` as written in `importer`: the bundled well-known
 * types first (no setup needed), then relative to the importing file's
 * directory, the root file's directory, each of `importPaths`, then the
 * `.proto` files this package ships (so a user's own copy wins), and last
 * those protobufjs ships (`google/protobuf/descriptor.proto`,
 * `google/api/*.proto`). Returns null when nothing matches. `shipped` marks
 * the package's own option files.
 */
export function resolveImport(
  importPath: string,
  importer: string,
  rootFile: string,
  importPaths: readonly string[],
): ResolvedImport | null {
  const json = protobuf.common.get(importPath)
  if (json) return { kind: 'bundled', name: importPath, json }
  if (isAbsolute(importPath)) return isFile(importPath) ? { kind: 'file', path: importPath, bundled: false } : null
  const dirs = [dirname(importer), dirname(rootFile), ...importPaths.map(p => resolve(p))]
  for (const dir of dirs) {
    const candidate = join(dir, importPath)
    if (isFile(candidate)) return { kind: 'file', path: candidate, bundled: false }
  }
  const shipped = shippedProtosDir()
  if (shipped !== null) {
    const candidate = join(shipped, importPath)
    if (isFile(candidate)) return { kind: 'file', path: candidate, bundled: true, shipped: true }
  }
  if (importPath.startsWith('google/')) {
    const candidate = join(protobufjsDir(), importPath)
    if (isFile(candidate)) return { kind: 'file', path: candidate, bundled: true }
  }
  return null
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile()
}

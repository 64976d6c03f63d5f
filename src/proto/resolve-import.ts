/**
 * Where an `import "..."` of a `.proto` comes from: a well-known type bundled
 * with protobufjs, or a file on disk.
 */
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import protobuf from 'protobufjs'

/** A resolved import: bundled JSON (no file read) or an absolute path on disk. */
export type ResolvedImport =
  | { kind: 'bundled'; name: string; json: protobuf.INamespace }
  | { kind: 'file'; path: string; bundled: boolean }

/** protobufjs's own `google/` folder (descriptor.proto, google/api/*.proto), found once. */
let shippedDir: string | undefined

function protobufjsDir(): string {
  shippedDir ??= dirname(createRequire(import.meta.url).resolve('protobufjs'))
  return shippedDir
}

/**
 * Resolves `importPath` as written in `importer`: the bundled well-known
 * types first (no setup needed), then relative to the importing file's
 * directory, the root file's directory, each of `importPaths`, and last the
 * `.proto` files protobufjs ships (`google/protobuf/descriptor.proto`,
 * `google/api/*.proto`). Returns null when nothing matches.
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
  if (importPath.startsWith('google/')) {
    const candidate = join(protobufjsDir(), importPath)
    if (isFile(candidate)) return { kind: 'file', path: candidate, bundled: true }
  }
  return null
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile()
}

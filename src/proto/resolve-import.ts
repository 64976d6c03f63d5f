/**
 * Where an `import "..."` of a `.proto` comes from: a well-known type bundled
 * with protobufjs, or a file on disk.
 */
import { existsSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import protobuf from 'protobufjs'
import { packageRoot } from './package-root.ts'

/** A resolved import: bundled JSON (no file read), an absolute path on disk, or a path refused (and why). */
export type ResolvedImport =
  | { kind: 'bundled'; name: string; json: protobuf.INamespace }
  | { kind: 'file'; path: string; bundled: boolean; shipped?: boolean }
  | { kind: 'refused'; reason: string }

/** protobufjs's own `google/` folder (descriptor.proto, google/api/*.proto), found once. */
let shippedDir: string | undefined

function protobufjsDir(): string {
  shippedDir ??= dirname(createRequire(import.meta.url).resolve('protobufjs'))
  return shippedDir
}

/** A file this package ships in its `protos/` folder. */
const SHIPPED_MARKER = 'proto_mcp/options.proto'

let packageProtosDir: string | null | undefined

/**
 * The package's own `protos/` folder (`google/api/field_behavior.proto`,
 * `buf/validate/validate.proto`, `proto_mcp/options.proto`), or null when it
 * cannot be found (the code was bundled away from the package).
 */
export function shippedProtosDir(): string | null {
  if (packageProtosDir !== undefined) return packageProtosDir
  const root = packageRoot()
  packageProtosDir = root !== null && isFile(join(root, 'protos', SHIPPED_MARKER)) ? join(root, 'protos') : null
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
  if (isAbsolute(importPath) || /^[A-Za-z]:[\\/]/.test(importPath)) {
    return {
      kind: 'refused',
      reason: `import "${importPath}" is an absolute path: imports are relative to the importing file's folder or an import path`,
    }
  }
  const dirs = [dirname(importer), dirname(rootFile), ...importPaths.map((p) => resolve(p))]
  let escaped = false
  for (const dir of dirs) {
    const candidate = join(dir, importPath)
    if (!isFile(candidate)) continue
    // Resolved through symlinks, the file must still be under the folder it was found in.
    if (within(realpathSync(dir), realpathSync(candidate))) return { kind: 'file', path: candidate, bundled: false }
    escaped = true
  }
  if (escaped) {
    return {
      kind: 'refused',
      reason: `import "${importPath}" resolves outside the importing file's folder and every import path (through ".." or a symlink)`,
    }
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

/** Whether `path` is `dir` or inside it (both already real paths). */
function within(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}

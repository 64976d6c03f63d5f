/**
 * Descriptor sets on disk, as users hand them to `proto-mcp serve` and the
 * `?mcp` import: built by the buf CLI (the `@bufbuild/buf` dev dependency)
 * as a buf image or a protoc-style `FileDescriptorSet`, binary or JSON.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO } from '../cli/run-cli.ts'

/** The forms `buf build` writes: a buf image or a plain (protoc's) set, binary or JSON. */
export type SetForm = 'image' | 'protoc' | 'image-json'

/** A fresh folder under `.tmp/` for sets. */
export function setDir(): string {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  return mkdtempSync(join(REPO, '.tmp', 'sets-'))
}

/**
 * Builds `files` (relative to the module root `root`) into `out` with
 * `buf build` (source info kept unless `sourceInfo` is false); returns `out`.
 */
export function bufSet(root: string, files: readonly string[], out: string, form: SetForm = 'image', sourceInfo = true): string {
  mkdirSync(dirname(out), { recursive: true })
  execFileSync(
    join(REPO, 'node_modules', '.bin', 'buf'),
    [
      'build',
      root,
      ...files.flatMap((f) => ['--path', join(root, f)]),
      '-o',
      out,
      ...(form === 'protoc' ? ['--as-file-descriptor-set'] : []),
      ...(sourceInfo ? [] : ['--exclude-source-info']),
    ],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  return out
}

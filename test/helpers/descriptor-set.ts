/**
 * `FileDescriptorSet`s built by the buf CLI (with or without source info),
 * split into each file's serialized `FileDescriptorProto`, untouched, as a
 * reflection server sends them.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import protobuf from 'protobufjs'
import { REPO } from './repo.ts'

/** Options of {@link bufBuild}. */
export interface BufBuildOptions {
  /** Keep `source_code_info` (comments). @default true */
  sourceInfo?: boolean
}

/** Compiles `file` (relative to the module directory `dir`) and its imports with `buf build`; each file's bytes, imports first. */
export function bufBuild(dir: string, file: string, options: BufBuildOptions = {}): Uint8Array[] {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const out = join(mkdtempSync(join(REPO, '.tmp', 'buf-')), 'set.binpb')
  const bin = join(REPO, 'node_modules', '.bin', 'buf')
  try {
    execFileSync(
      bin,
      ['build', dir, '--path', join(dir, file), '-o', out, ...(options.sourceInfo === false ? ['--exclude-source-info'] : [])],
      { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    return splitDescriptorSet(readFileSync(out))
  } finally {
    rmSync(dirname(out), { recursive: true, force: true })
  }
}

/** The `file` entries (field 1) of a serialized `FileDescriptorSet`, byte for byte. */
export function splitDescriptorSet(bytes: Uint8Array): Uint8Array[] {
  const reader = protobuf.Reader.create(bytes)
  const files: Uint8Array[] = []
  while (reader.pos < reader.len) {
    const tag = reader.uint32()
    if (tag >>> 3 === 1 && (tag & 7) === 2) files.push(reader.bytes())
    else reader.skipType(tag & 7)
  }
  return files
}

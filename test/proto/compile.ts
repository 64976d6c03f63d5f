/**
 * Test helpers: write `.proto` text to a fresh temp directory and load it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { loadProto } from '../../src/proto/load-proto.ts'
import type { LoadProtoOptions } from '../../src/proto/load-proto.ts'
import type { ProtoModel } from '../../src/proto/model.ts'

/** Writes `files` (relative path → text) under a new temp directory; returns the directory. */
export function writeProtos(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'proto-mcp-test-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

/**
 * Loads `source` as `test.proto` (proto3, package `t` unless the text has its
 * own `syntax`/`package` lines).
 */
export function compile(source: string, options: LoadProtoOptions = {}): ProtoModel {
  const header = (/^\s*syntax\s*=/m.test(source) ? '' : 'syntax = "proto3";\n') + (/^\s*package\s/m.test(source) ? '' : 'package t;\n')
  const dir = writeProtos({ 'test.proto': header + source })
  return loadProto(join(dir, 'test.proto'), options)
}

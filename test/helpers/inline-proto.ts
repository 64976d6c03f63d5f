/**
 * `.proto` text written inline in a test: to a fresh temp directory, and
 * loaded. `compile` removes its directory once loaded; the directories of
 * `writeProtos` (which the test loads itself, maybe later) are removed when
 * the test file ends.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import type { LoadProtoOptions } from '../../src/proto/load-proto.ts'
import type { ProtoModel } from '../../src/proto/model.ts'

const written = new Set<string>()

// Registered on the file that imports this module (vitest runs each test file with its own module graph).
afterAll(() => {
  for (const dir of written) rmSync(dir, { recursive: true, force: true })
  written.clear()
})

function writeTo(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}

/** Writes `files` (relative path → text) under a new temp directory, removed when the test file ends; returns the directory. */
export function writeProtos(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'proto-mcp-test-'))
  written.add(dir)
  writeTo(dir, files)
  return dir
}

/**
 * Loads `source` as `test.proto` (proto3, package `t` unless the text has its
 * own `syntax`/`package` lines), from a temp directory removed once loaded.
 */
export function compile(source: string, options: LoadProtoOptions = {}): ProtoModel {
  const header = (/^\s*syntax\s*=/m.test(source) ? '' : 'syntax = "proto3";\n') + (/^\s*package\s/m.test(source) ? '' : 'package t;\n')
  const dir = mkdtempSync(join(tmpdir(), 'proto-mcp-test-'))
  try {
    writeTo(dir, { 'test.proto': header + source })
    return loadProto(join(dir, 'test.proto'), options)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

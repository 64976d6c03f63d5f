/**
 * One model path: every proto with services in fixtures/ (and the
 * playground), compiled by buf with source info, gives through
 * `modelFromDescriptors` the tools, codec descriptor, notes and prompts
 * that `loadProto` gives from the file, in every profile. No server: the
 * transport is tested in reflect-spec.test.ts.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { specFromModel } from '../../src/gateway/build-spec.ts'
import { serverName } from '../../src/codegen/build-proto.ts'
import { loadProto, modelFromDescriptors } from '../../src/proto/index.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { REPO } from '../helpers/repo.ts'

const PROFILES = ['portable', 'strict', 'full', 'topeka'] as const
const PROTOS: Record<string, string[]> = {
  'fixtures/apps/dev/notes.proto': [],
  'fixtures/apps/import-paths/vibe.proto': ['fixtures/apps/import-paths/protos'],
  'fixtures/apps/prompts/vibes.proto': [],
  'fixtures/apps/typed/typed-vibe.proto': [],
  'fixtures/apps/warnings/streaming.proto': [],
  'fixtures/protos/auth/notes.proto': [],
  'fixtures/protos/editions/legacy-required.proto': [],
  'fixtures/protos/editions/reserved-names.proto': [],
  'fixtures/protos/grpc/counter.proto': [],
  'fixtures/protos/grpc/shapes.proto': [],
  'fixtures/protos/protojson/corpus.proto': [],
  'fixtures/protos/naming/go-names.proto': [],
  'fixtures/protos/reflection/options.proto': [],
  'fixtures/protos/runtime/echo.proto': [],
  'fixtures/protos/runtime/lenient.proto': [],
  'fixtures/protos/runtime/required.proto': [],
  'fixtures/topeka/example.proto': [],
  'fixtures/topeka/fixture.proto': [],
  'playground/vibe.proto': [],
}

/** `proto` built by buf in a module of its folder, its import paths and the shipped option protos. */
function build(proto: string, importPaths: string[]): Uint8Array[] {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', 'parity-'))
  try {
    for (const shipped of ['buf', 'google', 'proto_mcp']) cpSync(join(REPO, 'protos', shipped), join(dir, shipped), { recursive: true })
    for (const from of [...importPaths, dirname(proto)]) {
      for (const name of readdirSync(join(REPO, from)))
        if (name.endsWith('.proto') || !name.includes('.')) cpSync(join(REPO, from, name), join(dir, name), { recursive: true })
    }
    return bufBuild(dir, basename(proto))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `value` without any `reserved` key, at any depth. */
function withoutReserved(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutReserved)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'reserved')
      .map(([k, v]) => [k, withoutReserved(v)]),
  )
}

describe('descriptors give what the file gives', () => {
  for (const [proto, importPaths] of Object.entries(PROTOS)) {
    it(proto, () => {
      const reflected = modelFromDescriptors(build(proto, importPaths))
      const file = loadProto(join(REPO, proto), { importPaths: importPaths.map((p) => join(REPO, p)) })
      expect(reflected.services.map((s) => s.fullName)).toEqual(file.services.map((s) => s.fullName))
      expect(reflected.warnings).toEqual(file.warnings)
      // Descriptors keep reserved ranges and names apart, the parser in source order: the codec never reads them.
      expect(JSON.stringify(withoutReserved(reflected.descriptor))).toBe(JSON.stringify(withoutReserved(file.descriptor)))
      for (const profile of PROFILES) {
        const a = specFromModel(reflected, serverName(proto), { profile })
        const b = specFromModel(file, serverName(proto), { profile })
        expect(JSON.stringify(a.spec.tools.map(({ validate, ...t }) => t)), profile).toBe(
          JSON.stringify(b.spec.tools.map(({ validate, ...t }) => t)),
        )
        expect(a.notes, profile).toEqual(b.notes)
        expect(a.warnings, profile).toEqual(b.warnings)
        expect(a.spec.prompts, profile).toEqual(b.spec.prompts)
        if (proto.startsWith('fixtures/apps/prompts/')) expect(a.spec.prompts?.length).toBe(3)
      }
    })
  }
})

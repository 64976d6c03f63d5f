/**
 * Scopes of proto tools: `(proto_mcp.service)`, `(proto_mcp.tool).scopes`
 * and the `methodScopes` globs, in every profile, into the spec a generated
 * module carries; and the one glob matcher over RPC full names.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildProtoTools, emitModuleSource } from '../../src/codegen/build-proto.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { methodGlob } from '../../src/schema/method-glob.ts'

const NOTES = fileURLToPath(new URL('../../fixtures/protos/auth/notes.proto', import.meta.url))

const scopesOf = (tools: Array<{ name: string; scopes?: string[] }>) => Object.fromEntries(tools.map((t) => [t.name, t.scopes]))

describe('tool scopes', () => {
  it('come from the service option and the RPC option, in every profile', () => {
    for (const profile of ['portable', 'strict', 'full', 'topeka'] as const) {
      const { tools } = buildTools(loadProto(NOTES), { profile })
      expect(scopesOf(tools), profile).toEqual({
        GetNote: ['notes.read'],
        UpdateNote: ['notes.read'],
        DeleteNote: ['notes.read', 'notes.write'],
      })
    }
  })

  it('add those of every matching methodScopes glob, sorted, each once', () => {
    const { tools, warnings } = buildTools(loadProto(NOTES), {
      methodScopes: { 'notes.v1.Notes.Update*': 'notes.write', 'notes.v1.*.*Note': ['audit', 'notes.read'], 'other.v1.**': 'x' },
    })
    expect(scopesOf(tools)).toEqual({
      GetNote: ['audit', 'notes.read'],
      UpdateNote: ['audit', 'notes.read', 'notes.write'],
      DeleteNote: ['audit', 'notes.read', 'notes.write'],
    })
    expect(warnings.filter((w) => w.code === 'METHOD_PATTERN_UNMATCHED').map((w) => w.message)).toEqual([
      'methodScopes glob "other.v1.**" matches no RPC that has a tool (check the full name: package.Service.Method)',
    ])
  })

  it('are matched against the RPCs the methods filter keeps, with the same globs', () => {
    const { tools, warnings } = buildTools(loadProto(NOTES), {
      methods: { exclude: ['notes.v1.Notes.Delete*'] },
      methodScopes: { '.notes.v1.Notes.Delete*': 'notes.admin', 'notes.**.Get?ote': 'audit' },
    })
    expect(scopesOf(tools)).toEqual({ GetNote: ['audit', 'notes.read'], UpdateNote: ['notes.read'] })
    expect(warnings.filter((w) => w.code === 'METHOD_PATTERN_UNMATCHED').map((w) => w.message)).toEqual([
      'methodScopes glob ".notes.v1.Notes.Delete*" matches no RPC that has a tool (check the full name: package.Service.Method)',
    ])
  })

  it('are in the generated module', () => {
    const source = emitModuleSource(buildProtoTools(NOTES, { methodScopes: { '**.Update*': 'notes.write' } })).code
    expect(source).toContain('"scopes": ["notes.read","notes.write"]')
  })
})

describe('methodGlob', () => {
  it('* stays within a name, ** crosses dots, ? is one character, the rest is literal', () => {
    const match = (glob: string, name: string): boolean => methodGlob(glob)(name)
    expect(match('google.firestore.v1.Firestore.Delete*', 'google.firestore.v1.Firestore.DeleteDocument')).toBe(true)
    expect(match('google.firestore.v1.Firestore.Delete*', 'google.firestore.v1.Firestore.ListDocuments')).toBe(false)
    expect(match('google.*.Firestore.*', 'google.firestore.v1.Firestore.Get')).toBe(false)
    expect(match('google.**.Get', 'google.firestore.v1.Firestore.Get')).toBe(true)
    expect(match('a.B.Ge?', 'a.B.Get')).toBe(true)
    expect(match('a.B.Ge?', 'a.B.Ge.')).toBe(false)
    expect(match('a.B.Get', 'aXB.Get')).toBe(false)
    expect(match('a.B.(Get)+', 'a.B.(Get)+')).toBe(true)
    expect(match('.a.B.Get', 'a.B.Get')).toBe(true)
    // Without a dot: a method's own name, in any service.
    expect(match('GetDocument', 'google.firestore.v1.Firestore.GetDocument')).toBe(true)
    expect(match('Get*', 'Firestore.GetDocument')).toBe(true)
    expect(match('GetDocument', 'google.firestore.v1.Firestore.BatchGetDocuments')).toBe(false)
    expect(() => methodGlob('')).toThrow('a method glob must not be empty')
    expect(() => methodGlob('.')).toThrow('a method glob must not be empty')
  })
})

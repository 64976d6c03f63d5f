/**
 * Two copies of the runtime in one process (two bundles that each inline
 * it, or a runtime Vite's module runner evaluated afresh): a server that
 * adopts the other copy's tools (`include`, `replaceTools`, `replaceAll`)
 * calls each through the pipeline of the copy that compiled it, so the
 * copy whose protobufjs the tool's types need is the one that loads it.
 */
import { describe, expect, it, vi } from 'vitest'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'

type Runtime = typeof import('../../src/entries/internal.ts') & typeof import('../../src/entries/runtime.ts')

/** A fresh evaluation of the runtime's modules (its own protobufjs loader). */
async function freshCopy(): Promise<Runtime> {
  vi.resetModules()
  return { ...(await import('../../src/entries/internal.ts')), ...(await import('../../src/entries/runtime.ts')) }
}

const IMPL = { SetVibe: (req: { vibe?: string }) => ({ vibe: req.vibe, previousVibe: 'x' }) }

describe('tools adopted from another runtime copy', () => {
  for (const how of ['include', 'replaceTools', 'replaceAll'] as const) {
    it(`${how}: the call answers (the adopting copy loaded protobufjs first, the other never did)`, async () => {
      const a = await freshCopy()
      const own = a.createProtoServer(specFromProto(EXAMPLE_PROTO)).implement('VibeService', IMPL)
      expect((await own.call('SetVibe', { vibe: 'a' })).isError ?? false).toBe(false)

      const b = await freshCopy()
      expect(b.Server).not.toBe(a.Server)
      const other = b.createProtoServer(specFromProto(EXAMPLE_PROTO)).implement('VibeService', IMPL)
      let adopting = own
      if (how === 'include') adopting = a.Server.builder('outer').include(other).build()
      if (how === 'replaceTools') own.handle().replaceTools(other)
      if (how === 'replaceAll') (adopting = a.Server.builder('outer').build()).handle().replaceAll(other)
      const result = await adopting.call('SetVibe', { vibe: 'b' })
      expect(result.content[0]).toEqual({ type: 'text', text: JSON.stringify({ previousVibe: 'x', vibe: 'b' }) })
    })
  }
})

import { it } from 'vitest'
import { buildProto } from '../../src/codegen/build-proto.ts'
it('dbg', () => {
  const b = buildProto(process.cwd() + '/playground/vibe.proto')
  console.log(b.tools.filter((t) => t.cuts).map((t) => [t.name, JSON.stringify(t.cuts)]), Object.keys(b.types?.answers ?? {}).length)
})

import { it } from 'vitest'
import { buildCorpusProto } from '../corpus/corpus.ts'
it('dbg', () => {
  const s = buildCorpusProto('google/firestore/v1/firestore.proto')
  const t = s.built.tools.find((t) => t.name === 'RunQuery')!
  console.log(JSON.stringify((t.inputSchema as any).properties.structuredQuery.properties.where, null, 1).slice(0, 1500))
  console.log(s.built.types!.answers['google.firestore.v1.StructuredQuery.CompositeFilter']?.slice(0, 1500))
  console.log(s.built.types!.answers['google.firestore.v1.StructuredQuery.Filter']?.slice(0, 1500))
})

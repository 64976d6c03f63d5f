import { it } from 'vitest'
import { join } from 'node:path'
import { loadProto } from '../../src/proto/index.ts'
import { GOOGLE_PROTOS } from '../corpus/corpus.ts'
it('probe', () => {
  const m = loadProto(join(GOOGLE_PROTOS, 'google/pubsub/v1/pubsub.proto'), { importPaths: [GOOGLE_PROTOS] })
  console.log(JSON.stringify(m.messages.get('google.pubsub.v1.Topic')?.customOptions), JSON.stringify(m.messages.get('google.pubsub.v1.GetTopicRequest')?.fields.map(f=>[f.name, f.customOptions])))
  console.log(m.services.map(s=>s.name+':'+s.methods.map(x=>x.name).join(',')).join(' | '))
})

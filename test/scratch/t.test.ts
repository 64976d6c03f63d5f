import { loadProto } from '../../src/proto/load-proto.ts'
import { it } from 'vitest'
it('x', () => {
  for (const f of ['/tmp/dup.proto', '/tmp/dupname.proto', '/tmp/nosvc.proto', '/tmp/empty.proto']) {
    try {
      const m = loadProto(f)
      console.log(f, 'OK services', (m as any).services?.length)
    } catch (e: any) {
      console.log(f, e.code, e.line, e.column, e.message)
    }
  }
})

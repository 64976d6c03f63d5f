import { it } from 'vitest'
import { join } from 'node:path'
import { writeProtos } from '../proto/compile.ts'
import { buildProto } from '../../src/codegen/build-proto.ts'
import { toolTokens } from '../../src/schema/tokens.ts'
it('dbg', () => {
  const dir = writeProtos({ 'deep.proto': 'syntax = "proto3";\npackage deep.v1;\n// A leaf.\nmessage Leaf { string name = 1; int64 count = 2; string color = 3; string shape = 4; string owner = 5; bool hidden = 6; }\nmessage Mid { Leaf leaf = 1; repeated Leaf leaves = 2; }\nmessage Req { Mid mid = 1; string id = 2; }\nservice S { rpc GetThing(Req) returns (Req); }\n' })
  const b = buildProto(join(dir, 'deep.proto'), { toolTokenBudget: 100 })
  console.log(JSON.stringify(b.tools[0]!.inputSchema), toolTokens(b.tools[0]!), b.warnings)
})

/**
 * `edition = "2023"` / `"2024"` files (mapping.md §5): they load, comments
 * attach (also after 2024's `export`/`local`), `LEGACY_REQUIRED` fields are
 * required inputs, and syntax errors still point at file:line.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { writeProtos } from './compile.ts'

const load = (text: string) => {
  const dir = writeProtos({ 'ed.proto': text })
  return { file: join(dir, 'ed.proto'), model: () => loadProto(join(dir, 'ed.proto')) }
}

describe('edition 2023', () => {
  const { model } = load(`edition = "2023";
package ed;
option features.field_presence = EXPLICIT;

// A request.
message Req {
  // Who asks.
  string name = 1 [features.field_presence = LEGACY_REQUIRED];
  int32 count = 2 [features.field_presence = IMPLICIT];
  Req child = 3 [features.message_encoding = DELIMITED];
  // A closed enum.
  enum Kind {
    option features.enum_type = CLOSED;
    KIND_A = 0;
    KIND_B = 1;
  }
  Kind kind = 4;
}

service Ed {
  // Ask something.
  rpc Ask(Req) returns (Req);
}
`)

  it('loads with comments attached and LEGACY_REQUIRED fields required', () => {
    const { tools } = buildTools(model(), { profile: 'full' })
    expect(tools.map((t) => [t.name, t.description])).toEqual([['Ask', 'Ask something.']])
    const input = tools[0]!.inputSchema as Record<string, any>
    expect(input.description).toBe('A request.')
    expect(input.required).toEqual(['name'])
    expect(input.properties.name).toEqual({ type: 'string', description: 'Who asks.' })
    expect(input.properties.count).toEqual({ type: 'integer' })
    expect(input.properties.kind).toEqual({ type: 'string', enum: ['KIND_A', 'KIND_B'], description: 'A closed enum.' })
    expect(input.properties.child).toEqual({ $ref: '#/$defs/ed.Req' })
    expect(model().messages.get('ed.Req')!.fields[0]).toMatchObject({ legacyRequired: true, loc: { line: 8, column: 3 } })
  })

  it('the topeka profile requires nothing', () => {
    expect(buildTools(model(), { profile: 'topeka' }).tools[0]!.inputSchema).not.toHaveProperty('required')
  })
})

describe('edition 2024', () => {
  const { model } = load(`edition = "2024";
package ed;

// An exported message.
export message Out {
  // A local nested message.
  local message Part { int32 x = 1; }
  Part part = 1;
  Color color = 2;
}

// A local enum.
local enum Color {
  COLOR_UNSPECIFIED = 0;
}

service Ed {
  rpc Get(Out) returns (Out);
}
`)

  it('loads export/local declarations with their comments and locations', () => {
    const m = model()
    expect(m.messages.get('ed.Out')).toMatchObject({ comment: ' An exported message.\n', loc: { line: 5, column: 1 } })
    expect(m.messages.get('ed.Out.Part')).toMatchObject({ comment: ' A local nested message.\n', loc: { line: 7, column: 3 } })
    expect(m.enums.get('ed.Color')).toMatchObject({ comment: ' A local enum.\n', loc: { line: 13, column: 1 } })
    const input = buildTools(m, { profile: 'full' }).tools[0]!.inputSchema as Record<string, any>
    expect(input.properties.part.description).toBe('A local nested message.')
    expect(input.properties.color.description).toBe('A local enum.')
  })

  it('a syntax error in an editions file points at its file and line', () => {
    const { file, model: bad } = load('edition = "2024";\npackage ed;\nmessage M {\n  string a = ;\n}\n')
    expect(bad).toThrow(expect.objectContaining({ code: 'PROTO_SYNTAX', file, line: 4 }))
  })
})

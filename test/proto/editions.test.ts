/**
 * `edition = "2023"` / `"2024"` files (docs/mapping.md, "Extensions"): they load, comments
 * attach (also after 2024's `export`/`local`), `LEGACY_REQUIRED` fields are
 * required inputs, syntax errors still point at file:line, and `reserved`
 * with bare names loses nothing after it.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { scanDeclarations } from '../../src/proto/scan-declarations.ts'
import { toModel } from '../../src/proto/to-model.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

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

describe('editions `reserved` with bare names (regression: every service after it was lost)', () => {
  const file = fileURLToPath(new URL('../../fixtures/protos/editions/reserved-names.proto', import.meta.url))

  it('loads every service declared after the reserved names, with its comments and locations', () => {
    const m = loadProto(file)
    expect(m.services.map((s) => [s.fullName, s.methods.map((r) => r.name)])).toEqual([
      ['editions.v1.NoteService', ['SaveNote', 'GetNote']],
      ['editions.v1.NoteAdmin', ['DropNote']],
    ])
    expect(m.services[0]).toMatchObject({ comment: ' Keeps notes.\n', loc: { file, line: 28, column: 1 } })
    const { tools } = buildTools(m)
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['SaveNote', 'Saves a note and gives it back.'],
      ['GetNote', 'Get Note'],
      ['DropNote', 'Drop Note'],
    ])
  })

  it('records the reserved names (and ranges) in the runtime descriptor', () => {
    const root = protobuf.Root.fromJSON(loadProto(file).descriptor)
    const note = root.lookupType('editions.v1.Note')
    expect(note.reserved).toEqual(['foo', 'bar', [4, 6]])
    expect(root.lookupType('editions.v1.Note.Tag').reserved).toEqual(['legacy_tag'])
    expect(root.lookupEnum('editions.v1.Mood').reserved).toEqual(['MOOD_OLD', 'MOOD_OLDER'])
    expect(root.lookupType('editions.v1.NoteRef').reserved).toEqual(['old_id'])
  })

  it("a later import keeps its own file name: only the importing file's services become tools", () => {
    const dir = writeProtos({
      'lib.proto': 'edition = "2023";\npackage lib;\nmessage M { reserved gone; string s = 1; }\nservice Lib { rpc L(M) returns (M); }\n',
      'main.proto':
        'edition = "2023";\npackage app;\nimport "lib.proto";\nmessage Q { reserved old; }\nservice App { rpc A(lib.M) returns (Q); }\n',
    })
    const m = loadProto(join(dir, 'main.proto'))
    expect(m.services.map((s) => s.fullName)).toEqual(['app.App'])
    expect(loadProto(join(dir, 'lib.proto')).services.map((s) => s.fullName)).toEqual(['lib.Lib'])
  })

  it('a syntax error after the reserved names still names its file', () => {
    const { file: bad, model: broken } = load('edition = "2023";\npackage ed;\nmessage M {\n  reserved foo;\n  string a = ;\n}\n')
    expect(broken).toThrow(expect.objectContaining({ code: 'PROTO_SYNTAX', file: bad, line: 5 }))
    expect(broken).toThrow(`cannot parse "${bad}": illegal id at column 14 (line 5)`)
  })

  it('a service reflection leaves out of the file fails the build instead of giving fewer tools', () => {
    // What the quirk did: the declarations after it carried no file name.
    const text = 'edition = "2023";\npackage ed;\nmessage M { string s = 1; }\nservice Gone { rpc G(M) returns (M); }\n'
    const dir = writeProtos({ 'lost.proto': text })
    const path = join(dir, 'lost.proto')
    const root = new protobuf.Root()
    protobuf.parse(text, root, { keepCase: true })
    root.resolveAll()
    const sources = { scanned: new Map([[path, scanDeclarations(text)]]), bundledFiles: new Set<string>(), order: [path] }
    expect(() => toModel(root, path, sources)).toThrow(expect.objectContaining({ code: 'PROTO_SYNTAX', file: path, line: 4, column: 1 }))
  })
})

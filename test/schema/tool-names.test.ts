/**
 * Tool names and metadata (docs/mapping.md, "Tool names", "Extensions"): the `toolNames` option, name
 * clashes, the 64-character rule, `(proto_mcp.tool)` options, hidden RPCs
 * and server-streaming tools.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTools } from '../../src/schema/build-tools.ts'
import type { BuildToolsOptions } from '../../src/schema/build-tools.ts'
import { goCamelCase, TOOL_NAME_RE } from '../../src/schema/tool-name.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { compile, writeProtos } from '../helpers/inline-proto.ts'

const TWO_SERVICES = `package acme.v1;
message Q {}
service Users { rpc Get(Q) returns (Q); rpc List(Q) returns (Q); }
service Groups { rpc Get(Q) returns (Q); }`

const namesOf = (source: string, options: BuildToolsOptions = {}): string[] => buildTools(compile(source), options).tools.map((t) => t.name)

describe('toolNames', () => {
  it("'method' (the default): the RPC name; the last of two clashing RPCs wins, with a warning", () => {
    const { tools, warnings } = buildTools(compile(TWO_SERVICES))
    expect(tools.map((t) => `${t.name}=${t.service}`)).toEqual(['List=acme.v1.Users', 'Get=acme.v1.Groups'])
    expect(warnings).toEqual([
      {
        code: 'TOOL_NAME_CLASH',
        message:
          'tool "Get" is declared by both acme.v1.Users and acme.v1.Groups; the one of acme.v1.Groups wins' +
          " (set the toolNames option to 'service' or 'qualified' to keep every RPC)",
        fix: "set the toolNames option to 'service' or 'qualified' to keep every RPC",
      },
    ])
  })

  it('more than five clashes are one warning with their count, in the place of the first (Compute loses 814 RPCs so)', () => {
    const services = ['A', 'B', 'C'].map(
      (s) => `service ${s} { ${['Get', 'List', 'Put', 'Drop'].map((m) => `rpc ${m}(Q) returns (Q);`).join(' ')} }`,
    )
    const source = `syntax = "proto3";\npackage many.v1;\nmessage Q {}\n${services.join('\n')}\nservice D { rpc Get(Q) returns (Q); }`
    const built = buildTools(compile(source))
    expect(built.tools.map((t) => `${t.name}=${t.service}`)).toEqual(['List=many.v1.C', 'Put=many.v1.C', 'Drop=many.v1.C', 'Get=many.v1.D'])
    expect(built.warnings).toEqual([
      {
        code: 'TOOL_NAME_CLASH',
        message:
          '9 RPCs get no tool: each shares its tool name with an RPC of another service declared after it ' +
          '(4 names: "Get", "List", "Put", "Drop"); the later RPC\'s tool wins each name' +
          " (set the toolNames option to 'service' or 'qualified' to keep every RPC)",
        fix: "set the toolNames option to 'service' or 'qualified' to keep every RPC",
      },
    ])
    // Five are said one by one, as before.
    const few = `syntax = "proto3";\npackage few.v1;\nmessage Q {}\n${services.slice(0, 2).join('\n')}\nservice E { rpc Get(Q) returns (Q); }`
    const five = buildTools(compile(few)).warnings
    expect(five.map((w) => /^tool "(\w+)" is declared by both/.exec(w.message)?.[1])).toEqual(['Get', 'List', 'Put', 'Drop', 'Get'])
  })

  it("'service' and 'qualified' keep both", () => {
    expect(namesOf(TWO_SERVICES, { toolNames: 'service' })).toEqual(['Users_Get', 'Users_List', 'Groups_Get'])
    expect(namesOf(TWO_SERVICES, { toolNames: 'qualified' })).toEqual(['acme_v1_Users_Get', 'acme_v1_Users_List', 'acme_v1_Groups_Get'])
    expect(buildTools(compile(TWO_SERVICES), { toolNames: 'service' }).warnings).toEqual([])
  })

  it('a function receives service, method, package and full name', () => {
    const seen: unknown[] = []
    const names = namesOf(TWO_SERVICES, {
      toolNames: (rpc) => {
        seen.push(rpc)
        return `${rpc.method.toLowerCase()}_${rpc.service.toLowerCase()}`
      },
    })
    expect(names).toEqual(['get_users', 'list_users', 'get_groups'])
    expect(seen[0]).toEqual({ service: 'Users', method: 'Get', package: 'acme.v1', fullName: 'acme.v1.Users.Get' })
  })

  it("'qualified' without a package is Service_Method", () => {
    const dir = writeProtos({ 'bare.proto': 'syntax = "proto3";\nmessage Q {}\nservice S { rpc R(Q) returns (Q); }' })
    expect(buildTools(loadProto(join(dir, 'bare.proto')), { toolNames: 'qualified' }).tools.map((t) => t.name)).toEqual(['S_R'])
  })
})

describe('the 64-character rule', () => {
  /** The spec's shortening, computed independently: 10 base-36 digits of SHA-256, `_`, the last 53 characters. */
  function expected(name: string): string {
    const digest = createHash('sha256').update(name).digest('hex')
    const prefix = BigInt(`0x${digest.slice(0, 16)}`)
      .toString(36)
      .padStart(13, '0')
      .slice(0, 10)
    return `${prefix}_${name.slice(-53).replace(/[^A-Za-z0-9_-]/g, '_')}`
  }

  it('shortens a long qualified name to 64 characters and says so', () => {
    const pkg = 'com.example.very.long.organisation.name.platform.services.v1'
    const { tools, warnings } = buildTools(
      compile(`package ${pkg};
message Q {}
service InventoryManagementService { rpc ReconcileWarehouseStock(Q) returns (Q); }`),
      { toolNames: 'qualified', profile: 'full', toolNameBudget: false },
    )
    const long = `${pkg.replace(/\./g, '_')}_InventoryManagementService_ReconcileWarehouseStock`
    expect(long.length).toBeGreaterThan(64)
    const name = expected(long)
    expect(name).toHaveLength(64)
    expect(name).toMatch(TOOL_NAME_RE)
    expect(tools.map((t) => t.name)).toEqual([name])
    expect(warnings).toEqual([
      {
        code: 'TOOL_NAME_SHORTENED',
        message: `tool name "${long}" of ${pkg}.InventoryManagementService.ReconcileWarehouseStock breaks ^[A-Za-z0-9_-]{1,64}$; shortened to "${name}"`,
      },
    ])
  })

  it('a name with characters clients reject is rewritten the same way', () => {
    const names = namesOf('message Q {}\nservice S { rpc R(Q) returns (Q); }', { toolNames: (rpc) => `${rpc.service}.${rpc.method}` })
    expect(names).toEqual([expected('S.R')])
    expect(names[0]).toMatch(/^[0-9a-z]{10}_S_R$/)
  })
})

describe('portable names: letters, digits and _ only, and a budget for server + tool', () => {
  it('a name with "-" (Cursor refuses it) is shortened in portable, kept in full', () => {
    const source = 'message Q {}\nservice S { rpc R(Q) returns (Q); }'
    const toolNames = (rpc: { method: string }) => `get-${rpc.method}`
    const [portable] = namesOf(source, { toolNames })
    expect(portable).toMatch(/^[0-9a-z]{10}_get_R$/)
    expect(namesOf(source, { toolNames, profile: 'full' })).toEqual(['get-R'])
  })

  it('warns when server + tool exceed the budget, and shortens to fit with shortenToolNames', () => {
    const source = 'message Q {}\nservice S { rpc ReconcileWarehouseStockAcrossEveryRegionNow(Q) returns (Q); }'
    const { tools, warnings } = buildTools(compile(source), { serverName: 'inventory-service' })
    expect(tools[0]!.name).toBe('ReconcileWarehouseStockAcrossEveryRegionNow')
    expect(warnings).toEqual([
      {
        code: 'TOOL_NAME_BUDGET',
        message:
          'server "inventory-service" + tool "ReconcileWarehouseStockAcrossEveryRegionNow" is 60 characters, ' +
          'over the name budget of 57: Claude Code and Cursor will not offer the tool (set shortenToolNames, a shorter toolNames, or (proto_mcp.tool).name)',
        fix: 'set shortenToolNames, a shorter toolNames, or (proto_mcp.tool).name',
      },
    ])
    const short = buildTools(compile(source), { serverName: 'inventory-service', shortenToolNames: true })
    expect(short.tools[0]!.name).toHaveLength(57 - 'inventory-service'.length)
    expect(short.tools[0]!.name).toMatch(/^[0-9a-z]{10}_[A-Za-z0-9_]+Now$/)
    expect(short.warnings).toHaveLength(1)
    expect(buildTools(compile(source), { serverName: 'inventory-service', toolNameBudget: 60 }).warnings).toEqual([])
  })
})

describe('(proto_mcp.tool) method options', () => {
  const source = `import "proto_mcp/options.proto";
message Q {}
service S {
  rpc Read(Q) returns (Q) {
    option (proto_mcp.tool) = { title: "Read things", read_only_hint: true, open_world_hint: false };
  }
  rpc Wipe(Q) returns (Q) {
    option (proto_mcp.tool).destructive_hint = true;
    option (proto_mcp.tool).idempotent_hint = true;
  }
  rpc Rename(Q) returns (Q) { option (proto_mcp.tool).name = "rename_thing"; }
  rpc Internal(Q) returns (Q) { option (proto_mcp.tool).hidden = true; }
  rpc Lookup(Q) returns (Q) { option idempotency_level = NO_SIDE_EFFECTS; }
}`

  it('title, the four hints, a custom name and hidden', () => {
    const { tools } = buildTools(compile(source))
    expect(tools.map(({ name, title, annotations }) => ({ name, title, annotations }))).toEqual([
      { name: 'Read', title: 'Read things', annotations: { readOnlyHint: true, openWorldHint: false } },
      { name: 'Wipe', title: undefined, annotations: { destructiveHint: true, idempotentHint: true } },
      { name: 'rename_thing', title: undefined, annotations: undefined },
      { name: 'Lookup', title: undefined, annotations: { readOnlyHint: true, idempotentHint: true } },
    ])
  })

  it('the topeka profile ignores them', () => {
    const { tools } = buildTools(compile(source), { profile: 'topeka' })
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Wipe', 'Rename', 'Internal', 'Lookup'])
    expect(tools.filter((t) => t.title !== undefined || t.annotations !== undefined)).toEqual([])
  })

  it('a custom name wins over toolNames', () => {
    expect(namesOf(source, { toolNames: 'service' })).toEqual(['S_Read', 'S_Wipe', 'rename_thing', 'S_Lookup'])
  })
})

describe('server-streaming RPCs', () => {
  const source = `// A node.
message Node { string id = 1; repeated Node children = 2; }
message Q { int64 n = 1; }
service S {
  // Streams the nodes.
  rpc Watch(Q) returns (stream Node);
  rpc Up(stream Q) returns (Q);
  rpc Both(stream Q) returns (stream Q);
}`

  it('become tools collecting the stream, with $defs at the root', () => {
    const { tools } = buildTools(compile(source), { profile: 'full' })
    expect(tools).toHaveLength(1)
    const node = {
      type: 'object',
      additionalProperties: false,
      description: 'A node.',
      properties: { id: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/t.Node' } } },
    }
    expect(tools[0]).toEqual({
      name: 'Watch',
      description: 'Streams the nodes.',
      serverStreaming: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { n: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] } },
      },
      outputSchema: {
        type: 'object',
        properties: { messages: { type: 'array', items: node } },
        required: ['messages'],
        $defs: { 't.Node': node },
      },
      service: 't.S',
      method: 'Watch',
      requestType: 't.Q',
      responseType: 't.Node',
    })
  })

  it('stay without a tool in the topeka profile; client-streaming and bidi never get one', () => {
    expect(buildTools(compile(source), { profile: 'topeka' }).tools).toEqual([])
  })
})

describe("topeka profile: the Go generator names a tool by protogen's Go name of the RPC", () => {
  const SNAKE = `message Q {}
service Health {
  rpc monitorHealth(Q) returns (Q);
  rpc get_vibe(Q) returns (Q);
  // Checks it.
  rpc check_v2_status(Q) returns (Q);
  rpc SetVibe(Q) returns (Q);
}`
  const tools = (options: BuildToolsOptions) => buildTools(compile(SNAKE), options).tools.map((t) => [t.name, t.description, t.method])

  it('names and fallback descriptions from the Go name; the method stays as written', () => {
    expect(tools({ profile: 'topeka' })).toEqual([
      ['MonitorHealth', 'Monitor Health', 'monitorHealth'],
      ['GetVibe', 'Get Vibe', 'get_vibe'],
      ['CheckV2Status', 'Checks it.', 'check_v2_status'],
      ['SetVibe', 'Set Vibe', 'SetVibe'],
    ])
  })

  it('every other profile keeps the RPC name as written', () => {
    for (const profile of ['full', 'portable', 'strict'] as const) {
      expect(tools({ profile })).toEqual([
        ['monitorHealth', 'monitor Health', 'monitorHealth'],
        ['get_vibe', 'get_vibe', 'get_vibe'],
        ['check_v2_status', 'Checks it.', 'check_v2_status'],
        ['SetVibe', 'Set Vibe', 'SetVibe'],
      ])
    }
  })

  it("'service' and 'qualified' use the Go name too; a function receives the RPC as written", () => {
    expect(namesOf(SNAKE, { profile: 'topeka', toolNames: 'service' })).toEqual([
      'Health_MonitorHealth',
      'Health_GetVibe',
      'Health_CheckV2Status',
      'Health_SetVibe',
    ])
    expect(namesOf(SNAKE, { profile: 'topeka', toolNames: 'qualified' })[1]).toBe('t_Health_GetVibe')
    expect(namesOf(SNAKE, { profile: 'topeka', toolNames: (rpc) => `${rpc.method}!` })[1]).toBe('get_vibe!')
  })

  it('two RPCs with one Go name clash as two with one name do: the last wins, with a warning', () => {
    const { tools: built, warnings } = buildTools(
      compile(`message Q {}
service A { rpc get_vibe(Q) returns (Q); }
service B { rpc GetVibe(Q) returns (Q); }`),
      { profile: 'topeka' },
    )
    expect(built.map((t) => `${t.name}=${t.service}.${t.method}`)).toEqual(['GetVibe=t.B.GetVibe'])
    expect(warnings).toEqual([
      {
        code: 'TOOL_NAME_CLASH',
        message:
          'tool "GetVibe" is declared by both t.A and t.B; the one of t.B wins' +
          " (set the toolNames option to 'service' or 'qualified' to keep every RPC)",
        fix: "set the toolNames option to 'service' or 'qualified' to keep every RPC",
      },
    ])
  })
})

describe("goCamelCase (protogen's GoCamelCase)", () => {
  it.each([
    ['', ''],
    ['monitorHealth', 'MonitorHealth'],
    ['get_vibe', 'GetVibe'],
    ['SetVibe', 'SetVibe'],
    ['one', 'One'],
    ['one_two', 'OneTwo'],
    ['_leading_underscore_3', 'XLeadingUnderscore_3'],
    ['Capped_Words', 'Capped_Words'],
    ['lower_Upper', 'Lower_Upper'],
    ['_', 'X'],
    ['_b_', 'XB_'],
    ['a.b', 'AB'],
    ['a.B', 'A_B'],
    ['a_b.c_d', 'ABCD'],
    ['_a._b', 'XA_XB'],
    ['ALL_CAPS_NAME', 'ALL_CAPS_NAME'],
    ['two__underscores', 'Two_Underscores'],
    ['trailing_', 'Trailing_'],
    ['lowerCamel', 'LowerCamel'],
    ['v2beta', 'V2Beta'],
    ['get2_things', 'Get2Things'],
    ['rpc_9lives', 'Rpc_9Lives'],
    ['héllo_wörld', 'HélloWörld'],
  ])('%j → %j', (name, goName) => {
    expect(goCamelCase(name)).toBe(goName)
  })
})

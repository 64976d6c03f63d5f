/**
 * `ProtoServerSpec.services`: every service of the imported file with every
 * RPC name, so `implement()` accepts RPCs that have no tool (streaming ones).
 */
import { describe, expect, it } from 'vitest'
import { emitModule } from '../../src/codegen/index.ts'
import { buildTools } from '../../src/schema/index.ts'
import { compile } from '../helpers/inline-proto.ts'

const PROTO = `
message M {}
service Zeta { rpc Up(stream M) returns (M); rpc Ping(M) returns (M); }
service Alpha {
  rpc Watch(M) returns (stream M);
  rpc Get(M) returns (M);
  rpc Chat(stream M) returns (stream M);
}
service Empty {}
`

/** The `services` literal of the emitted module, parsed. */
function servicesOf(code: string): unknown {
  const literal = /^const services = (\{.*\})$/m.exec(code)
  if (!literal) throw new Error('no services in the emitted module')
  return JSON.parse(literal[1]!)
}

describe('services in createProtoServer(spec)', () => {
  const model = compile(PROTO)
  const code = emitModule(model, buildTools(model).tools, { name: 'test' })

  it('lists every service and every RPC (streaming too) in declaration order, keys sorted', () => {
    const services = servicesOf(code)
    expect(services).toEqual({
      't.Alpha': ['Watch', 'Get', 'Chat'],
      't.Empty': [],
      't.Zeta': ['Up', 'Ping'],
    })
    expect(Object.keys(services as object)).toEqual(['t.Alpha', 't.Empty', 't.Zeta'])
  })

  it('passes them to createProtoServer', () => {
    expect(code).toMatch(/^export default createProtoServer\(\{ .*, descriptor, tools, services \}\)$/m)
  })
})

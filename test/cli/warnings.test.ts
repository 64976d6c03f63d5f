/**
 * The command says a build warning's fix with its own flags: it decides by
 * the warning's code, never by matching the text.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { cliWarning } from '../../src/cli/serve.ts'
import { buildWarning } from '../../src/proto/index.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const TWO_SERVICES =
  'syntax = "proto3";\npackage two.v1;\nmessage M {}\nservice A { rpc Ping(M) returns (M); }\nservice B { rpc Ping(M) returns (M); }\n'
const PLUGIN_FIX = "set the toolNames option to 'service' or 'qualified' to keep every RPC"

describe('cliWarning', () => {
  it('says the clash warning of a real build with --tool-names, keeping its code', () => {
    const dir = writeProtos({ 'two.proto': TWO_SERVICES })
    const [clash, ...rest] = buildServerSpec(join(dir, 'two.proto')).warnings
    expect(rest).toEqual([])
    // The build's code is the one the command keys on: renaming it fails here.
    expect(cliWarning(clash!)).toEqual({
      code: 'TOOL_NAME_CLASH',
      message:
        'tool "Ping" is declared by both two.v1.A and two.v1.B; the one of two.v1.B wins (pass --tool-names service or qualified to keep every RPC)',
      fix: 'pass --tool-names service or qualified to keep every RPC',
    })
  })

  it("keys on the code: the plugin's fix text under another code is left as it is", () => {
    const other = buildWarning('TOOL_NAME_PATTERN', 'tool "Ping" is too long', PLUGIN_FIX)
    expect(cliWarning(other)).toBe(other)
  })

  it('keys on the code: a clash worded otherwise still gets the flag', () => {
    const reworded = buildWarning('TOOL_NAME_CLASH', 'two RPCs are named "Ping"', 'use the toolNames option')
    expect(cliWarning(reworded).message).toBe('two RPCs are named "Ping" (pass --tool-names service or qualified to keep every RPC)')
  })

  it('leaves a clash with no fix (toolNames already set) as it is', () => {
    const bare = buildWarning('TOOL_NAME_CLASH', 'tool "Ping" is declared by both A and B; the one of B wins')
    expect(cliWarning(bare)).toBe(bare)
  })
})

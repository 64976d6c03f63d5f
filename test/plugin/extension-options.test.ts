/**
 * The plugin options of the schema extensions, through a real Rollup build:
 * `toolNames` names the emitted tools, `verbose` prints the notes of rules
 * the schemas leave out.
 */
import { join } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'
import { unpluginProtoMcp } from '../../src/plugin/index.ts'
import type { Options } from '../../src/entries/index.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const dir = writeProtos({
  'ext.proto': `syntax = "proto3";
package ext.v1;
import "buf/validate/validate.proto";
message Q { int32 n = 1 [(buf.validate.field).cel = { id: "even", expression: "this % 2 == 0" }]; }
service Calc { rpc Half(Q) returns (Q); }
`,
  'main.mjs': "import server from './ext.proto?mcp'\nexport default server\n",
})

async function build(options: Options): Promise<{ code: string; warnings: string[] }> {
  const warnings: string[] = []
  const bundle = await rollup({
    input: join(dir, 'main.mjs'),
    plugins: [unpluginProtoMcp.rollup(options)],
    external: (id) => id.startsWith('unplugin-proto-mcp/'),
    onwarn: (w) => {
      warnings.push(w.message)
    },
  })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  return { code: output[0].code, warnings }
}

describe('toolNames and verbose', () => {
  it('toolNames names the tools; without verbose the notes stay quiet', async () => {
    const { code, warnings } = await build({ toolNames: 'qualified' })
    expect(code).toContain('"name": "ext_v1_Calc_Half"')
    expect(warnings.filter((w) => w.includes('buf.validate'))).toEqual([])
  })

  it('verbose prints the rules left out', async () => {
    const { warnings } = await build({ verbose: true })
    expect(warnings).toContainEqual(expect.stringContaining('ext.v1.Q.n: (buf.validate.field).cel is left out of the input schema'))
  })
})

/**
 * Per-call pipeline benchmarks (validate + decode + in-process call +
 * encode, no transport) on the Topeka example: the generated module's
 * `server.call` against the hand-rolled runtime way (Ajv compiled at start-up
 * + protobufjs `ext/protojson`), @bufbuild/protobuf + Ajv, and the JSON floor.
 */
import { isDeepStrictEqual } from 'node:util'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import protojson from 'protobufjs/ext/protojson.js'
import { fromJson as esFromJson, toJson as esToJson } from '@bufbuild/protobuf'
import { CASES, EXAMPLE_PROTO, backend, bufbuildRegistry, protobufjsRoot } from './lib/example.mjs'
import { interleave, record } from './lib/measure.mjs'
import { writeModule } from './lib/module.mjs'

const textResult = (json) => ({ content: [{ type: 'text', text: JSON.stringify(json) }], isError: false, structuredContent: json })
const invalid = (errors) => ({ content: [{ type: 'text', text: `invalid arguments: ${JSON.stringify(errors)}` }], isError: true })

/** The three ways of running one tool call besides ours, built at start-up as a hand-written server would. */
function baselines(tools) {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false })
  addFormats(ajv)
  const root = protobufjsRoot()
  const registry = bufbuildRegistry()
  const make = (which) => {
    const tool = tools.find((t) => t.name === CASES[which].tool)
    const validate = ajv.compile(tool.inputSchema)
    const handler = backend[tool.name]
    const Req = root.lookupType(CASES[which].request)
    const Res = root.lookupType(CASES[which].response)
    const EsReq = registry.getMessage(CASES[which].request)
    const EsRes = registry.getMessage(CASES[which].response)
    return {
      runtime: async (args) => {
        if (!validate(args)) return invalid(validate.errors)
        const request = protojson.toJson(Req, protojson.fromJson(Req, args))
        const response = await handler(request)
        return textResult(protojson.toJson(Res, protojson.fromJson(Res, response)))
      },
      protobufEs: async (args) => {
        if (!validate(args)) return invalid(validate.errors)
        const request = esToJson(EsReq, esFromJson(EsReq, args))
        const response = await handler(request)
        return textResult(esToJson(EsRes, esFromJson(EsRes, response)))
      },
      floor: async (args) => {
        const request = JSON.parse(JSON.stringify(args))
        const response = await handler(request)
        return { content: [{ type: 'text', text: JSON.stringify(response) }], isError: false, structuredContent: response }
      },
    }
  }
  return { small: make('small'), medium: make('medium'), large: make('large') }
}

const batchOf = (call, args, ops) => async () => {
  for (let i = 0; i < ops; i++) await call(args)
}

/** Loads the generated example module from dist's plugin, bound to the shared backend. */
async function loadOurs() {
  const file = await writeModule(EXAMPLE_PROTO, 'example')
  const mod = await import(file)
  const server = mod.default
  server.implement('VibeService', backend)
  return { server, tools: mod.tools }
}

/** Every side must answer the same before any of them is timed. */
async function checkSame(label, a, b) {
  if (!isDeepStrictEqual(JSON.parse(a.content[0].text), JSON.parse(b.content[0].text)) || a.isError || b.isError) {
    throw new Error(`${label}: results differ: ${a.content[0].text.slice(0, 200)} vs ${b.content[0].text.slice(0, 200)}`)
  }
}

const SIZES = {
  small: { ops: 4000, rounds: 15 },
  medium: { ops: 2000, rounds: 15 },
  large: { ops: 2, rounds: 9 },
}

export default {
  name: 'pipeline',
  ids: ['pipeline-small', 'pipeline-medium', 'pipeline-large', 'pipeline-medium-protobuf-es', 'pipeline-medium-floor'],
  async run() {
    const { server, tools } = await loadOurs()
    const other = baselines(tools)
    const ours = (which) => (args) => server.call(CASES[which].tool, args)
    const results = []
    for (const which of ['small', 'medium', 'large']) {
      const { ops, rounds } = SIZES[which]
      const args = CASES[which].args
      await checkSame(`pipeline-${which}`, await ours(which)(args), await other[which].runtime(args))
      const samples = await interleave({
        ours: batchOf(ours(which), args, ops),
        baseline: batchOf(other[which].runtime, args, ops),
        ops,
        rounds,
      })
      results.push(
        record({
          id: `pipeline-${which}`,
          samples,
          unit: 'µs/call',
          higherIsBetter: true,
          target: which === 'medium' ? 2.5 : null,
          note: 'throughput vs Ajv (compiled at start-up) + protobufjs ext/protojson per call',
        }),
      )
    }
    const { ops, rounds } = SIZES.medium
    const args = CASES.medium.args
    await checkSame('pipeline-medium-protobuf-es', await ours('medium')(args), await other.medium.protobufEs(args))
    results.push(
      record({
        id: 'pipeline-medium-protobuf-es',
        samples: await interleave({
          ours: batchOf(ours('medium'), args, ops),
          baseline: batchOf(other.medium.protobufEs, args, ops),
          ops,
          rounds,
        }),
        unit: 'µs/call',
        higherIsBetter: true,
        target: null,
        note: 'throughput vs Ajv + @bufbuild/protobuf fromJson/toJson (descriptor built at run time)',
      }),
    )
    await checkSame('pipeline-medium-floor', await ours('medium')(args), await other.medium.floor(args))
    results.push(
      record({
        id: 'pipeline-medium-floor',
        samples: await interleave({
          ours: batchOf(ours('medium'), args, ops),
          baseline: batchOf(other.medium.floor, args, ops),
          ops,
          rounds,
        }),
        unit: 'µs/call',
        higherIsBetter: false,
        target: 2,
        note: 'time vs JSON.parse(JSON.stringify(args)) + JSON.stringify(response)',
      }),
    )
    return results
  },
}

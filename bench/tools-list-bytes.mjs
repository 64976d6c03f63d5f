/**
 * Tool-list size: the bytes of `tools/list` (as JSON) of the playground and
 * of the 500-RPC proto in `portable` and `strict`, against `full` built in
 * the same run. Every schema byte is spent from the user's context window,
 * so `portable` must say no more than the exact schema does. Sizes are
 * deterministic: one sample each.
 */
import { pathToFileURL } from 'node:url'
import { BENCH_500_PROTO, writeBench500 } from './gen-500.mjs'
import { record } from './lib/measure.mjs'
import { REPO, writeModule } from './lib/module.mjs'

const PLAYGROUND = `${REPO}playground/vibe.proto`

/** The JSON size of `tools/list` of the module built from `proto` in `profile`. */
async function listBytes(proto, name, profile) {
  const file = await writeModule(proto, `tools-list-${name}-${profile}`, { profile })
  const { default: server } = await import(`${pathToFileURL(file).href}?${profile}`)
  return Buffer.byteLength(JSON.stringify({ tools: server.listTools() }))
}

export default {
  name: 'tools-list-bytes',
  ids: ['tools-list-bytes-playground', 'tools-list-bytes-500', 'tools-list-bytes-playground-strict', 'tools-list-bytes-500-strict'],
  async run() {
    writeBench500()
    const out = []
    for (const [name, proto] of [
      ['playground', PLAYGROUND],
      ['500', BENCH_500_PROTO],
    ]) {
      const full = await listBytes(proto, name, 'full')
      for (const profile of ['portable', 'strict']) {
        const ours = await listBytes(proto, name, profile)
        out.push(
          record({
            id: `tools-list-bytes-${name}${profile === 'strict' ? '-strict' : ''}`,
            samples: { ours: [ours], baseline: [full] },
            unit: 'bytes',
            higherIsBetter: false,
            target: profile === 'portable' ? 1 : null,
            note: `tools/list of the ${name === '500' ? '500-RPC proto' : 'playground'} in ${profile} vs full`,
          }),
        )
      }
    }
    return out
  },
}

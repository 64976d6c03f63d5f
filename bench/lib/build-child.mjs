/**
 * One build in a fresh process (caches cold, as a first build is): the
 * plugin's `load` of `argv[2]` with the options JSON `argv[3]`, printing
 * the milliseconds it took and the module's length as JSON on stdout.
 */
import { transformProto } from './module.mjs'

const [proto, options] = process.argv.slice(2)
// The plugin's chunks loaded before the clock starts: the build is timed, not the module loading.
await import('./module.mjs')
const start = process.hrtime.bigint()
const code = await transformProto(proto, JSON.parse(options ?? '{}'))
const ms = Number(process.hrtime.bigint() - start) / 1e6
process.stdout.write(`${JSON.stringify({ ms, bytes: code.length })}\n`)

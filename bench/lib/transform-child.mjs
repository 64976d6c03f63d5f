// Build child, our side: the plugin's transform (its `load` hook from dist/) of one .proto, written to a file.
import { writeFileSync } from 'node:fs'
import { transformProto } from './module.mjs'

writeFileSync(process.argv[3], await transformProto(process.argv[2]))

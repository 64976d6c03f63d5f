/**
 * The runtime codec (src/runtime/protojson.ts) against @bufbuild/protobuf:
 * random messages both ways, alternate spellings, edge cases. The known
 * deviations are listed in docs/guide/protobuf-json.md and pinned in deviations.test.ts.
 */
import { defineDifferentialSuite } from './differential-suite.ts'
import { DEVIATIONS } from './edge-cases.ts'
import { runtimeCodec } from './harness.ts'

defineDifferentialSuite('src/runtime/protojson.ts', runtimeCodec, { known: Object.values(DEVIATIONS) })

import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { LongestFirst } from './test/helpers/sequencer.ts'

/**
 * Three tiers (docs/developing.md, "Test tiers"); `npm test` runs them all,
 * `npm run test:unit` the first alone.
 * - unit: the build-time stages and the codec, in process, on worker threads
 *   sharing their module graph; no build, no process, no network.
 * - server: the `Server` on its transports, in process, on loopback.
 * - system: real components, on the package build (dist/, built once per run by
 *   the global setup test/helpers/setup-build.ts): bundlers, Vite's dev server,
 *   the command, the cluster on the run's one Postgres (test/helpers/setup-postgres.ts),
 *   the conformance suite, other runtimes, the packed tarball, Chromium, reliability.
 */

/** The test files that need the package build, though their folder is a unit one. */
const UNIT_FOLDERS_ON_THE_BUILD = ['test/proto/nesting.test.ts', 'test/proto/paths.test.ts', 'test/runtime/lean-start.test.ts']

/**
 * Schema-stage files that build all of Google's corpus (test/corpus), in
 * several profiles: the corpus's checks, a minute and more of CPU, run
 * beside test/corpus, not in the unit tier's fast loop.
 */
const CORPUS_SCALE = ['test/schema/output-digest.test.ts', 'test/schema/token-counts.test.ts']

const UNIT = [
  // test/tiers.test.ts among them: each file in one project, none building the package.
  'test/*.test.ts',
  'test/helpers/**/*.test.ts',
  'test/{proto,schema,codegen,runtime,plugin,protojson,bench}/**/*.test.ts',
]
const SERVER = ['test/server/**/*.test.ts', 'test/{grpc,reflection,gateway}/**/*.test.ts']
const SYSTEM = [
  'test/{bundlers,dev,cli,cluster,conformance,contract,corpus,descriptors,package,playground,portability,reliability,suite,types}/**/*.test.ts',
  ...UNIT_FOLDERS_ON_THE_BUILD,
  ...CORPUS_SCALE,
]

/**
 * System files that share their worker processes (the `system-shared` project,
 * `isolate: false`): they run the built command, dist/, tsc, Vite's dev server,
 * Chromium, the conformance suite, other runtimes and the packed tarball, in
 * child processes or in the test's own, close what they start, and leave no
 * global that another file reads. A worker imports vitest, the SDK, Vite and
 * Playwright once for many files instead of once per file: about a fifth of
 * these files' CPU. The rest of the system tier runs a file per process:
 * bundlers loading the plugin (bundlers/), the fleet on Postgres (cluster/),
 * and reliability/, whose memory readings must not hold another file's garbage.
 */
const SYSTEM_SHARED = [
  'test/{cli,contract,corpus,descriptors,types,dev,conformance,portability,suite,playground,package}/**/*.test.ts',
  ...UNIT_FOLDERS_ON_THE_BUILD,
  ...CORPUS_SCALE,
]

/**
 * What a `?mcp` module a unit test generates and loads imports
 * (test/helpers/load-module.ts): the sources of those entries, as the
 * fleet's instance bundles them (test/cluster/harness.ts), not dist/.
 */
const SOURCE_ENTRIES = {
  'unplugin-proto-mcp/codegen-v1': fileURLToPath(new URL('./src/entries/codegen-v1.ts', import.meta.url)),
  'unplugin-proto-mcp/runtime': fileURLToPath(new URL('./src/entries/runtime.ts', import.meta.url)),
}

/**
 * Unit files that cannot share a worker thread: module state read from a
 * fresh load (backend-types.test.ts), a stack overflow at the main thread's
 * stack size (pipeline-failures.test.ts).
 */
const UNIT_ON_FORKS = ['test/runtime/backend-types.test.ts', 'test/runtime/pipeline-failures.test.ts']

/**
 * Server files that cannot share a process with others: the global
 * OpenTelemetry providers they register (telemetry.test.ts), a module
 * wrapped by `vi.mock`, which holds only where the module graph loads
 * afresh (modern-tool-call.test.ts, modern-tool-call-auth.test.ts, session-tool-call.test.ts), runtime copies
 * evaluated afresh by `vi.resetModules` (two-runtime-copies.test.ts).
 */
const SERVER_ON_FORKS = [
  'test/server/telemetry.test.ts',
  'test/server/modern-tool-call.test.ts',
  'test/server/modern-tool-call-auth.test.ts',
  'test/server/session-tool-call.test.ts',
  'test/server/two-runtime-copies.test.ts',
]

const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
}

export default defineConfig({
  test: {
    // Most tests wait on child processes and sockets, not on the CPU: more files at once than cores.
    maxWorkers: 4,
    // Longest files first, from the times of a whole run (test/helpers/sequencer.ts): no minute-long file left to run alone at the end.
    sequence: { sequencer: LongestFirst },
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-report.json' },
    projects: [
      {
        resolve: { alias: SOURCE_ENTRIES },
        test: {
          ...shared,
          name: 'unit',
          include: UNIT,
          exclude: [...UNIT_FOLDERS_ON_THE_BUILD, ...UNIT_ON_FORKS, ...CORPUS_SCALE],
          pool: 'threads',
          isolate: false,
        },
      },
      {
        resolve: { alias: SOURCE_ENTRIES },
        test: {
          ...shared,
          name: 'unit-forks',
          include: UNIT_ON_FORKS,
          pool: 'forks',
        },
      },
      {
        test: {
          ...shared,
          name: 'server',
          include: SERVER,
          exclude: SERVER_ON_FORKS,
          // Each worker process runs many files, paying vitest's start and the imports once.
          pool: 'forks',
          isolate: false,
          globalSetup: ['test/helpers/setup-build.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'server-forks',
          include: SERVER_ON_FORKS,
          pool: 'forks',
          globalSetup: ['test/helpers/setup-build.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'system',
          include: SYSTEM,
          exclude: SYSTEM_SHARED,
          pool: 'forks',
          globalSetup: ['test/helpers/setup-build.ts', 'test/helpers/setup-postgres.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'system-shared',
          include: SYSTEM_SHARED,
          pool: 'forks',
          isolate: false,
          globalSetup: ['test/helpers/setup-build.ts', 'test/helpers/setup-packed.ts'],
        },
      },
    ],
  },
})

/**
 * A Temporal-sized synthetic service (123 RPCs, as Temporal's
 * WorkflowService has): every RPC with its own request message and a
 * comment in the style of real APIs, for the discovery tests and bench.
 */

const NOUNS: ReadonlyArray<[name: string, words: string, field: string]> = [
  ['WorkflowExecution', 'workflow execution', 'workflow_id'],
  ['Namespace', 'namespace', 'namespace_name'],
  ['Schedule', 'schedule', 'schedule_id'],
  ['ActivityTask', 'activity task', 'activity_id'],
  ['TaskQueue', 'task queue', 'task_queue'],
  ['SearchAttribute', 'search attribute', 'attribute_name'],
  ['BatchOperation', 'batch operation', 'job_id'],
  ['WorkerDeployment', 'worker deployment', 'deployment_name'],
  ['NexusEndpoint', 'Nexus endpoint', 'endpoint_id'],
  ['ArchivalPolicy', 'archival policy', 'policy_id'],
  ['ClusterMember', 'cluster member', 'member_address'],
]

const VERBS: ReadonlyArray<[name: string, sentence: (noun: string) => string]> = [
  ['Start', (n) => `Starts a new ${n} and returns its run identifier.`],
  ['Describe', (n) => `Returns the current state and configuration of one ${n}.`],
  ['List', (n) => `Lists every ${n} visible in the namespace, a page at a time.`],
  ['Update', (n) => `Changes the settings of an existing ${n} in place.`],
  ['Delete', (n) => `Permanently removes a ${n} and the history kept for it.`],
  ['Count', (n) => `Counts how many ${n} records match a visibility query.`],
  ['Pause', (n) => `Suspends a running ${n} until it is resumed.`],
  ['Resume', (n) => `Continues a ${n} that was paused earlier.`],
  ['Reset', (n) => `Rolls a ${n} back to an earlier point of its history.`],
  ['Terminate', (n) => `Stops a ${n} at once without running its cleanup.`],
  ['Signal', (n) => `Sends an external signal with a payload to a ${n}.`],
  ['Poll', (n) => `Waits for the next piece of work queued for a ${n}.`],
]

/** One synthetic RPC: its name and its comment's first sentence. */
export interface SyntheticRpc {
  name: string
  sentence: string
}

/** The RPCs in declaration order (123 of the 132 pairs). */
export const SYNTHETIC_RPCS: readonly SyntheticRpc[] = NOUNS.flatMap(([noun, words]) =>
  VERBS.map(([verb, sentence]) => ({ name: `${verb}${noun}`, sentence: sentence(words), noun })),
)
  .slice(0, 123)
  .map(({ name, sentence }) => ({ name, sentence }))

/** The `.proto` source of the synthetic service (`synthetic.v1.WorkflowService`). */
export function syntheticProto(): string {
  const messages: string[] = []
  const rpcs: string[] = []
  SYNTHETIC_RPCS.forEach(({ name, sentence }, i) => {
    const field = NOUNS.find(([noun]) => name.endsWith(noun))![2]
    messages.push(
      `message ${name}Request {\n  string namespace = 1;\n  string ${field} = 2;\n  int32 page_size = 3;\n  string reason = 4;\n  Labels labels = 5;\n}`,
      `message ${name}Response {\n  string id = 1;\n  int64 revision = 2;\n}`,
    )
    rpcs.push(
      `  // ${sentence} The call is idempotent for ${i % 2 === 0 ? 'the same request id' : 'a retry with the same identity'}.\n  rpc ${name}(${name}Request) returns (${name}Response);`,
    )
  })
  return [
    'syntax = "proto3";',
    'package synthetic.v1;',
    'message Labels { map<string, string> values = 1; }',
    ...messages,
    '// The workflow service of a Temporal-sized API.',
    'service WorkflowService {',
    ...rpcs,
    '}',
    '',
  ].join('\n')
}

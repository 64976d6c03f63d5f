/**
 * The `set_vibe` prompt of fixtures/apps/prompts/vibes.proto as `prompts/list`
 * gives it (its `text` aside): the build, the `?mcp` module and the command
 * all answer it the same (docs/guide/resources.md, Prompts).
 */
export const SET_VIBE_PROMPT = {
  name: 'set_vibe',
  description: 'Asks the model to set a vibe.',
  arguments: [
    { name: 'region', description: 'The region whose vibe changes.', required: true },
    { name: 'vibe', description: 'The new vibe. One of: CALM, LIVELY.', required: true },
    { name: 'changeReason', description: 'Why it changes (optional).' },
  ],
}

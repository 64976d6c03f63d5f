/**
 * Reading a tool result (`server.call`, a client's `callTool`, a JSON-RPC
 * reply's `result`) in tests.
 */

/**
 * The text of content block `i` (the first by default) of tool result
 * `result`; throws, naming what it got, when there is no such text block.
 */
export function text(result: unknown, i = 0): string {
  const block = (result as { content?: unknown[] } | undefined)?.content?.[i] as { text?: unknown } | undefined
  if (typeof block?.text !== 'string') throw new Error(`no text in content[${i}] of ${JSON.stringify(result)?.slice(0, 500)}`)
  return block.text
}

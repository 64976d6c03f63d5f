/**
 * A line for the operator where the runtime has nowhere else to put it:
 * stderr where there is one (Node, Bun, Deno), else the console (Workers,
 * browsers), so no runtime needs a `process` global.
 */

interface Stderr {
  write(text: string): unknown
}

/** Writes `text` (ending in a newline) to stderr, or to `console.error` where there is no stderr. */
export function writeStderr(text: string): void {
  const stderr = (globalThis as { process?: { stderr?: Stderr } }).process?.stderr
  if (stderr && typeof stderr.write === 'function') stderr.write(text)
  else console.error(text.endsWith('\n') ? text.slice(0, -1) : text)
}

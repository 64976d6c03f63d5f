/**
 * The completer type of prompts and resource templates (`completion/complete`),
 * apart from completions.ts, which reads the prompts and templates that hold them.
 */
import type { CallContext } from '../../runtime/types.ts'

/**
 * Suggests values for one argument or variable from what the user typed so
 * far (`value`); `context.arguments` holds the ones already filled in.
 */
export type Completer<State = unknown> = (
  value: string,
  context: CallContext & { state: State; arguments: Record<string, string> },
) => readonly string[] | Promise<readonly string[]>

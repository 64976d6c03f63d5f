/**
 * The `proto-mcp` command line: `--help`, `--version` and usage errors are
 * answered from the parsed arguments alone; `serve` loads the gateway
 * (serve.ts: the pipeline, the server, grpc-js) only then, so they answer
 * without paying its start.
 */
import { packageVersion } from '../proto/package-root.ts'
import { HELP, parseCli } from './args.ts'

/** Says `error` as the command's one-line error on stderr. */
function fail(prefix: string, error: unknown): void {
  process.stderr.write(`proto-mcp: ${prefix}${(error instanceof Error ? error.message : String(error)).split('\n')[0]}\n`)
}

/**
 * Runs the command line `argv` (without node and the script) and resolves
 * with the exit code: 0 done, 1 a proto or start-up failure, 2 a usage error.
 * Errors are one line on stderr.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let command
  try {
    command = parseCli(argv)
  } catch (error) {
    fail('', error)
    return 2
  }
  if (command.command === 'help') {
    process.stdout.write(HELP)
    return 0
  }
  if (command.command === 'version') {
    process.stdout.write(`${packageVersion()}\n`)
    return 0
  }
  let gateway: typeof import('./serve.ts')
  try {
    gateway = await import('./serve.ts')
  } catch (error) {
    // An install missing a part of the package: one line, as every start-up failure.
    fail('cannot load the gateway: ', error)
    return 1
  }
  return gateway.serveCommand(command)
}

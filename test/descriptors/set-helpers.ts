/**
 * Descriptor sets on disk, as users hand them to `proto-mcp serve` and the
 * `?mcp` import: built by the buf CLI (the `@bufbuild/buf` dev dependency)
 * as a buf image or a protoc-style `FileDescriptorSet`, binary or JSON.
 */
import { execFileSync } from 'node:child_process'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import type { ClientName } from '../bundlers/mcp-clients.ts'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { REPO } from '../helpers/repo.ts'
import { startCli } from '../helpers/cli.ts'

/** The forms `buf build` writes: a buf image or a plain (protoc's) set, binary or JSON. */
export type SetForm = 'image' | 'protoc' | 'image-json'

/** A fresh folder under `.tmp/` for sets. */
export function setDir(): string {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  return mkdtempSync(join(REPO, '.tmp', 'sets-'))
}

/**
 * Builds `files` (relative to the module root `root`) into `out` with
 * `buf build` (source info kept unless `sourceInfo` is false); returns `out`.
 */
export function bufSet(root: string, files: readonly string[], out: string, form: SetForm = 'image', sourceInfo = true): string {
  mkdirSync(dirname(out), { recursive: true })
  const module = stagedRoot(root, files)
  try {
    execFileSync(
      join(REPO, 'node_modules', '.bin', 'buf'),
      [
        'build',
        module,
        ...files.flatMap((f) => ['--path', join(module, f)]),
        '-o',
        out,
        ...(form === 'protoc' ? ['--as-file-descriptor-set'] : []),
        ...(sourceInfo ? [] : ['--exclude-source-info']),
      ],
      { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
    )
  } finally {
    rmSync(module, { recursive: true, force: true })
  }
  return out
}

/**
 * A fresh module root (under `.tmp/`) holding `files` of `root` and every
 * file they import, at the same paths: what buf builds from `root` for
 * them, without walking the rest of `root` (google-proto-files' 7,000 files
 * make a build of one of its APIs take a second and a half, this a fifth
 * of one). The caller removes it.
 */
function stagedRoot(root: string, files: readonly string[]): string {
  const base = isAbsolute(root) ? root : join(REPO, root)
  const staged = setDir()
  const seen = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(join(base, file), 'utf8')
    for (const [, imported] of text.matchAll(/^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"/gm)) {
      // An import not in the root is one buf has of its own (the well-known types).
      if (existsSync(join(base, imported!))) visit(imported!)
    }
  }
  files.forEach(visit)
  for (const file of seen) {
    mkdirSync(dirname(join(staged, file)), { recursive: true })
    copyFileSync(join(base, file), join(staged, file))
  }
  return staged
}

/** `proto-mcp serve <args> --http 0` and its URL; `stop` ends it and resolves with its exit code. */
export async function serveHttp(cli: string, args: string[]): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const running = await startCli(cli, ['serve', ...args, '--http', '0'])
  return {
    url: running.url,
    stop: () => {
      running.child.kill('SIGTERM')
      return running.exited
    },
  }
}

/**
 * One `proto-mcp serve <args()> --http 0` for the tests of a describe
 * block (one a client flavour: an HTTP server takes any number of
 * clients): started by the first `url()`, ended by `stop()`, which resolves
 * with its exit code (0 when it never started).
 */
export function sharedServe(cli: () => string, args: () => string[]): { url: () => Promise<string>; stop: () => Promise<number | null> } {
  let served: ReturnType<typeof serveHttp> | undefined
  return {
    url: async () => (await (served ??= serveHttp(cli(), args()))).url,
    stop: async () => (served === undefined ? 0 : (await served).stop()),
  }
}

/** A `flavour` client over Streamable HTTP at `url`: its tools/list and a call. */
export async function httpSession(flavour: ClientName, url: string) {
  const info = { name: 'set-http', version: '1.0.0' }
  if (flavour === 'sdk-v1') {
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(url)))
    return { client, version: () => undefined as string | undefined }
  }
  const client = new ClientV2(info, flavour === 'sdk-v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await client.connect(new HttpV2(new URL(url)))
  return { client, version: () => client.getNegotiatedProtocolVersion() }
}

/** A `flavour` client on `node cli serve args...` over stdio. */
export async function stdioSession(flavour: ClientName, cli: string, args: string[]) {
  const params = { command: process.execPath, args: [cli, 'serve', ...args], cwd: REPO, stderr: 'pipe' as const }
  const info = { name: 'set-stdio', version: '1.0.0' }
  if (flavour === 'sdk-v1') {
    const client = new ClientV1(info)
    await client.connect(new StdioV1(params))
    return { client, version: () => undefined as string | undefined }
  }
  const client = new ClientV2(info, flavour === 'sdk-v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await client.connect(new StdioV2(params))
  return { client, version: () => client.getNegotiatedProtocolVersion() }
}

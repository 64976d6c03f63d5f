/**
 * Protos are read only as regular files of bounded size, and imports only
 * from under the importing file's folder, the root file's folder or an
 * import path, resolved through symlinks: `/dev/zero` grew the CLI to 6 GB,
 * a FIFO hung it, absolute and climbing imports were followed, and a parse
 * error quoted the file (`cannot parse "/etc/passwd": illegal token 'root'`).
 */
import { execFileSync } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadProto, MAX_PROTO_BYTES } from '../../src/proto/load-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { builtCli, runCli } from '../helpers/cli.ts'

const HEAD = 'syntax = "proto3";\npackage p;\n'

function errorOf(run: () => unknown): Error & { code?: string } {
  try {
    run()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected it to throw')
}

describe('the files read', () => {
  let cli = ''
  beforeAll(async () => {
    cli = builtCli()
  }, 120_000)

  it('proto-mcp serve /dev/zero exits 1 at once: not a regular file', { timeout: 30_000 }, async () => {
    const run = await runCli(cli, ['serve', '/dev/zero', '--grpc', '127.0.0.1:1'])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('proto-mcp: cannot read "/dev/zero": not a regular file (a .proto must be a file)\n')
  })

  it('a FIFO is refused without blocking', { timeout: 30_000 }, async () => {
    const dir = writeProtos({})
    const fifo = join(dir, 'pipe.proto')
    execFileSync('mkfifo', [fifo])
    const run = await runCli(cli, ['serve', fifo, '--grpc', '127.0.0.1:1'])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`proto-mcp: cannot read "${fifo}": not a regular file (a .proto must be a file)\n`)
  })

  it('a file over the size limit is refused before it is read', () => {
    const dir = writeProtos({})
    const big = join(dir, 'big.proto')
    writeFileSync(big, Buffer.alloc(MAX_PROTO_BYTES + 1, 0x20))
    expect(errorOf(() => loadProto(big)).message).toBe(
      `cannot read "${big}": ${MAX_PROTO_BYTES + 1} bytes, more than the ${MAX_PROTO_BYTES} a .proto may have`,
    )
  })

  it('a parse error points at the text without quoting it', { timeout: 30_000 }, async () => {
    const dir = writeProtos({ passwd: 'root:x:0:0:root:/root:/bin/bash\nsecret-token-1234\n' })
    const error = errorOf(() => loadProto(join(dir, 'passwd')))
    expect(error.message).toBe(`cannot parse "${join(dir, 'passwd')}": illegal token at column 1 (line 1)`)
    const run = await runCli(cli, ['serve', join(dir, 'passwd'), '--grpc', '127.0.0.1:1'])
    expect(run.stderr).not.toMatch(/root|secret/)
  })
})

describe('imports', () => {
  it('an absolute import is refused at its line', () => {
    const outside = writeProtos({ 'x.proto': `${HEAD}message X {}\n` })
    const dir = writeProtos({ 'main.proto': `${HEAD}import "${join(outside, 'x.proto')}";\nmessage M { X x = 1; }\n` })
    const error = errorOf(() => loadProto(join(dir, 'main.proto')))
    expect(error.code).toBe('PROTO_IMPORT')
    expect(error.message).toBe(
      `cannot parse "${join(dir, 'main.proto')}": import "${join(outside, 'x.proto')}" is an absolute path: imports are relative to the importing file's folder or an import path (line 3)`,
    )
  })

  it('an import climbing out of every root with ".." is refused', () => {
    const dir = writeProtos({
      'secret.proto': `${HEAD}message S {}\n`,
      'app/main.proto': `${HEAD}import "../secret.proto";\nmessage M { S s = 1; }\n`,
    })
    const error = errorOf(() => loadProto(join(dir, 'app', 'main.proto')))
    expect(error.message).toBe(
      `cannot parse "${join(dir, 'app', 'main.proto')}": import "../secret.proto" resolves outside the importing file's folder and every import path (through ".." or a symlink) (line 3)`,
    )
    // Even with the parent as an import path: ".." climbs out of it too; `import "secret.proto"` is the way.
    expect(() => loadProto(join(dir, 'app', 'main.proto'), { importPaths: [dir] })).toThrow(/resolves outside/)
  })

  it('a symlink pointing outside is refused; one pointing inside is followed', () => {
    const outside = writeProtos({ 'x.proto': `${HEAD}message X {}\n` })
    const dir = writeProtos({
      'main.proto': `${HEAD}import "link.proto";\nmessage M { X x = 1; }\n`,
      'inner/y.proto': `${HEAD}message X {}\n`,
    })
    symlinkSync(join(outside, 'x.proto'), join(dir, 'link.proto'))
    expect(errorOf(() => loadProto(join(dir, 'main.proto'))).message).toMatch(
      /import "link.proto" resolves outside the importing file's folder/,
    )
    const ok = writeProtos({
      'main.proto': `${HEAD}import "link.proto";\nmessage M { X x = 1; }\n`,
      'inner/y.proto': `${HEAD}message X {}\n`,
    })
    symlinkSync(join(ok, 'inner', 'y.proto'), join(ok, 'link.proto'))
    expect(loadProto(join(ok, 'main.proto')).files).toContainEqual(expect.stringMatching(/link\.proto$/))
  })
})

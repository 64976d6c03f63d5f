import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

// The project's own account of the mapping, the calls, the serving and the fleet: comments in src/ cite these, never files outside the repo.
const root = resolve(import.meta.dirname, '..')
const src = join(root, 'src')
const DOCS = ['docs/mapping.md', 'docs/calls.md', 'docs/serving.md', 'docs/cluster.md'] as const
/**
 * A cited Markdown file, with the heading or the section number that follows it if any:
 * `docs/calls.md, "Validation texts"` (a comment's line break and `*` may come between), `docs/calls.md §3`,
 * `../shared/spec/runtime.md`.
 */
const MD_CITATION_RE = /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[\w.-]+\.md)\b(?:,\s*(?:(?:\*|\/\/)\s*)?"([^"\n]+)"|\s+§(\d+))?/g
// A section cited by a spec's bare name: `(mapping §5)`, `runtime §1`.
const BARE_SPEC_RE = /\b(?:mapping|runtime|server)\s+§\d+/g
const HEADING_TEXT_RE = /^#{1,6}\s+(.+)$/gm
// The user's guide and the maintainer docs, which link to one another.
const GUIDES = [
  'README.md',
  'bench/README.md',
  'test/reliability/README.md',
  'playground/README.md',
  'protos/README.md',
  ...['docs', 'docs/guide'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${dir}/${name}`),
  ),
]
// A Markdown link or image target: `[text](path#anchor)`.
const LINK_RE = /\]\(([^)\s]+)\)/g
const FENCE_RE = /^```[^\n]*\n[\s\S]*?^```$/gm
const CODE_SPAN_RE = /`[^`\n]*`/g
const HEADING_RE = /^#{1,6}\s+(.+)$/gm

function filesUnder(dir: string): string[] {
  let out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out = out.concat(filesUnder(path))
    else if (/\.[cm]?[jt]s$/.test(name)) out.push(path)
  }
  return out
}

/** The headings of a Markdown file as a citation quotes them: their text without code marks (`` `portable` `` → `portable`). */
const headingsOf = (file: string): Set<string> =>
  new Set([...readFileSync(file, 'utf8').replace(FENCE_RE, '').matchAll(HEADING_TEXT_RE)].map((m) => m[1]!.trim().replaceAll('`', '')))

/** The anchors GitHub gives the headings of a Markdown text (`## Profiles: which clients` → `profiles-which-clients`). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  for (const m of text.replace(FENCE_RE, '').matchAll(HEADING_RE)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

// The repository's address (package.json's homepage): a link to one of its files, absolute so that it works on the registry's page too.
const REPO_URL = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { homepage: string }).homepage.replace(/#.*$/, '')
const REPO_FILE_RE = new RegExp(`^${REPO_URL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|raw)/main/`)

/**
 * What is wrong with the links of `text`, the Markdown file `file`: a target
 * that is not a file, or an anchor its file has no heading for. Links in code
 * are not links; a link to a file of the repository by its address is
 * checked as that file; other `https:` and other schemes are not checked.
 */
export function badLinks(text: string, file: string): string[] {
  const bad: string[] = []
  for (const m of text.replace(FENCE_RE, '').replace(CODE_SPAN_RE, '').matchAll(LINK_RE)) {
    const target = m[1]!
    const inRepo = REPO_FILE_RE.test(target)
    if (!inRepo && /^[a-z][a-z+.-]*:/i.test(target)) continue
    const [path, anchor] = target.replace(REPO_FILE_RE, '').split('#') as [string, string | undefined]
    const linked = path === '' ? file : resolve(inRepo ? root : dirname(file), path)
    if (!existsSync(linked)) bad.push(`${target}: no such file`)
    else if (anchor !== undefined && !anchorsOf(linked === file ? text : readFileSync(linked, 'utf8')).has(anchor))
      bad.push(`${target}: no such heading`)
  }
  return bad
}

/**
 * What is wrong with the citations in `text`: a `.md` that is not a file of
 * the repo (names resolve from the repo root, or from `bases`: in src/ a
 * bare `mapping.md` or a `../shared/...` path fails), a heading its file
 * does not have, a section cited by number (the project's docs cite
 * headings: numbers change when a section moves), or a spec cited by its
 * bare name.
 */
export function badCitations(text: string, bases: readonly string[] = [root]): string[] {
  const bad: string[] = []
  for (const m of text.matchAll(MD_CITATION_RE)) {
    const [, cited, heading, section] = m
    const path = [...bases, root].map((base) => resolve(base, cited!)).find((p) => p.startsWith(root + sep) && existsSync(p))
    if (path === undefined) {
      bad.push(`${cited}: not a file of the repository`)
    } else if (section !== undefined) {
      bad.push(`${cited} §${section}: cite the section's heading, not its number`)
    } else if (heading !== undefined && !headingsOf(path).has(heading)) {
      bad.push(`${cited}, "${heading}": no such heading`)
    }
  }
  for (const m of text.matchAll(BARE_SPEC_RE)) bad.push(`${m[0]}: cite docs/mapping.md, docs/calls.md or docs/serving.md`)
  return bad
}

describe('docs', () => {
  it.each(DOCS)('%s exists, its sections named by headings, not numbers', (doc) => {
    const path = join(root, doc)
    expect(existsSync(path)).toBe(true)
    const headings = [...headingsOf(path)]
    expect(headings.length).toBeGreaterThan(1)
    expect(headings.filter((heading) => /^§\d/.test(heading))).toEqual([])
  })

  it('no file in src/ cites a Markdown file outside the repository or a heading that does not exist', () => {
    const bad = filesUnder(src).flatMap((file) => badCitations(readFileSync(file, 'utf8')).map((why) => `${relative(root, file)}: ${why}`))
    expect(bad).toEqual([])
  })

  it('nor does any test, benchmark, script, the playground or the /__mcp/ page', () => {
    const self = fileURLToPath(import.meta.url)
    const bad = ['test', 'bench', 'scripts', 'playground', 'page']
      .flatMap((dir) => filesUnder(join(root, dir)))
      .filter((file) => file !== self && !file.includes(`${sep}dist${sep}`))
      .flatMap((file) => badCitations(readFileSync(file, 'utf8'), [dirname(file)]).map((why) => `${relative(root, file)}: ${why}`))
    expect(bad).toEqual([])
  })

  it.each(['docs/internals.md', ...DOCS])('%s cites only files of the repository', (doc) => {
    expect(badCitations(readFileSync(join(root, doc), 'utf8'), [join(root, 'docs')])).toEqual([])
  })

  it.each(GUIDES)('%s cites only files of the repository, and its links resolve', (doc) => {
    const path = join(root, doc)
    const text = readFileSync(path, 'utf8')
    expect([...badCitations(text, [dirname(path)]), ...badLinks(text, path)]).toEqual([])
  })

  it('README.md stays under 12,000 bytes', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThan(12_000)
  })

  it('fails on the links it is meant to catch', () => {
    const readme = join(root, 'README.md')
    expect(badLinks('[a](docs/nope.md) [b](#no-such-heading) [c](docs/calls.md#nope)', readme)).toEqual([
      'docs/nope.md: no such file',
      '#no-such-heading: no such heading',
      'docs/calls.md#nope: no such heading',
    ])
    expect(
      badLinks(
        '## Serving: over `HTTP`\n\n## Serving: over `HTTP`\n\n[a](#serving-over-http-1) [b](docs/calls.md#the-pipeline) [c](https://x.test/#y)',
        readme,
      ),
    ).toEqual([])
    expect(badLinks('```md\n[a](nope.md)\n```\n`[b](nope.md)`', readme)).toEqual([])
    expect(
      badLinks(
        `[a](${REPO_URL}/blob/main/docs/nope.md) [b](${REPO_URL}/blob/main/docs/calls.md#nope) [c](${REPO_URL}/raw/main/docs/calls.md)`,
        readme,
      ),
    ).toEqual([`${REPO_URL}/blob/main/docs/nope.md: no such file`, `${REPO_URL}/blob/main/docs/calls.md#nope: no such heading`])
  })

  it('fails on the citations it is meant to catch', () => {
    expect(badCitations('/** The call pipeline (runtime.md §1): validate, decode. */')).toHaveLength(1)
    expect(badCitations('// See ../shared/spec/mapping.md §3.')).toHaveLength(1)
    expect(badCitations('// Bounds go on the integer branch (mapping §5).')).toHaveLength(1)
    expect(badCitations('/** (docs/calls.md §3) */')).toEqual(["docs/calls.md §3: cite the section's heading, not its number"])
    expect(badCitations('/** (docs/calls.md, "No such heading") */')).toEqual(['docs/calls.md, "No such heading": no such heading'])
    expect(badCitations('/** (docs/calls.md, "Validation texts"; docs/profiles.md,\n * "portable and strict, type by type") */')).toEqual([
      'docs/profiles.md, "portable and strict, type by type": no such heading',
    ])
    expect(
      badCitations('/** (docs/calls.md, "Validation texts"; docs/guide/profiles.md,\n * "portable and strict, type by type") */'),
    ).toEqual([])
    expect(badCitations('// RFC 6750 §3.1 and SEP-2106 §4.3 are not ours (docs/cluster.md)')).toEqual([])
  })
})

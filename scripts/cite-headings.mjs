#!/usr/bin/env node
/**
 * Rewrites citations of the numbered sections docs/mapping.md, docs/calls.md
 * and docs/serving.md had (issue 33) into citations of headings: in code,
 * `docs/calls.md, "Validation"`; in Markdown, a link to the heading. The
 * fleet's section of docs/serving.md is docs/cluster.md now. A citation is
 * a file name, then a section sign and a number, a comment's line break and
 * `*` or `//` allowed between them; a number alone means the file cited last.
 *
 *   node scripts/cite-headings.mjs <file or folder>...
 *
 * Safe to run again: a file without a section number is left as it is.
 * RFC and SEP sections are not ours and stay.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const S = '\u00a7'
/** The old numbered sections: file → number → [the file it is in now, its heading (none: the whole file)]. */
const SECTIONS = {
  mapping: [
    'Which RPCs become tools',
    'Tool names',
    'Descriptions from comments',
    'Input schema: the shape',
    'Input schema: types',
    'Output schema',
    'Extensions',
    'What a tool carries',
    'Long-running RPCs',
  ].map((h) => ['mapping', h]),
  calls: [
    'The pipeline',
    'Validation',
    'Validation texts',
    'Decoding',
    'Backends',
    'Errors',
    'Result encoding and structured content',
    'Streaming',
    'Long-running operations',
  ].map((h) => ['calls', h]),
  serving: [
    ...[
      'Protocol eras',
      'Transports',
      'Sessions and their binding',
      'Limits',
      'Tools, errors and visibility',
      'requestState',
      'Changing a server while it serves',
      'Hot reload and the dev mount',
      'Logging',
      'Authorization',
      'Tasks',
    ].map((h) => ['serving', h]),
    ['cluster', undefined],
  ],
}
/** The file whose bare section numbers a Markdown file of docs/ means. */
const OWN = { mapping: 'mapping', calls: 'calls', serving: 'serving', cluster: 'serving' }

/** GitHub's anchor of a heading. */
const anchor = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

function target(doc, n, where) {
  const entry = SECTIONS[doc]?.[Number(n) - 1]
  if (!entry) throw new Error(`${where}: section ${n} of ${doc} is no section`)
  return { file: entry[0], heading: entry[1] }
}

const renamed = (written, doc, file) => written.replace(new RegExp(`${doc}\\.md$`), `${file}.md`)
const item = (sub) => (sub ? `, item ${sub}` : '')

// a file and a number, perhaps an item of it (7.3)
const CITED = new RegExp(`((?:[\\w.-]*/)*(mapping|calls|serving)\\.md)(\\s*(?:\\*\\s*|//\\s*)?)${S}(\\d+)(?:\\.(\\d+))?`, 'g')
// a section number alone; not an RFC's or a SEP's
const BARE = new RegExp(`(?<!(?:RFC|SEP)[- ]?\\d+\\s?)${S}(\\d+)(?:\\.(\\d+))?`, 'g')
// a link whose text is a citation, to the file it cites
const LINK = new RegExp(
  `\\[((?:[\\w.-]*/)*(mapping|calls|serving)\\.md) ${S}(\\d+)(?:\\.(\\d+))?\\]\\(([^)#\\s]*?)(mapping|calls|serving)\\.md(?:#[^)\\s]*)?\\)`,
  'g',
)

function rewriteMarkdown(text, file) {
  const own = file.includes(`docs${'/'}`) && !file.includes('/guide/') ? OWN[basename(file, '.md')] : undefined
  if (own) text = text.replace(new RegExp(`^(#{2,6}) ${S}\\d+ `, 'gm'), '$1 ')
  text = text.replace(LINK, (_, written, doc, n, sub, dir) => {
    const { file: to, heading } = target(doc, n, file)
    const shown = renamed(written, doc, to)
    return heading ? `[${shown}, "${heading}"${item(sub)}](${dir}${to}.md#${anchor(heading)})` : `[${shown}](${dir}${to}.md)`
  })
  text = text.replace(CITED, (_, written, doc, space, n, sub) => {
    const { file: to, heading } = target(doc, n, file)
    const shown = renamed(written, doc, to)
    return heading ? `${shown},${space || ' '}"${heading}"${item(sub)}` : shown
  })
  if (!own) return text
  const here = basename(file, '.md')
  return text.replace(BARE, (_, n, sub) => {
    const { file: to, heading } = target(own, n, file)
    const path = to === here ? '' : `${to}.md`
    return heading ? `[${heading}](${path}#${anchor(heading)})${item(sub)}` : `[docs/${to}.md](${path})`
  })
}

/** The headings of docs/<name>.md, as a citation quotes them. */
const headingsOf = (name) =>
  new Set(
    [...readFileSync(new URL(`../docs/${name}.md`, import.meta.url), 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
      m[1].trim().replaceAll('`', ''),
    ),
  )

function rewriteCode(text, file) {
  let last
  text = text.replace(new RegExp(`${CITED.source}(,?\\s*"([^"\\n]+)")?`, 'g'), (_, written, doc, space, n, sub, quoted, named) => {
    const { file: to, heading } = target(doc, n, file)
    last = doc
    const shown = renamed(written, doc, to)
    // A heading inside the section, quoted after its number (`§1, "Method globs"`): that heading alone.
    if (named !== undefined && headingsOf(to).has(named)) return `${shown},${space || ' '}"${named}"`
    return (heading ? `${shown},${space || ' '}"${heading}"${item(sub)}` : shown) + (quoted ?? '')
  })
  // `§Token budget`, perhaps broken over two lines of a comment: the heading goes after the break.
  text = text.replace(
    new RegExp(`(profiles\\.md)(\\s*(?:\\*\\s*|//\\s*)?)${S}Token(\\s+(?:\\*\\s*|//\\s*)?)budget`, 'g'),
    (_, file, before, within) => `${file},${within.includes('\n') ? within : before}"Token budget"`,
  )
  // A bare number means the last file cited before it in the file.
  const cites = [...text.matchAll(/(mapping|calls|serving|cluster)\.md/g)]
  let out = ''
  let done = 0
  for (const m of text.matchAll(BARE)) {
    const [whole, n, sub] = m
    const before = cites.filter((c) => c.index < m.index).at(-1)
    const doc = (before?.[1] === 'cluster' ? 'serving' : before?.[1]) ?? last
    if (!doc) throw new Error(`${file}: ${whole} cites no file`)
    const { file: to, heading } = target(doc, n, file)
    out += text.slice(done, m.index)
    done = m.index + whole.length
    // Right after a heading cited from the same file (`"Validation" and`), the heading alone.
    const joined = /"[^"\n]*"(?:, item \d+)?\s*(?:,|and|to|–|-)\s*$/.test(out.slice(-120))
    if (joined && heading && to === doc) out += `"${heading}"${item(sub)}`
    else out += heading ? `docs/${to}.md, "${heading}"${item(sub)}` : `docs/${to}.md`
  }
  return out + text.slice(done)
}

function filesOf(path) {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .filter((name) => name !== 'node_modules' && name !== 'dist' && !name.startsWith('.'))
    .flatMap((name) => filesOf(join(path, name)))
}

for (const file of process.argv.slice(2).flatMap(filesOf)) {
  // test/docs.test.ts holds citations by number on purpose: the ones its checks must refuse.
  if (!/\.(md|[cm]?[jt]s)$/.test(file) || file.endsWith('cite-headings.mjs') || file.endsWith('docs.test.ts')) continue
  const text = readFileSync(file, 'utf8')
  if (!text.includes(S)) continue
  const out = file.endsWith('.md') ? rewriteMarkdown(text, file) : rewriteCode(text, file)
  if (out !== text) {
    writeFileSync(file, out)
    console.log(file)
  }
}

/**
 * Globs over RPCs' full names (`google.firestore.v1.Firestore.Delete*`):
 * the one matcher of every option that picks methods by name, the
 * `methods` filter (`include`/`exclude`) and `methodScopes`, in the plugin
 * and the CLI (docs/mapping.md, "Method globs").
 * `*` matches any characters but `.` (within one name), `**` any
 * characters at all, `?` one character but `.`; everything else is literal.
 * A leading `.` is ignored, as full names in descriptors are written with one.
 * A glob without a `.` (`GetDocument`, `Get*`) is a method's own name: it
 * matches the last name of the full name, in any service (a full name always
 * has a dot, so such a glob could match nothing else).
 */

/** A compiled glob: whether an RPC's full name (`package.Service.Method`) matches. */
export type MethodMatcher = (fullName: string) => boolean

/** Compiles `glob`; throws for an empty one. */
export function methodGlob(glob: string): MethodMatcher {
  const text = glob.startsWith('.') ? glob.slice(1) : glob
  if (text === '') throw new Error('a method glob must not be empty')
  let source = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '*' && text[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^.]*'
    else if (c === '?') source += '[^.]'
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')
  }
  const re = new RegExp(`^${source}$`)
  if (!text.includes('.')) return (fullName) => re.test(fullName.slice(fullName.lastIndexOf('.') + 1))
  return (fullName) => re.test(fullName)
}

/** Globs, each with a value, that remember which of them ever matched. */
export interface MethodGlobs<V> {
  /** The values of every glob that matches `fullName`, in the globs' order. */
  valuesFor(fullName: string): V[]
  /** The globs (as written, in order) that matched no name given to {@link valuesFor} so far. */
  unmatched(): string[]
}

/** Compiles `entries` (glob, value) into {@link MethodGlobs}; throws for an empty glob. */
export function methodGlobs<V>(entries: Iterable<readonly [string, V]>): MethodGlobs<V> {
  const globs = [...entries].map(([text, value]) => ({ text, matches: methodGlob(text), value, hit: false }))
  return {
    valuesFor(fullName) {
      const out: V[] = []
      for (const glob of globs) {
        if (!glob.matches(fullName)) continue
        glob.hit = true
        out.push(glob.value)
      }
      return out
    },
    unmatched: () => globs.filter((g) => !g.hit).map((g) => g.text),
  }
}

/** The `methods` option: which RPCs become tools, by full name or glob. */
export interface MethodFilter {
  /** Only RPCs matching one of these become tools. @default every RPC */
  include?: readonly string[]
  /** RPCs matching one of these get no tool (after `include`). @default none */
  exclude?: readonly string[]
}

/** A compiled {@link MethodFilter}: whether an RPC keeps its tool, and which patterns matched no RPC so far. */
export interface MethodSelection {
  keeps(fullName: string): boolean
  /** The patterns (as written, `include` ones first) that matched no RPC given to {@link keeps}. */
  unmatched(): string[]
}

/** Compiles the `methods` option. */
export function methodFilter(filter: MethodFilter | undefined): MethodSelection {
  const globsOf = (patterns: readonly string[]) => methodGlobs(patterns.map((p) => [p, true] as const))
  const include = filter?.include === undefined ? undefined : globsOf(filter.include)
  const exclude = globsOf(filter?.exclude ?? [])
  return {
    keeps(fullName) {
      // Both lists see every name, so each pattern's use is known.
      const included = include === undefined || include.valuesFor(fullName).length > 0
      return exclude.valuesFor(fullName).length === 0 && included
    },
    unmatched: () => [...(include?.unmatched() ?? []), ...exclude.unmatched()],
  }
}

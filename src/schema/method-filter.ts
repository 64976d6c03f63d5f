/**
 * Which RPCs become tools without editing the `.proto` (docs/mapping.md §1):
 * the `methods` option's `include` and `exclude` patterns, each a method's
 * full name (`google.firestore.v1.Firestore.GetDocument`) or a glob of one
 * (`*` any run of characters but `.`, `**` any run at all, `?` one character).
 */

/** The `methods` option: patterns of full method names. */
export interface MethodFilter {
  /** Only RPCs matching one of these become tools. @default every RPC */
  include?: readonly string[]
  /** RPCs matching one of these get no tool (after `include`). @default none */
  exclude?: readonly string[]
}

/** A compiled filter: whether an RPC keeps its tool, and which patterns matched no RPC so far. */
export interface MethodMatcher {
  keeps(fullName: string): boolean
  /** The patterns (as written, `include` ones first) that matched no RPC seen by {@link keeps}. */
  unmatched(): string[]
}

/** The regular expression of one pattern. */
export function methodPattern(pattern: string): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^.]*'
    else if (c === '?') source += '[^.]'
    else source += c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/** Compiles `filter` (patterns may start with a `.`, as full names in descriptors do). */
export function methodMatcher(filter: MethodFilter | undefined): MethodMatcher {
  const compile = (patterns: readonly string[] | undefined) =>
    (patterns ?? []).map((text) => ({ text, re: methodPattern(text.replace(/^\./, '')), hit: false }))
  const include = filter?.include === undefined ? undefined : compile(filter.include)
  const exclude = compile(filter?.exclude)
  const test = (list: ReturnType<typeof compile>, name: string): boolean => {
    let any = false
    for (const p of list) {
      if (p.re.test(name)) {
        p.hit = true
        any = true
      }
    }
    return any
  }
  return {
    keeps(fullName) {
      const included = include === undefined || test(include, fullName)
      const excluded = test(exclude, fullName)
      return included && !excluded
    },
    unmatched: () => [...(include ?? []), ...exclude].filter((p) => !p.hit).map((p) => p.text),
  }
}

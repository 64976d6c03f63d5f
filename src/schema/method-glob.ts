/**
 * Globs over RPCs' full names (`google.firestore.v1.Firestore.Delete*`),
 * the one matcher of every option that picks methods by name (the
 * `methodScopes` option; meant for any other such option too).
 * `*` matches any characters but `.` (within one name), `**` any
 * characters at all, `?` one character but `.`; everything else is literal.
 */

/** A compiled glob: whether an RPC's full name (`package.Service.Method`) matches. */
export type MethodMatcher = (fullName: string) => boolean

/** Compiles `glob`; throws for an empty one. */
export function methodGlob(glob: string): MethodMatcher {
  if (glob === '') throw new Error('a method glob must not be empty')
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^.]*'
    else if (c === '?') source += '[^.]'
    else source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')
  }
  const re = new RegExp(`^${source}$`)
  return (fullName) => re.test(fullName)
}

/** The values of every glob of `map` that matches `fullName`, in the map's order. */
export function matchingValues<V>(map: ReadonlyArray<readonly [MethodMatcher, V]>, fullName: string): V[] {
  return map.filter(([matches]) => matches(fullName)).map(([, value]) => value)
}

/**
 * The known name nearest to a mistyped one (an unknown field, an unknown
 * type asked of the type tool): the fewest single-character edits, case
 * and `_` ignored, and only when it is close enough to be the one meant.
 */

/** Levenshtein distance of `a` and `b`. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]!
}

/**
 * The name of `names` nearest to `wanted`, when at most a third of its
 * characters (and at least one) differ, or one ends with it (`Document` for
 * `google.firestore.v1.Document`); `undefined` otherwise.
 */
export function nearestName(wanted: string, names: Iterable<string>): string | undefined {
  // Case and `_` ignored: `previous_vibe` is near `previousVibe`.
  const fold = (name: string): string => name.toLowerCase().replace(/_/g, '')
  const lower = fold(wanted)
  let best: string | undefined
  let bestDistance = Infinity
  for (const name of names) {
    const candidate = fold(name)
    if (candidate.endsWith(`.${lower}`)) return name
    const d = distance(lower, candidate)
    if (d < bestDistance) {
      best = name
      bestDistance = d
    }
  }
  return bestDistance <= Math.max(1, Math.floor(wanted.length / 3)) ? best : undefined
}

/** The `count` names of `names` nearest to `wanted` (fewest edits, case and `_` ignored; ties in the names' order). */
export function nearestNames(wanted: string, names: Iterable<string>, count: number): string[] {
  const fold = (name: string): string => name.toLowerCase().replace(/_/g, '')
  const lower = fold(wanted)
  return [...names]
    .map((name, i) => ({ name, i, d: distance(lower, fold(name)) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, count)
    .map((x) => x.name)
}

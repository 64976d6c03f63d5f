/**
 * Side-by-side measurement: ours and a baseline alternate in rounds (ABBA
 * order, so neither always runs first on a warm or cold core), each round
 * timing a batch of operations. A figure is the median over rounds; its
 * spread is the interquartile range of the per-round ratios divided by
 * their median (0.1 = the middle half of the rounds lies within ±5 %).
 */

/** The median of numbers. */
export function median(values) {
  return quantile(values, 0.5)
}

/** Linear-interpolated quantile `q` (0..1) of numbers. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo)
}

/** (p75 - p25) / median of `values`. */
export function relativeIqr(values) {
  const m = median(values)
  return m === 0 ? 0 : (quantile(values, 0.75) - quantile(values, 0.25)) / m
}

/** Times `batch()` (which runs `ops` operations) and returns the time per operation in µs. */
async function timeBatch(batch, ops) {
  const start = process.hrtime.bigint()
  await batch()
  return Number(process.hrtime.bigint() - start) / 1000 / ops
}

/**
 * Runs `ours.batch` and `baseline.batch` alternately for `rounds` rounds
 * (after `warmup` untimed rounds each) and returns the per-operation times
 * in µs of each side per round.
 */
export async function interleave({ ours, baseline, ops, rounds, warmup = 2 }) {
  for (let i = 0; i < warmup; i++) {
    await ours()
    await baseline()
  }
  const a = []
  const b = []
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await timeBatch(ours, ops))
      b.push(await timeBatch(baseline, ops))
    } else {
      b.push(await timeBatch(baseline, ops))
      a.push(await timeBatch(ours, ops))
    }
  }
  return { ours: a, baseline: b }
}

/**
 * A benchmark record of results.json from per-round times (lower is
 * better for times). `higherIsBetter` says how `ratio` reads: true →
 * ratio = baseline time / our time (our throughput relative to the
 * baseline's); false → ratio = our time / baseline time. `note` is printed
 * under the table, not written to results.json.
 */
export function record({ id, samples, unit, higherIsBetter, target, note }) {
  const ours = median(samples.ours)
  const baseline = median(samples.baseline)
  const perRound = samples.ours.map((o, i) => (higherIsBetter ? samples.baseline[i] / o : o / samples.baseline[i]))
  const ratio = higherIsBetter ? baseline / ours : ours / baseline
  const met = target === null || target === undefined ? null : higherIsBetter ? ratio >= target : ratio <= target
  return {
    id,
    ours: round(ours),
    baseline: round(baseline),
    unit,
    ratio: round(ratio),
    higherIsBetter,
    target: target ?? null,
    met,
    runs: samples.ours.length,
    spread: round(relativeIqr(perRound)),
    ...(note ? { note } : {}),
  }
}

function round(value) {
  return Number.isFinite(value) ? Number(value.toPrecision(4)) : value
}

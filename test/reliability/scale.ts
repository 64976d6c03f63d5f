/**
 * How big the reliability runs are: the bounded counts `npm test` runs, or
 * the soak counts `npm run soak` runs (`SOAK=1`), which run the same files.
 */

/** True under `npm run soak`. */
export const SOAK = process.env.SOAK === '1'

/** `bounded` in `npm test`, `soak` under `npm run soak`. */
export function scaled(bounded: number, soak: number): number {
  return SOAK ? soak : bounded
}

/** The fixed fast-check seed of every reliability property (a failure prints its path to replay). */
export const SEED = 20261129

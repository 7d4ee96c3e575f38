// Random choices that are reproducible: the same key always draws the same number, so an A/B
// test's groups and a journey split's branches can be recomputed, audited and tested, and a
// retried step never lands somewhere else. Bun's wyhash spreads keys evenly over 64 bits.

const TWO_53 = 2 ** 53

/** A number in [0, 1) drawn from `key` alone. */
export function unitOf(key: string): number {
  return Number(Bun.hash.wyhash(key, 0x4e52_4c44n) >> 11n) / TWO_53
}

/** The index of the weight `u` (in [0, 1)) falls on, weights taken as shares of their sum. */
export function pickByWeight(weights: readonly number[], u: number): number {
  const total = weights.reduce((sum, w) => sum + w, 0)
  let pick = u * total
  for (const [i, w] of weights.entries()) {
    pick -= w
    if (pick < 0) return i
  }
  return weights.length - 1
}

/**
 * pass@k from n samples of which c are correct: the probability that at least one of k samples drawn
 * without replacement is correct, 1 − C(n−c, k) / C(n, k) (the unbiased estimator of Chen et al.,
 * arXiv:2107.03374). Needs k ≤ n.
 */
export function passAtK(samples: number, correct: number, k: number): number {
  if (
    !Number.isInteger(samples) ||
    !Number.isInteger(correct) ||
    !Number.isInteger(k) ||
    k < 1 ||
    correct < 0 ||
    correct > samples
  ) {
    throw new Error(
      'pass@k needs whole numbers with 0 ≤ correct ≤ samples and k ≥ 1, ' +
        `got samples=${samples} correct=${correct} k=${k}`,
    );
  }
  if (k > samples) throw new Error(`pass@${k} needs at least ${k} samples per task, got ${samples}`);
  if (samples - correct < k) return 1;
  // the product form avoids large binomials: C(n−c, k) / C(n, k) = Π_{i=n−c+1..n} (1 − k / i)
  let failAll = 1;
  for (let i = samples - correct + 1; i <= samples; i++) failAll *= 1 - k / i;
  return 1 - failAll;
}

/** Mean of a list; NaN for an empty one. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN;
}

/**
 * Tokens sampled by older weights: their staleness, and the names of the trainer's corrections.
 *
 * A trained token's staleness is the version the trainer step starts from minus the version that
 * generated it (versions are numbered by the trainer step that made them; a synchronous run has
 * staleness 0 everywhere). The corrections themselves are torch code (trainer/agentrl_trainer/losses.py);
 * both sides read the golden cases of shared/golden/off-policy.json.
 */

/**
 * `none`: the clipped ratio against the behaviour log-probs; `tis`: the ratio against the weights
 * the step starts from (the proximal policy), its term weighted by min(pi_prox / mu, isCap), as
 * verl's rollout correction; `decoupled`: AReaL's decoupled PPO, the same ratio weighted by
 * pi_prox / mu, with tokens whose weight exceeds isCap dropped.
 */
export const OffPolicyModes = ['none', 'tis', 'decoupled'] as const;
export type OffPolicyMode = (typeof OffPolicyModes)[number];
export const defaultIsCap = 2;

/**
 * The staleness of a set of trained tokens: the largest, the mean and how many there are of each (index = staleness).
 */
export interface StalenessSummary {
  max: number;
  mean: number;
  histogram: number[];
  tokens: number;
}

/**
 * Staleness of every generated (mask-1) token with a known version (>= 0): `base - version`.
 * Versions of -1 (prompt, observations, policies without a published version) are not counted.
 */
export function tokenStaleness(policyVersions: readonly number[], lossMask: readonly number[], base: number): number[] {
  const values: number[] = [];
  policyVersions.forEach((version, index) => {
    if (lossMask[index] === 1 && version >= 0) values.push(base - version);
  });
  return values;
}

/** The summary of staleness values (an empty set: max 0, mean 0, an empty histogram). */
export function summariseStaleness(values: readonly number[]): StalenessSummary {
  if (values.length === 0) return { max: 0, mean: 0, histogram: [], tokens: 0 };
  const max = Math.max(...values);
  const histogram = new Array<number>(max >= 0 ? max + 1 : 0).fill(0);
  for (const value of values) if (value >= 0) histogram[value]!++;
  return { max, mean: values.reduce((sum, value) => sum + value, 0) / values.length, histogram, tokens: values.length };
}

/** The largest staleness of one row's trained tokens (0 when it has none with a known version). */
export function rowStaleness(policyVersions: readonly number[], lossMask: readonly number[], base: number): number {
  return Math.max(0, ...tokenStaleness(policyVersions, lossMask, base));
}

/** Adds two histograms index by index. */
export function addHistograms(a: readonly number[], b: readonly number[]): number[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, index) => (a[index] ?? 0) + (b[index] ?? 0));
}

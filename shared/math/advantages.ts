/**
 * Group-relative advantage estimators: pure functions over one group's rewards.
 * - grpo: (r − mean) / population std (DeepSeekMath GRPO)
 * - grpo_sample_std: the same with the sample std (G − 1)
 * - rloo: r − mean of the other samples, no std (leave-one-out, as DeepSWE)
 * - dr_grpo: r − mean, no std (Dr. GRPO, arXiv:2503.20783)
 * Edge cases: a group whose std is below {@link stdEpsilon} (all rewards equal) gets zero advantages
 * from the std estimators; a one-sample group gets 0 from every estimator. Golden vectors:
 * shared/golden/advantages.json, read by the TypeScript and the Python tests.
 */
export const stdEpsilon = 1e-6;

type Estimator = (rewards: readonly number[]) => number[];

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function normalised(ddof: 0 | 1): Estimator {
  return (rewards) => {
    const count = rewards.length;
    if (count - ddof <= 0) return rewards.map(() => 0);
    const centre = mean(rewards);
    const std = Math.sqrt(rewards.reduce((sum, value) => sum + (value - centre) ** 2, 0) / (count - ddof));
    return std < stdEpsilon ? rewards.map(() => 0) : rewards.map((value) => (value - centre) / std);
  };
}

export const advantageEstimators = {
  grpo: normalised(0),
  grpo_sample_std: normalised(1),
  rloo: (rewards: readonly number[]) => {
    if (rewards.length < 2) return rewards.map(() => 0);
    const total = rewards.reduce((sum, value) => sum + value, 0);
    return rewards.map((value) => value - (total - value) / (rewards.length - 1));
  },
  dr_grpo: (rewards: readonly number[]) => {
    if (rewards.length < 2) return rewards.map(() => 0);
    const centre = mean(rewards);
    return rewards.map((value) => value - centre);
  },
} as const satisfies Record<string, Estimator>;

export type AdvantageEstimator = keyof typeof advantageEstimators;
export const advantageEstimatorNames = Object.keys(advantageEstimators).sort() as AdvantageEstimator[];

/** Advantages of one group by estimator name; an unknown name throws with the list of known ones. */
export function computeGroupAdvantages(name: string, rewards: readonly number[]): number[] {
  if (!(name in advantageEstimators))
    throw new Error(
      `unknown advantage estimator ${JSON.stringify(name)}; known: ${advantageEstimatorNames.join(', ')}`,
    );
  if (rewards.some((reward) => !Number.isFinite(reward)))
    throw new Error(`rewards must be finite numbers, got ${JSON.stringify(rewards)}`);
  return advantageEstimators[name as AdvantageEstimator](rewards);
}

/**
 * Estimators that credit each action rather than each episode, computed by the batch builder from
 * the episodes' turns (shared/math/batch.ts): `gigpo` (shared/math/gigpo.ts). Registered beside the group
 * estimators: a run names either kind by `estimator`.
 */
export const stepEstimatorNames = ['gigpo'] as const;
export type StepEstimator = (typeof stepEstimatorNames)[number];
/**
 * Estimators that need the critic, computed by the trainer from its values (trainer/agentrl_trainer/credit.py):
 * `gae` (per action token) and `gae_turn` (per turn, the critic at turn boundaries); the same names as
 * shared/contracts/trainer-contract.ts CriticEstimators.
 */
export const criticEstimatorNames = ['gae', 'gae_turn'] as const;
export const isCriticEstimator = (name: string): name is (typeof criticEstimatorNames)[number] =>
  (criticEstimatorNames as readonly string[]).includes(name);
export const estimatorNames = [...advantageEstimatorNames, ...stepEstimatorNames, ...criticEstimatorNames] as string[];

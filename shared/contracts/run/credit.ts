/** How a training run assigns credit: the advantage estimator, truncated episodes, GiGPO, the critic, stop decisions. */
import { z } from 'zod';
import { estimatorNames, isCriticEstimator } from '../../math/advantages';
import { TruncationPolicies } from '../../math/batch';
import { defaultGigpoOptions } from '../../math/gigpo';
import { CriticSettings } from '../trainer-contract';

export const CreditSettings = z
  .object({
    /**
     * the advantage estimator: a group estimator (grpo, grpo_sample_std, rloo, dr_grpo: one advantage per
     * episode), a step estimator (gigpo: one per action, shared/math/gigpo.ts), or a critic estimator (gae,
     * gae_turn: the trainer's value head)
     */
    estimator: z.enum(estimatorNames as [string, ...string[]]).default('grpo'),
    /**
     * truncated episodes (turn, token or time limit): `zero` (reward 0), `drop` (left out), or `bootstrap`
     * (reward 0 plus the critic's value at the last state: a critic estimator only)
     */
    truncation: z
      .enum([TruncationPolicies.zero, TruncationPolicies.drop, TruncationPolicies.bootstrap])
      .default('zero'),
    /** estimator `gigpo`: the step-level weight, the discount of the return from a state, the normalisation */
    gigpo: z
      .object({
        omega: z.number().min(0).default(defaultGigpoOptions.omega),
        gamma: z.number().gt(0).max(1).default(defaultGigpoOptions.gamma),
        normalise: z.enum(['std', 'none']).default(defaultGigpoOptions.normalise),
      })
      .strict()
      .default(defaultGigpoOptions),
    /** critic estimators (gae, gae_turn): the discount, lambda, the value loss's weight and clip, whitening */
    critic: CriticSettings.omit({ estimator: true }).default({}),
    /**
     * weight of the stop decisions' own credit: training episodes grade the state at every passed
     * check of a changed repository (probes), and the token that chose `submit` or going on there
     * gets g − group mean (submit) or R − g (going on) on top of the episode's advantage, where g is
     * the reward submitting there earns (shared/math/batch.ts stopDecisionAdvantages); 0: off, no probes
     */
    stopCredit: z.number().min(0).default(5),
  })
  .strict()
  .superRefine((credit, context) => {
    if (credit.truncation === 'bootstrap' && !isCriticEstimator(credit.estimator)) {
      context.addIssue({
        code: 'custom',
        path: ['truncation'],
        message: `truncation "bootstrap" takes the critic's value at the last state: it needs estimator "gae" or "gae_turn", not "${credit.estimator}"`,
      });
    }
  });
export type CreditSettings = z.infer<typeof CreditSettings>;

/**
 * The stop credit a run applies: its `stopCredit`, except with a critic estimator, whose values credit the
 * stop decisions themselves (the trainer's GAE replaces the batch's advantages); then 0, and no probes run.
 */
export function effectiveStopCredit(credit: Pick<CreditSettings, 'stopCredit' | 'estimator'>): number {
  return isCriticEstimator(credit.estimator) ? 0 : credit.stopCredit;
}

/** Whether a run's training episodes grade their stop points (probes): for the stop credit, or a privileged critic. */
export function probesStops(credit: Pick<CreditSettings, 'stopCredit' | 'estimator' | 'critic'>): boolean {
  return effectiveStopCredit(credit) > 0 || (isCriticEstimator(credit.estimator) && credit.critic.privileged === true);
}

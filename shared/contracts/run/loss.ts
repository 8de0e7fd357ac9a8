/** What a training run's trainer steps minimise, and how they update: the loss and the optimizer's settings. */
import { z } from 'zod';
import { defaultIsCap, OffPolicyModes } from '../../math/off-policy';
import { KlEstimators, LossAggregations, RatioLevels, trainerDefaults } from '../trainer-contract';

/** The policy-gradient loss (trainer/agentrl_trainer/losses.py). */
export const LossSettings = z
  .object({
    clipEps: z.number().positive().lt(1).default(0.2),
    /** dual-clip: a token with A < 0 contributes at most clipRatioC × |A|; null: off */
    clipRatioC: z.number().gt(1).nullable().default(trainerDefaults.clipRatioC),
    /** every log-ratio is clamped to ±logRatioClamp before exp */
    logRatioClamp: z.number().positive().max(80).default(trainerDefaults.logRatioClamp),
    /** `token`, or `sequence` (GSPO's sequence-level ratio) */
    ratioLevel: z.enum(RatioLevels).default(trainerDefaults.ratioLevel),
    aggregation: z.enum(LossAggregations).default('token_mean'),
    /** `seq_mean_token_sum_norm` (Dr. GRPO): the constant per-sequence divisor; @default the model's window */
    scaleFactor: z.number().positive().optional(),
    /**
     * weight of KL(policy || warm-started policy) in the policy-gradient loss (k3 estimator), which
     * keeps the policy near the format it was taught while rewards are sparse; 0 (or no warm start): none
     */
    klCoef: z.number().min(0).default(0.03),
    /** the estimator of `klCoef`'s penalty: k1, k2, k3 or low_var_kl */
    klEstimator: z.enum(KlEstimators).default(trainerDefaults.klEstimator),
    /**
     * which tokens the policy-gradient loss trains on: `actions` (the policy's own tokens), or `all` (the
     * observations too: the loss-mask ablation of Search-R1; only with the run's `ablation: true`, and the manifest
     * warns)
     */
    mask: z.enum(['actions', 'all']).default('actions'),
    /** the trainer's correction of tokens from older versions (shared/math/off-policy.ts) */
    offPolicy: z.enum(OffPolicyModes).default('none'),
    /** the importance-weight cap of `tis` and `decoupled` */
    isCap: z.number().positive().default(defaultIsCap),
  })
  .strict();
export type LossSettings = z.infer<typeof LossSettings>;

/** How each trainer step updates the weights. */
export const OptimizerSettings = z
  .object({
    /** the learning rate (a model's presets set its own) */
    lr: z.number().positive().default(1e-3),
    /** passes over each batch */
    epochs: z.number().int().min(1).default(4),
    /** optimizer steps per pass */
    minibatches: z.number().int().min(1).default(2),
  })
  .strict();
export type OptimizerSettings = z.infer<typeof OptimizerSettings>;

import { hfModelNames } from '../names/models';
import { z } from 'zod';
import { readingRenamed } from './renamed-fields';
import { jsonSchemaOf } from './json-schema';
import { defaultIsCap, OffPolicyModes } from '../math/off-policy';
import { StoreRef, storeRefPattern } from '../paths/store-refs';

/**
 * The contract of the Python trainer's activities (trainer/agentrl_trainer), on the queue
 * `trainingQueue(base)` (shared/names/task-queues.ts): inputs, results and error types. The zod schemas
 * here are the source; `npm run contracts` writes them as JSON Schema to
 * shared/contracts/trainer.schema.json, which the Python worker validates every input against
 * (and its own results, before returning them). A test keeps the file in step with this module.
 */

export const trainerActivityNames = { trainOnBatch: 'trainOnBatch', initPolicy: 'initPolicy' } as const;

/**
 * The application failure types the trainer raises; `retryable: false` ones are raised
 * non-retryable, and the workflow lists them as such.
 */
export const TrainerErrorTypes = {
  /** a field is malformed, a file it names is missing, or checkpoint N-1 is absent */
  invalidInput: { type: 'InvalidInput', retryable: false },
  /** stepId or step disagrees with what the run folder already holds */
  stepConflict: { type: 'StepConflict', retryable: false },
  /** checkpoint N-1 exists but cannot be loaded */
  checkpointUnreadable: { type: 'CheckpointUnreadable', retryable: false },
  /** the loss, gradient norm or weights became inf/NaN; nothing was written */
  nonFiniteUpdate: { type: 'NonFiniteUpdate', retryable: false },
  /** another attempt of this run still holds the run lock */
  runBusy: { type: 'RunBusy', retryable: true },
  /** the worker is stopping; the retry starts from checkpoint N-1 */
  workerShutdown: { type: 'WorkerShutdown', retryable: true },
} as const;
export const nonRetryableTrainerErrors: string[] = Object.values(TrainerErrorTypes)
  .filter((error) => !error.retryable)
  .map((error) => error.type);

/** a reference into the artifact store (shared/paths/store-refs.ts): a trainer on another host reads what it names */
const storeRef = (field: string) =>
  z
    .string()
    .regex(new RegExp(storeRefPattern))
    .meta({
      errorMessage: `${field} must be a store reference (s3://BUCKET/KEY or file:///ABSOLUTE/PATH), not a local path`,
    });

/** How the policy-gradient loss sums its tokens (trainer/agentrl_trainer/losses.py AGGREGATIONS). */
export const LossAggregations = [
  'token_mean',
  'seq_mean_token_mean',
  'seq_mean_token_sum',
  'seq_mean_token_sum_norm',
] as const;
/** Estimators of KL(p || q) from samples of p, by name (losses.py KL_ESTIMATORS). */
export const KlEstimators = ['k1', 'k2', 'k3', 'low_var_kl'] as const;
/** Where the policy-gradient ratio is taken: per token, or per sequence (GSPO). */
export const RatioLevels = ['token', 'sequence'] as const;

/** Estimators that need the critic (trainer/agentrl_trainer/credit.py CRITIC_ESTIMATORS). */
export const CriticEstimators = ['gae', 'gae_turn'] as const;
export type CriticEstimator = (typeof CriticEstimators)[number];

/** The critic's settings (credit.py CriticOptions); the defaults are written into the contract. */
export const CriticSettings = z
  .object({
    estimator: z.enum(CriticEstimators).meta({ default: 'gae' }).optional(),
    /** discount per step (an action token for gae, a turn for gae_turn) */
    gamma: z.number().min(0).max(1).meta({ default: 1 }).optional(),
    lambda: z.number().min(0).max(1).meta({ default: 0.95 }).optional(),
    valueCoef: z.number().gt(0).meta({ default: 0.5 }).optional(),
    /** the value loss's clip around the step's starting values; null: unclipped */
    valueClip: z.number().gt(0).nullable().meta({ default: 0.2 }).optional(),
    /** whiten the advantages over the batch's action tokens (verl's) */
    whiten: z.boolean().meta({ default: true }).optional(),
    /**
     * SWEET-RL's asymmetry: the value head also reads the batch's `privileged` features (the checker's grade of
     * the latest stop point, from the stop probes), which the policy never sees
     */
    privileged: z.boolean().meta({ default: false }).optional(),
  })
  .strict();
export type CriticSettings = z.infer<typeof CriticSettings>;

/** The policy model's size (camelCase of trainer/agentrl_trainer/model.py PolicyModelConfig). */
export const ModelConfig = z
  .object({
    vocabSize: z.number().int().min(1).optional(),
    context: z.number().int().min(1).optional(),
    dModel: z.number().int().min(1).optional(),
    nLayers: z.number().int().min(1).optional(),
    nHeads: z.number().int().min(1).optional(),
    dropout: z.number().min(0).lt(1).optional(),
    /** ALiBi attention biases */
    alibi: z.boolean().optional(),
  })
  .strict();
export type ModelConfig = z.infer<typeof ModelConfig>;

/**
 * What the trainer does with a field a step leaves out. Written into the generated schema as each
 * field's `default`, which is where the Python worker takes them from: the two sides cannot disagree.
 * (A training run sends its own choices: shared/contracts/training-run.ts.)
 */
export const trainerDefaults = {
  lr: 1e-3,
  weightDecay: 0,
  objective: 'policy_gradient',
  temperature: 1,
  clipEps: 0.2,
  aggregation: 'token_mean',
  minibatches: 1,
  epochs: 1,
  maxGradNorm: 1,
  klCoef: 0,
  offPolicy: 'none',
  isCap: defaultIsCap,
  clipRatioC: 3,
  logRatioClamp: 20,
  ratioLevel: 'token',
  klEstimator: 'k3',
} as const;
const byDefault = <T extends z.ZodType>(type: T, field: keyof typeof trainerDefaults): T =>
  type.meta({ default: trainerDefaults[field] });

/** Input of `trainOnBatch`: one step of a run, applied exactly once per `stepId`. */
export const TrainOnBatchInput = z
  .object({
    /** the run's prefix in the store: the trainer reads and writes checkpoints/, policies/ and steps/ under it */
    runRef: storeRef('runRef'),
    /** names the step's record: a retry with the same id returns the recorded result */
    stepId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
    step: z.number().int().min(1),
    batchRef: storeRef('batchRef'),
    seed: z.number().int().min(0),
    /** the toy model: required at step 1 (the model is initialised from it and `seed`), ignored after */
    modelConfig: ModelConfig.nullable().optional(),
    /**
     * a Hugging Face causal LM of shared/models.json: the step trains it from its prepared weights
     * (step 1) or checkpoint N-1, in the Hugging Face layout (trainer/agentrl_trainer/hf_training.py);
     * `policyRef` of the result is then the ONNX folder its embedded server loads
     */
    model: z.enum(hfModelNames).optional(),
    optimizer: z
      .object({
        lr: byDefault(z.number().gt(0), 'lr').optional(),
        weightDecay: byDefault(z.number().min(0), 'weightDecay').optional(),
      })
      .strict()
      .optional(),
    objective: byDefault(z.enum(['policy_gradient', 'imitation']), 'objective').optional(),
    /** the sampling temperature: log-probs are recomputed under the tempered distribution */
    temperature: byDefault(z.number().gt(0), 'temperature').optional(),
    clipEps: byDefault(z.number().gt(0).lt(1), 'clipEps').optional(),
    clipEpsHigh: z.number().gt(0).nullable().optional(),
    aggregation: byDefault(z.enum(LossAggregations), 'aggregation').optional(),
    /**
     * `seq_mean_token_sum_norm` (Dr. GRPO): the constant every sequence's token sum is divided by;
     * absent: the model's window
     */
    lossScaleFactor: z.number().gt(0).optional(),
    /**
     * dual-clip PPO: a token with a negative advantage contributes at most clipRatioC × |A| however
     * large its ratio (verl's default 3); null: off
     */
    clipRatioC: byDefault(z.number().gt(1).nullable(), 'clipRatioC').optional(),
    /** every log-ratio is clamped to ±logRatioClamp before exp (float32's exp overflows past about 88.7) */
    logRatioClamp: byDefault(z.number().gt(0).max(80), 'logRatioClamp').optional(),
    /** `token` (PPO, GRPO) or `sequence` (GSPO: one ratio per sequence, the geometric mean of its tokens') */
    ratioLevel: byDefault(z.enum(RatioLevels), 'ratioLevel').optional(),
    /**
     * a critic: a value head on the policy's hidden states, trained in the same step (its own clipped value loss,
     * weighted by valueCoef), checkpointed and published with the policy; its GAE (per action token, or per turn)
     * gives the advantages in place of the batch's, from the batch's rewards, turn ids and bootstrap flags
     */
    critic: CriticSettings.optional(),
    /** the estimator of the KL penalty toward `referenceStep` (losses.py KL_ESTIMATORS) */
    klEstimator: byDefault(z.enum(KlEstimators), 'klEstimator').optional(),
    minibatches: byDefault(z.number().int().min(1), 'minibatches').optional(),
    epochs: byDefault(z.number().int().min(1), 'epochs').optional(),
    maxGradNorm: byDefault(z.number().gt(0), 'maxGradNorm').optional(),
    /** policy gradient: weight of KL(policy || the checkpoint of `referenceStep`) */
    klCoef: byDefault(z.number().min(0), 'klCoef').optional(),
    referenceStep: z.number().int().min(1).nullable().optional(),
    /**
     * once the step is recorded, checkpoints of steps up to `step - keepCheckpoints` are removed, except
     * `referenceStep`'s; absent or null: every checkpoint is kept
     */
    keepCheckpoints: z.number().int().min(1).nullable().optional(),
    /**
     * policy gradient: the correction of tokens sampled by older versions (shared/math/off-policy.ts):
     * `none` (ratio against the behaviour log-probs), `tis` or `decoupled` (ratio against the
     * weights the step starts from, weighted by their importance weight)
     */
    offPolicy: byDefault(z.enum(OffPolicyModes), 'offPolicy').optional(),
    /** the importance-weight cap of `tis` (truncation) and `decoupled` (tokens above it are dropped) */
    isCap: byDefault(z.number().gt(0), 'isCap').optional(),
    /**
     * a trained token older than (step - 1) - maxStaleness is refused: the staleness bound, checked again by the
     * trainer
     */
    maxStaleness: z.number().int().min(0).nullable().optional(),
  })
  .strict();
export type TrainOnBatchInput = z.infer<typeof TrainOnBatchInput>;

/** where an exported policy lies: the toy model's ONNX file, or a Hugging Face model's ONNX folder */
const policyRef = StoreRef;

/** A step's figures (the `metrics` of its result); a training run's metrics.jsonl carries most of them. */
export const TrainerStepMetrics = z.object({
    loss: z.number(),
    meanRatio: z.number(),
    clipFraction: z.number(),
    /** KL to the sampling policy (k3) */
    klK3: z.number(),
    /** KL to the sampling policy by every estimator (absent in older records) */
    klSampling: z.object({ k1: z.number(), k2: z.number(), k3: z.number(), lowVarKl: z.number() }).optional(),
    /** the share of trained tokens where dual-clip bound the loss (absent in older records) */
    clipFractionLower: z.number().optional(),
    /** KL to the reference policy; absent without `klCoef` */
    klRef: z.number().optional(),
    gradNorm: z.number(),
    /** an all-zero-advantage batch skips the optimizer step */
    skipped: z.boolean(),
    maskedTokens: z.number(),
    updates: z.number().int(),
    /**
     * policy gradient: the correction applied, and w = pi_prox / mu over the trained tokens (absent in older records)
     */
    offPolicy: byDefault(z.enum(OffPolicyModes), 'offPolicy').optional(),
    importanceWeight: z.object({ mean: z.number(), max: z.number(), truncatedShare: z.number() }).optional(),
    /**
     * k3 estimate of KL(mu || pi_prox) with pi_prox recomputed by the trainer on every token: staleness and engine
     * mismatch
     */
    mismatchKl: z.number().optional(),
    /**
     * the training-inference mismatch, measured before the step's first update on the tokens its
     * starting weights generated: of r = pi_train / mu, mean and max |r - 1|, and KL(mu || pi_train) (k3)
     */
    mismatch: z.object({ meanAbsRatioDev: z.number(), maxAbsRatioDev: z.number(), kl: z.number() }).optional(),
    /**
     * with a critic: its mean value and the mean return at the steps before the first update, the explained
     * variance of the returns by the values, and the value loss and its clip share over the updates
     */
    critic: z
      .object({
        meanValue: z.number(),
        meanReturn: z.number(),
        explainedVariance: z.number(),
        valueLoss: z.number(),
        valueClipFraction: z.number(),
      })
      .optional(),
});
export type TrainerStepMetrics = z.infer<typeof TrainerStepMetrics>;

/**
 * A step's result. `policyRef` and `checkpointRef` name store objects (results recorded before
 * references held local paths, as `policyPath` and `checkpointPath`, earlier `onnxPath`).
 */
export const TrainOnBatchResult = readingRenamed(
  { onnxPath: 'policyRef', policyPath: 'policyRef', checkpointPath: 'checkpointRef' },
  z.object({
    stepId: z.string(),
    step: z.number().int(),
    policyVersion: z.string(),
    policyRef,
    checkpointRef: StoreRef,
    metrics: TrainerStepMetrics,
    device: z.string(),
    durationMs: z.number(),
  }),
);
export type TrainOnBatchResult = z.infer<typeof TrainOnBatchResult>;

/**
 * Input of `initPolicy`: the weights a run samples with before its first step (policy v0): the toy
 * model initialised from `seed` and `modelConfig`, or a Hugging Face causal LM's prepared weights
 * (`model`; `policyRef` of the result is then `model://NAME`, the model cache's ONNX folder, and its version the
 * one the model's embedded server starts with).
 */
export const InitPolicyInput = z.union([
  z.object({ runRef: storeRef('runRef'), seed: z.number().int().min(0), modelConfig: ModelConfig }).strict(),
  z.object({ runRef: storeRef('runRef'), seed: z.number().int().min(0), model: z.enum(hfModelNames) }).strict(),
]);
export type InitPolicyInput = z.infer<typeof InitPolicyInput>;

export const InitPolicyResult = readingRenamed(
  { onnxPath: 'policyRef', policyPath: 'policyRef' },
  z.object({ step: z.literal(0), policyVersion: z.string(), policyRef }),
);
export type InitPolicyResult = z.infer<typeof InitPolicyResult>;

/** The trainer's activities as the workflow calls them. */
export interface TrainerActivities {
  trainOnBatch(input: TrainOnBatchInput): Promise<TrainOnBatchResult>;
  initPolicy(input: InitPolicyInput): Promise<InitPolicyResult>;
}

/** The JSON document of shared/contracts/trainer.schema.json. */
export function trainerContractDocument(queueSuffix: string, defaultQueue: string): Record<string, unknown> {
  const schema = (type: z.ZodType) => jsonSchemaOf(type);
  return {
    $comment: 'Generated from shared/contracts/trainer-contract.ts by `npm run contracts`; do not edit.',
    taskQueue: { suffix: queueSuffix, default: defaultQueue },
    errorTypes: TrainerErrorTypes,
    activities: {
      [trainerActivityNames.trainOnBatch]: { input: schema(TrainOnBatchInput), result: schema(TrainOnBatchResult.out) },
      [trainerActivityNames.initPolicy]: { input: schema(InitPolicyInput), result: schema(InitPolicyResult.out) },
    },
  };
}

/**
 * The bounds a real model's training-inference mismatch (TrainerStepMetrics.mismatch) stays within, float32 on the CPU:
 * the embedded server's and the trainer's log-probs of the same tokens; the real-model test and the learning bench hold
 * every policy-gradient step to them.
 */
export const mismatchBounds = { meanAbsRatioDev: 1e-2, kl: 1e-3 } as const;

import { z } from 'zod';
import { readingRenamed } from './renamed-fields';
import { estimatorNames, isCriticEstimator } from '../math/advantages';
import { defaultGigpoOptions } from '../math/gigpo';
import { TruncationPolicies } from '../math/batch';
import { CheckerKinds, SegmentBudget } from './episode';
import { EpisodeBudgets, SamplingOptions } from './episode-input';
import { defaultIsCap, OffPolicyModes } from '../math/off-policy';
import { hfModelNames, modelNames, models } from '../names/models';
import { servingPorts } from '../names/serving-ports';
import { AsyncPool, defaultMaxStaleness } from '../math/async-pool';
import { IterationMetrics, RunTiming } from './run-metrics';
import { StoreRef } from '../paths/store-refs';
import { CriticSettings, KlEstimators, LossAggregations, RatioLevels, trainerDefaults } from './trainer-contract';

/**
 * The embedded policy: a small causal transformer over the shared tokenizer's 404 ids, with ALiBi
 * attention biases on top of learned positions (the decision after a check reads the exit status a
 * few tokens back, which learned absolute positions alone make hard to attend to).
 */
export const defaultModelConfig = {
  vocabSize: 404,
  context: 512,
  dModel: 64,
  nLayers: 2,
  nHeads: 4,
  alibi: true,
} as const;

/** The embedded policy server of the toy model. */
const toyPolicyServer = `http://127.0.0.1:${servingPorts.trainingPolicy}`;

/** The toy model and its size. */
const ToyRunModel = z
  .object({
    name: z.literal('toy'),
    vocabSize: z.number().int().min(1).default(defaultModelConfig.vocabSize),
    context: z.number().int().min(16).default(defaultModelConfig.context),
    dModel: z.number().int().min(1).default(defaultModelConfig.dModel),
    nLayers: z.number().int().min(1).default(defaultModelConfig.nLayers),
    nHeads: z.number().int().min(1).default(defaultModelConfig.nHeads),
    /** ALiBi attention biases (each head favours recent tokens at its own rate) */
    alibi: z.boolean().default(defaultModelConfig.alibi),
  })
  .strict();
const toyModelFields = Object.keys(ToyRunModel.shape);

/** A Hugging Face causal LM of shared/models.json: its size, tokenizer and weights are the model cache's. */
const HfRunModel = z.object({ name: z.enum(hfModelNames) }).strict();

/**
 * A run's model. An unknown name, and a field the named model does not take, are refused with the
 * known names and the fields it takes; no name is the toy model (runs from before the name).
 */
const RunModel = z.preprocess(
  (raw, context) => {
    if (raw === undefined) return { name: 'toy' };
    if (!isPlainObject(raw)) return raw;
    const given = raw;
    const name = given.name ?? 'toy';
    if (typeof name !== 'string' || !modelNames.includes(name)) {
      context.addIssue({
        code: 'custom',
        path: ['name'],
        message: `unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`,
      });
      return z.NEVER;
    }
    const fields = name === 'toy' ? toyModelFields : ['name'];
    const unknown = Object.keys(given).filter((key) => !fields.includes(key));
    if (unknown.length > 0) {
      for (const key of unknown) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            `the model ${name} takes no field ${JSON.stringify(key)}; it takes ` +
            `${fields.join(', ')}${name === 'toy' ? '' : " (a real model's size is fixed by its weights)"}`,
        });
      }
      return z.NEVER;
    }
    return { ...given, name };
  },
  z.discriminatedUnion('name', [ToyRunModel, HfRunModel]),
);

/**
 * A run's input with its model's presets (shared/models.json) under it: every field the input
 * leaves out takes the preset's value (objects merge field by field), the tokenizer is the
 * model's, and the policy server defaults to the model's embedded server. Other input passes as
 * it is (the schema then judges it).
 */
export function applyModelPresets(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  const input = raw;
  const name = isPlainObject(input.model) ? input.model.name : undefined;
  if (typeof name !== 'string' || !hfModelNames.includes(name)) return raw;
  const entry = models[name]!;
  const defaults = {
    ...(entry.presets ?? {}),
    policyServer: `http://127.0.0.1:${servingPorts.model}`,
    sampling: {
      ...(entry.presets?.sampling ?? {}),
      chat: { ...(entry.presets?.sampling?.chat ?? {}), tokenizer: entry.tokenizer },
    },
  };
  return mergeUnder(defaults, input);
}

/** `given` over `defaults`: plain objects merge field by field, anything else given wins. */
function mergeUnder(defaults: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(given)) {
    const base = merged[key];
    merged[key] = isPlainObject(base) && isPlainObject(value) ? mergeUnder(base, value) : value;
  }
  return merged;
}

function isPlainObject(item: unknown): item is Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item);
}

/** A published policy: the trainer's step that made it (0: the initial weights). */
export const PublishedPolicy = readingRenamed(
  { onnxPath: 'policyRef', policyPath: 'policyRef' },
  z.object({ step: z.number().int().min(0), version: z.string(), policyRef: StoreRef }),
);
export type PublishedPolicy = z.infer<typeof PublishedPolicy>;

/** What the run carries between iterations (and keeps in its folder's state.json): ids and small summaries only. */
export const TrainingRunState = readingRenamed(
  { runDir: 'runRef' },
  z.object({
    /** the run's prefix in the artifact store (activities/training/run-records.ts) */
    runRef: StoreRef,
    trainTasks: z.array(z.string()),
    evalTasks: z.array(z.string()),
    /** the next iteration to run (0-based) */
    iteration: z.number().int().min(0),
    policy: PublishedPolicy,
    /** every published version with its step, so batches can number the versions of their tokens */
    versions: z.record(z.string(), z.number().int()),
    warmStarted: z.boolean(),
    /** the warm start's step, which `klCoef` pulls toward (absent: no warm start, or a run from before it) */
    referenceStep: z.number().int().nullable().optional(),
    /** increases on every resumption, so re-run episodes get fresh workflow ids */
    epoch: z.number().int().min(0),
    /** workflow time when the run started (the time budget counts from it) */
    startedAtMs: z.number(),
    /** the metrics of the last completed iteration (the progress query shows them after continue-as-new) */
    last: IterationMetrics.nullable(),
    timing: RunTiming.optional(),
    /** an asynchronous run's episodes in flight and parked, carried across continue-as-new (never in state.json) */
    pool: AsyncPool.optional(),
  }),
);
export type TrainingRunState = z.infer<typeof TrainingRunState>;

/**
 * Input of `trainingRun`: one JSON object where every field has a default, so `{}` starts a short
 * run on the bundled suite from the Temporal UI or `npx agentrl train`.
 */
export const TrainingRunInput = z.preprocess(
  applyModelPresets,
  z
    .object({
      /** names the run's folder and its episodes; @default the workflow id */
      runId: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'runId: letters, digits, ".", "_" and "-" only')
        .optional(),
      /** a folder of task folders (each with task.yaml), relative to the project root */
      tasks: z.string().min(1).default('tasks/suite/train'),
      /** evaluated every `evalEvery` iterations and after the last step, never trained on; '' for none */
      evalTasks: z.string().default('tasks/suite/heldout'),
      iterations: z.number().int().min(1).default(2),
      /**
       * no new iteration starts after this many minutes from the run's start (0: no limit); the final evaluation still
       * runs
       */
      timeBudgetMinutes: z.number().min(0).default(0),
      /** tasks drawn (without replacement, seeded) per iteration */
      tasksPerIteration: z.number().int().min(1).default(4),
      groupSize: z.number().int().min(2).default(4),
      /** samples per evaluation task */
      evalSamples: z.number().int().min(1).default(1),
      /** evaluate before the steps of every Nth iteration (0: only after the last step) */
      evalEvery: z.number().int().min(0).default(0),
      /**
       * with a time budget, also evaluate before each of the last `evalTail − 1` iterations (estimated
       * from the mean time of the iterations so far), so that with the final evaluation the run ends
       * with `evalTail` evaluations in a row; 0 or 1: none
       */
      evalTail: z.number().int().min(0).default(0),
      /** at most this many evaluation tasks (the first ones by name); 0 for all */
      evalLimit: z.number().int().min(0).default(4),
      /**
       * the advantage estimator: a group estimator (grpo, grpo_sample_std, rloo, dr_grpo: one advantage per
       * episode) or a step estimator (gigpo: one per action, shared/math/gigpo.ts)
       */
      estimator: z.enum(estimatorNames as [string, ...string[]]).default('grpo'),
      /** estimator `gigpo`: the step-level weight, the discount of the return from a state, the normalisation */
      gigpo: z
        .object({
          omega: z.number().min(0).default(defaultGigpoOptions.omega),
          gamma: z.number().gt(0).max(1).default(defaultGigpoOptions.gamma),
          normalise: z.enum(['std', 'none']).default(defaultGigpoOptions.normalise),
        })
        .strict()
        .default(defaultGigpoOptions),
      /**
       * truncated episodes (turn, token or time limit): `zero` (reward 0), `drop` (left out), or `bootstrap`
       * (reward 0 plus the critic's value at the last state: a critic estimator only)
       */
      truncation: z
        .enum([TruncationPolicies.zero, TruncationPolicies.drop, TruncationPolicies.bootstrap])
        .default('zero'),
      /** critic estimators (gae, gae_turn): the discount, lambda, the value loss's weight and clip, whitening */
      critic: CriticSettings.omit({ estimator: true }).default({}),
      checker: z.enum(CheckerKinds).default('strict'),
      /** episodes in flight at once */
      concurrency: z.number().int().min(1).max(256).default(3),
      seed: z.number().int().min(0).default(0),
      sampling: SamplingOptions.omit({ seed: true, window: true }).partial().default({}),
      budgets: EpisodeBudgets.partial().default({}),
      /**
       * base URL of the server the run publishes its policies to: the embedded policy server (toy),
       * or a vLLM-compatible server of the named model; @default http://127.0.0.1:8100, a real model's
       * http://127.0.0.1:8102 (its embedded server)
       */
      policyServer: z.string().url().default(toyPolicyServer),
      /**
       * the policy model: the embedded toy one (`{name: "toy"}` or no name; its size), or a Hugging Face
       * causal LM of shared/models.json by name (`{name: "smollm2-135m-instruct"}`), whose presets fill
       * the fields the input leaves out (applyModelPresets)
       */
      model: RunModel,
      /** the optimizer's learning rate (a model's presets set its own) */
      lr: z.number().positive().default(1e-3),
      clipEps: z.number().positive().lt(1).default(0.2),
      /**
       * weight of KL(policy || warm-started policy) in the policy-gradient loss (k3 estimator), which
       * keeps the policy near the format it was taught while rewards are sparse; 0 (or no warm start): none
       */
      klCoef: z.number().min(0).default(0.03),
      aggregation: z.enum(LossAggregations).default('token_mean'),
      /** `seq_mean_token_sum_norm` (Dr. GRPO): the constant per-sequence divisor; @default the model's window */
      lossScaleFactor: z.number().positive().optional(),
      /** dual-clip: a token with A < 0 contributes at most clipRatioC × |A|; null: off */
      clipRatioC: z.number().gt(1).nullable().default(trainerDefaults.clipRatioC),
      /** every log-ratio is clamped to ±logRatioClamp before exp */
      logRatioClamp: z.number().positive().max(80).default(trainerDefaults.logRatioClamp),
      /** `token`, or `sequence` (GSPO's sequence-level ratio) */
      ratioLevel: z.enum(RatioLevels).default(trainerDefaults.ratioLevel),
      /** the estimator of `klCoef`'s penalty: k1, k2, k3 or low_var_kl */
      klEstimator: z.enum(KlEstimators).default(trainerDefaults.klEstimator),
      /**
       * which tokens the policy-gradient loss trains on: `actions` (the policy's own tokens), or `all` (the
       * observations too: the loss-mask ablation of Search-R1; only with `ablation: true`, and the manifest warns)
       */
      lossMask: z.enum(['actions', 'all']).default('actions'),
      /** this run is an ablation: settings that make a worse policy on purpose are allowed */
      ablation: z.boolean().default(false),
      /**
       * weight of the stop decisions' own credit: training episodes grade the state at every passed
       * check of a changed repository (probes), and the token that chose `submit` or going on there
       * gets g − group mean (submit) or R − g (going on) on top of the episode's advantage, where g is
       * the reward submitting there earns (shared/math/batch.ts stopDecisionAdvantages); 0: off, no probes
       */
      stopCredit: z.number().min(0).default(5),
      epochs: z.number().int().min(1).default(4),
      minibatches: z.number().int().min(1).default(2),
      /**
       * `sync`: every iteration waits for its slowest episode, then trains. `async`: sampling never waits
       * for training (a pool of `concurrency` episodes in flight, whole groups admitted, a step as soon as
       * `groupsPerStep` groups completed), bounded by `maxStaleness`; `iterations` then counts steps
       */
      mode: z.enum(['sync', 'async']).default('sync'),
      /**
       * async: η, the staleness bound (in versions) of every trained token: admission pauses while the
       * sampler is η steps ahead of the trainer, and a group holding a token staler than η when its batch
       * is cut is dropped (counted as stale); @default 2
       */
      maxStaleness: z.number().int().min(0).optional(),
      /** async: groups per trainer step; @default tasksPerIteration */
      groupsPerStep: z.number().int().min(1).optional(),
      /**
       * async: `turn` (default): an episode in flight samples the newest published version from its next turn on;
       * `episode`: it stays on its first
       */
      versionSwitch: z.enum(['turn', 'episode']).optional(),
      /**
       * async: park training episodes after each segment of this budget; they resume on a newer version or when nothing
       * else can run
       */
      segment: SegmentBudget.optional(),
      /** async: at most this many parked episodes; beyond it the longest parked resumes at once @default 64 */
      maxParked: z.number().int().min(1).optional(),
      /** the trainer's correction of tokens from older versions (shared/math/off-policy.ts) */
      offPolicy: z.enum(OffPolicyModes).default('none'),
      /** the importance-weight cap of `tis` and `decoupled` */
      isCap: z.number().positive().default(defaultIsCap),
      /**
       * format demonstrations before the first iteration: demo:format episodes (a chat model's:
       * demo:tools), imitated whatever their outcome; `lr`: the imitation's own learning rate
       * (@default the run's `lr`)
       */
      warmStart: z
        .object({
          episodes: z.number().int().min(0).default(16),
          epochs: z.number().int().min(1).default(20),
          lr: z.number().positive().optional(),
        })
        .strict()
        .default({ episodes: 16, epochs: 20 }),
      /** internal: carried across continue-as-new and resumptions; never set by callers */
      state: TrainingRunState.optional(),
    })
    .strict()
    .superRefine((input, context) => {
      const asyncOnly = (['maxStaleness', 'groupsPerStep', 'versionSwitch', 'segment', 'maxParked'] as const).filter(
        (key) => input[key] !== undefined,
      );
      if (input.mode === 'sync' && asyncOnly.length) {
        context.addIssue({
          code: 'custom',
          path: [asyncOnly[0]!],
          message: `${asyncOnly.join(', ')}: only for mode "async" (a synchronous iteration waits for every episode)`,
        });
      }
      const hf = hfModelOf(input);
      if (hf && input.sampling.chat && input.sampling.chat.tokenizer !== hf.tokenizer) {
        const given = JSON.stringify(input.sampling.chat.tokenizer);
        context.addIssue({
          code: 'custom',
          path: ['sampling', 'chat', 'tokenizer'],
          message: `${hf.name} uses the tokenizer ${hf.tokenizer}, not ${given}`,
        });
      }
      if (input.truncation === 'bootstrap' && !isCriticEstimator(input.estimator)) {
        context.addIssue({
          code: 'custom',
          path: ['truncation'],
          message: `truncation "bootstrap" takes the critic's value at the last state: it needs estimator "gae" or "gae_turn", not "${input.estimator}"`,
        });
      }
      if (input.lossMask === 'all' && !input.ablation) {
        context.addIssue({
          code: 'custom',
          path: ['lossMask'],
          message:
            'lossMask "all" trains on environment tokens: only for the loss-mask ablation (set ablation: true; ' +
            'the run manifest then warns that its policy is not one to use)',
        });
      }
      if (input.mode === 'async' && hf) {
        // its embedded server (like vLLM and SGLang) serves one version: an episode pinned to one fails after a publish
        context.addIssue({
          code: 'custom',
          path: ['mode'],
          message:
            `mode "async" runs the toy model only; ${hf.name} trains with mode "sync" (its server serves ` +
            `one weight version at a time)`,
        });
      }
      if (input.mode === 'async' && input.segment && (input.maxStaleness ?? defaultMaxStaleness) === 0) {
        context.addIssue({
          code: 'custom',
          path: ['segment'],
          message:
            'segments with maxStaleness 0 are refused: a parked episode resumes on a newer version, whose ' +
            'tokens would be stale',
        });
      }
    }),
);
export type TrainingRunInput = z.infer<typeof TrainingRunInput>;
export type ToyModel = z.infer<typeof ToyRunModel>;

/** The toy model's name and size when the run trains it, else null. */
export function toyModelOf(input: Pick<TrainingRunInput, 'model'>): ToyModel | null {
  return input.model.name === 'toy' ? (input.model as ToyModel) : null;
}

/** The model of a run when it is a Hugging Face causal LM (its name and its entry of shared/models.json), else null. */
export function hfModelOf(input: Pick<TrainingRunInput, 'model'>): { name: string; tokenizer: string } | null {
  if (input.model.name === 'toy') return null;
  const entry = models[input.model.name]!;
  return { name: input.model.name, tokenizer: entry.tokenizer! };
}

/** Whether a time-budgeted run has spent its budget (a run without one never has). */
export function budgetSpent(
  input: Pick<TrainingRunInput, 'timeBudgetMinutes'>,
  state: Pick<TrainingRunState, 'startedAtMs'>,
  nowMs: number,
): boolean {
  return input.timeBudgetMinutes > 0 && nowMs - state.startedAtMs > input.timeBudgetMinutes * 60_000;
}

/**
 * Whether the iteration about to start is one of the last `evalTail − 1` of a time-budgeted run:
 * the iterations that can still start (this one included) are counted from the time left and the
 * mean time of an iteration and of an evaluation so far. False before any iteration was timed.
 */
export function inEvalTail(
  input: Pick<TrainingRunInput, 'timeBudgetMinutes' | 'evalTail'>,
  state: Pick<TrainingRunState, 'startedAtMs' | 'timing'>,
  nowMs: number,
): boolean {
  const timing = state.timing;
  if (input.timeBudgetMinutes <= 0 || input.evalTail <= 1 || !timing || timing.iterations === 0) return false;
  const leftS = input.timeBudgetMinutes * 60 - (nowMs - state.startedAtMs) / 1000;
  if (leftS < 0) return false;
  const cycleS =
    timing.iterationS / timing.iterations + (timing.evaluations ? timing.evaluationS / timing.evaluations : 0);
  const starting = Math.floor(leftS / Math.max(cycleS, 1e-3)) + 1;
  return starting <= input.evalTail - 1;
}

export interface TrainingProgress {
  runId: string;
  /** `stopping`: an asynchronous run letting its episodes go (at its end, or cancelled) */
  phase:
    | 'setting-up'
    | 'warm-start'
    | 'sampling'
    | 'training'
    | 'publishing'
    | 'stopping'
    | 'evaluating'
    | 'reporting'
    | 'done';
  iteration: number;
  iterations: number;
  episodesDone: number;
  episodesTotal: number;
  step: number;
  policyVersion: string | null;
  last: IterationMetrics | null;
  /** episodes of this run that ended in an environment failure and were run again */
  resampled?: number;
  /**
   * asynchronous runs: episodes in flight (parked included), parked, complete groups waiting for a batch, and whether
   * the trainer is busy
   */
  pool?: { inFlight: number; parked: number; ready: number; training: boolean };
}

/**
 * The stop credit a run applies: its `stopCredit`, except with a critic estimator, whose values credit the
 * stop decisions themselves (the trainer's GAE replaces the batch's advantages); then 0, and no probes run.
 */
export function effectiveStopCredit(input: Pick<TrainingRunInput, 'stopCredit' | 'estimator'>): number {
  return isCriticEstimator(input.estimator) ? 0 : input.stopCredit;
}

/** Whether a run's training episodes grade their stop points (probes): for the stop credit, or a privileged critic. */
export function probesStops(input: Pick<TrainingRunInput, 'stopCredit' | 'estimator' | 'critic'>): boolean {
  return effectiveStopCredit(input) > 0 || (isCriticEstimator(input.estimator) && input.critic.privileged === true);
}

/**
 * Input of `trainingRun`: one JSON object where every field has a default, so `{}` starts a short
 * run on the bundled suite from the Temporal UI or `npx agentrl train`. Settings that belong
 * together travel as named blocks (model, sampling, evaluation, credit, loss, optimizer, async),
 * each with its own defaults and rules; inputs and saved runs from before the blocks, which held
 * them at one level, still read (`formerFlatNames`).
 */
import { z } from 'zod';
import { servingPorts } from '../../names/serving-ports';
import { CheckerKinds } from '../episode';
import { EpisodeBudgets, SamplingOptions } from '../episode-input';
import { bothNames, readingRenamed, withNewNames } from '../renamed-fields';
import { AsyncSettings, refineAsyncRun } from './async';
import { CreditSettings } from './credit';
import { EvaluationSettings } from './evaluation';
import { LossSettings, OptimizerSettings } from './loss';
import { hfModelOf, RunModel } from './model';
import { applyModelPresets } from './presets';
import { TrainingRunState } from './state';

/** The embedded policy server of the toy model. */
const toyPolicyServer = `http://127.0.0.1:${servingPorts.trainingPolicy}`;

/**
 * The names the input's fields had when it held them at one level, and where each lives now: the
 * one reader of those inputs (runs started from the Temporal UI or CLI with old JSON, continue-as-new
 * inputs in histories, manifests of runs to resume).
 */
export const formerFlatNames = {
  evalTasks: 'evaluation.tasks',
  evalSamples: 'evaluation.samples',
  evalEvery: 'evaluation.every',
  evalTail: 'evaluation.tail',
  evalLimit: 'evaluation.limit',
  estimator: 'credit.estimator',
  truncation: 'credit.truncation',
  gigpo: 'credit.gigpo',
  critic: 'credit.critic',
  stopCredit: 'credit.stopCredit',
  clipEps: 'loss.clipEps',
  clipRatioC: 'loss.clipRatioC',
  logRatioClamp: 'loss.logRatioClamp',
  ratioLevel: 'loss.ratioLevel',
  aggregation: 'loss.aggregation',
  lossScaleFactor: 'loss.scaleFactor',
  klCoef: 'loss.klCoef',
  klEstimator: 'loss.klEstimator',
  lossMask: 'loss.mask',
  offPolicy: 'loss.offPolicy',
  isCap: 'loss.isCap',
  lr: 'optimizer.lr',
  epochs: 'optimizer.epochs',
  minibatches: 'optimizer.minibatches',
  maxStaleness: 'async.maxStaleness',
  groupsPerStep: 'async.groupsPerStep',
  versionSwitch: 'async.versionSwitch',
  segment: 'async.segment',
  maxParked: 'async.maxParked',
} as const;

const RunInputFields = z
  .object({
    /** names the run's folder and its episodes; @default the workflow id */
    runId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'runId: letters, digits, ".", "_" and "-" only')
      .optional(),
    /** a folder of task folders (each with task.yaml), relative to the project root */
    tasks: z.string().min(1).default('tasks/suite/train'),
    iterations: z.number().int().min(1).default(2),
    /**
     * no new iteration starts after this many minutes from the run's start (0: no limit); the final evaluation still
     * runs
     */
    timeBudgetMinutes: z.number().min(0).default(0),
    /** tasks drawn (without replacement, seeded) per iteration */
    tasksPerIteration: z.number().int().min(1).default(4),
    groupSize: z.number().int().min(2).default(4),
    checker: z.enum(CheckerKinds).default('strict'),
    /**
     * an agent harness (shared/harnesses.json) every episode runs unmodified in its sandbox, calling the policy through
     * the model gateway; absent: the policy's own agent interface takes the turns
     */
    harness: z.string().min(1).optional(),
    /** episodes in flight at once */
    concurrency: z.number().int().min(1).max(256).default(3),
    seed: z.number().int().min(0).default(0),
    /**
     * the policy model: the embedded toy one (`{name: "toy"}` or no name; its size), or a Hugging Face
     * causal LM of shared/models.json by name (`{name: "smollm2-135m-instruct"}`), whose presets fill
     * the fields the input leaves out (run/presets.ts)
     */
    model: RunModel,
    /**
     * base URL of the server the run publishes its policies to: the embedded policy server (toy),
     * or a vLLM-compatible server of the named model; @default http://127.0.0.1:8100, a real model's
     * http://127.0.0.1:8102 (its embedded server)
     */
    policyServer: z.string().url().default(toyPolicyServer),
    sampling: SamplingOptions.omit({ seed: true, window: true }).partial().default({}),
    budgets: EpisodeBudgets.partial().default({}),
    evaluation: EvaluationSettings.prefault({}),
    credit: CreditSettings.prefault({}),
    loss: LossSettings.prefault({}),
    optimizer: OptimizerSettings.prefault({}),
    /**
     * demonstrations imitated before the first iteration. The toy model's: demo:format episodes (random valid
     * edits), imitated whatever their outcome. A chat model's: demo:solve episodes (the reference fix of each
     * training task, in the model's tool calls), imitated only where the strict checker and the audit both passed
     * them, plus the solved training episodes of the runs `solvedFrom` names (their solved.jsonl; never one of a task
     * this run evaluates on). `lr`: the imitation's own learning rate (@default the run's `optimizer.lr`)
     */
    warmStart: z
      .object({
        episodes: z.number().int().min(0).default(16),
        epochs: z.number().int().min(1).default(20),
        lr: z.number().positive().optional(),
        /** the imitation's minibatches per epoch (@default the run's `optimizer.minibatches`) */
        minibatches: z.number().int().min(1).optional(),
        solvedFrom: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .default({ episodes: 16, epochs: 20, solvedFrom: [] }),
    /**
     * the trainer keeps the checkpoints of the run's last `keepCheckpoints` steps and the KL anchor's, and removes
     * older ones once a step is recorded (a SmolLM2 checkpoint, weights and optimizer state, is about 1.5 GB); null:
     * every step's. The exported policies (`policies/vN`) are all kept.
     */
    keepCheckpoints: z.number().int().min(1).nullable().default(null),
    /** this run is an ablation: settings that make a worse policy on purpose are allowed */
    ablation: z.boolean().default(false),
    /**
     * `sync`: every iteration waits for its slowest episode, then trains. `async`: sampling never waits
     * for training (a pool of `concurrency` episodes in flight, whole groups admitted, a step as soon as
     * `async.groupsPerStep` groups completed), bounded by `async.maxStaleness`; `iterations` then counts steps
     */
    mode: z.enum(['sync', 'async']).default('sync'),
    /** mode `async` only: its staleness bound, groups per step, version switch, segments, parked episodes */
    async: AsyncSettings.optional(),
    /** internal: carried across continue-as-new and resumptions; never set by callers */
    state: TrainingRunState.optional(),
  })
  .strict()
  .superRefine((input, context) => {
    const hf = hfModelOf(input);
    refineAsyncRun(input, hf?.name ?? null, context);
    if (hf && input.sampling.chat && input.sampling.chat.tokenizer !== hf.tokenizer) {
      const given = JSON.stringify(input.sampling.chat.tokenizer);
      context.addIssue({
        code: 'custom',
        path: ['sampling', 'chat', 'tokenizer'],
        message: `${hf.name} uses the tokenizer ${hf.tokenizer}, not ${given}`,
      });
    }
    if (input.loss.mask === 'all' && !input.ablation) {
      context.addIssue({
        code: 'custom',
        path: ['loss', 'mask'],
        message:
          'loss.mask "all" trains on environment tokens: only for the loss-mask ablation (set ablation: true; ' +
          'the run manifest then warns that its policy is not one to use)',
      });
    }
  });

/** The run's input: old flat names read into their blocks, a real model's presets under it, then checked. */
export const TrainingRunInput = readingRenamed(formerFlatNames, z.preprocess(applyModelPresets, RunInputFields));
export type TrainingRunInput = z.infer<typeof TrainingRunInput>;

/**
 * A raw input under today's names and nothing else changed (no defaults), for a caller that sets fields of its blocks
 * before the run parses it (the CLI's options); a field given under both names throws, naming `source`.
 */
export function runInputWithNewNames(raw: Record<string, unknown>, source: string): Record<string, unknown> {
  const { record, conflicts } = withNewNames(raw, formerFlatNames);
  if (conflicts.length) throw new Error(`${source}: ${conflicts.map(([old, now]) => bothNames(old, now)).join('; ')}`);
  return record as Record<string, unknown>;
}

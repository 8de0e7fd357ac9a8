import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { z } from 'zod';
import type { BuiltBatch, EpisodeActivities } from '../activities';
import { describeIssues, ErrorTypes } from '../shared/names/errors';
import { isCriticEstimator } from '../shared/math/advantages';
import { formatPolicySpec } from '../shared/contracts/policy-spec';
import { TrainOnBatchInput, TrainOnBatchResult, type TrainerActivities } from '../shared/contracts/trainer-contract';
import type { EpisodeResult } from '../shared/contracts/episode';
import { storeRefOf } from '../shared/paths/store-refs';
import {
  hfModelOf,
  toyModelOf,
  type TrainingProgress,
  type TrainingRunInput,
  type TrainingRunState,
} from '../shared/contracts/training-run';
import { phaseSums, type IterationMetrics } from '../shared/contracts/run-metrics';
import { episodeWorkflowId, type EpisodeSpec } from './training-episodes';

// What a training run's phases share, synchronous or not: the run's record, its activities, one
// trainer step and its publication.

export const activities = proxyActivities<EpisodeActivities>({
  // file-system work and one HTTP call; a batch of a few hundred episodes takes seconds
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [ErrorTypes.invalidInput] },
});

/**
 * Publishing waits for the policy server as long as it takes (a supervisor restarts a dead one):
 * capped backoff, no attempt limit, bounded by an hour. Loading the same weights twice is harmless.
 */
export const publisher = proxyActivities<EpisodeActivities>({
  startToCloseTimeout: '5 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    nonRetryableErrorTypes: [ErrorTypes.invalidInput],
  },
});

/** What the run's phases share: its input, the state carried between iterations and the progress it reports. */
export interface Run {
  input: TrainingRunInput;
  runId: string;
  progress: TrainingProgress;
  state: TrainingRunState;
  /** prefixes the episodes' workflow ids; a resumed run's carries its epoch, so re-run episodes get fresh ids */
  prefix: string;
  trainer: TrainerActivities;
}

/** What the trainer needs to know of the run's model: the toy model's size, or a real model's name. */
export function trainerModel(input: TrainingRunInput): { modelConfig: Record<string, unknown> } | { model: string } {
  const hf = hfModelOf(input);
  if (hf) return { model: hf.name };
  const { name: _name, ...size } = toyModelOf(input)!;
  return { modelConfig: size };
}

/**
 * What the batch builder needs to know of the run's model: the toy vocabulary, or a chat model's interface and
 * tokenizer.
 */
export function batchModel(
  input: TrainingRunInput,
): { vocabSize: number } | { agentInterface: 'chat-tools'; chatTokenizer: string } {
  const hf = hfModelOf(input);
  if (hf) return { agentInterface: 'chat-tools', chatTokenizer: hf.tokenizer };
  return { vocabSize: toyModelOf(input)!.vocabSize };
}

/** One trainer step on a batch, idempotent by its step id; `lr` replaces the run's learning rate (a warm start's). */
export async function trainStep(
  run: Run,
  batch: BuiltBatch,
  objective: 'policy_gradient' | 'imitation',
  epochs: number,
  maxStaleness?: number,
  lr?: number,
): Promise<TrainOnBatchResult> {
  const { input, state } = run;
  const step = state.policy.step + 1;
  run.progress.phase = 'training';
  const request = checked(
    TrainOnBatchInput,
    {
      runRef: state.runRef,
      stepId: `${run.runId}-step-${step}`,
      step,
      batchRef: storeRefOf(batch.batchRef, (batch as { batchPath?: string }).batchPath),
      seed: input.seed,
      ...trainerModel(input),
      optimizer: { lr: lr ?? input.lr },
      temperature: input.sampling.temperature ?? 1,
      clipEps: input.clipEps,
      aggregation: input.aggregation,
      ...(input.lossScaleFactor !== undefined ? { lossScaleFactor: input.lossScaleFactor } : {}),
      clipRatioC: input.clipRatioC,
      logRatioClamp: input.logRatioClamp,
      ratioLevel: input.ratioLevel,
      klEstimator: input.klEstimator,
      epochs,
      minibatches: input.minibatches,
      objective,
      // the KL anchor is the warm-started step
      ...(objective === 'policy_gradient' && input.klCoef > 0 && state.referenceStep
        ? { klCoef: input.klCoef, referenceStep: state.referenceStep }
        : {}),
      ...(objective === 'policy_gradient'
        ? { offPolicy: input.offPolicy, isCap: input.isCap, ...(maxStaleness !== undefined ? { maxStaleness } : {}) }
        : {}),
      // a critic estimator: the trainer's value head gives the advantages
      ...(objective === 'policy_gradient' && isCriticEstimator(input.estimator)
        ? { critic: { ...input.critic, estimator: input.estimator } }
        : {}),
    },
    'trainOnBatch input',
  );
  return checked(TrainOnBatchResult, await run.trainer.trainOnBatch(request), 'trainOnBatch result');
}

/**
 * Publishes a step's weights to the policy server; later episodes sample them. A real model's
 * server is told the version (the trainer's name for the step), the toy one's names it.
 */
export async function publish(
  run: Run,
  result: { step: number; policyRef: string; policyVersion: string },
): Promise<string> {
  run.progress.phase = 'publishing';
  const version = await publishWeights(run.input, result.policyRef, result.policyVersion);
  run.state.policy = { step: result.step, version, policyRef: result.policyRef };
  run.state.versions[version] = result.step;
  run.progress.step = result.step;
  run.progress.policyVersion = version;
  return version;
}

/** Loads weights into the run's policy server; returns the version it serves them as. */
export function publishWeights(input: TrainingRunInput, policyRef: string, version: string): Promise<string> {
  return hfModelOf(input)
    ? publisher.publishPolicy({ url: input.policyServer, policyRef, api: 'vllm', version })
    : publisher.publishPolicy({ url: input.policyServer, policyRef });
}

/**
 * The policy the run samples with, pinned to the version it published: every request names it, so
 * weights another run publishes to the same server are never sampled in its place (a server that
 * no longer serves it fails the episode as a policy_error, never trained on). A real model is
 * driven through the vLLM client (token ids in and out, native tool calls).
 */
export function servedPolicy(run: Run): string {
  const kind = hfModelOf(run.input) ? 'vllm' : 'completions';
  return formatPolicySpec({ kind, url: run.input.policyServer, version: run.state.policy.version });
}

/** The evaluation's episodes of the policy now served: each evaluation task `evalSamples` times, never trained on. */
export function evaluationEpisodes(run: Run, label: string): EpisodeSpec[] {
  const policy = servedPolicy(run);
  return run.state.evalTasks.flatMap((task) =>
    Array.from({ length: run.input.evalSamples }, (_, sample): EpisodeSpec => ({
      id: episodeWorkflowId(run.prefix, label, task, sample),
      task,
      policy,
      sample,
      group: task,
    })),
  );
}

/** A value checked against its contract; a mismatch fails the run instead of retrying a workflow task forever. */
export function checked<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(describeIssues(what, parsed.error), ErrorTypes.invalidInput);
}

/**
 * The batch, training and time figures of one metrics line, from its episodes, its batch and its step (null: no step).
 */
export function stepFigures(
  results: readonly EpisodeResult[],
  batch: BuiltBatch,
  training: TrainOnBatchResult | null,
  wallMs: number,
): Pick<IterationMetrics, 'batch' | 'training' | 'time'> {
  return {
    batch: {
      rows: batch.rows,
      tokens: batch.tokens,
      generatedTokens: batch.generatedTokens,
      counts: { ...batch.counts },
    },
    training: training
      ? {
          loss: training.metrics.loss,
          meanRatio: training.metrics.meanRatio,
          clipFraction: training.metrics.clipFraction,
          klK3: training.metrics.klK3,
          klRef: training.metrics.klRef ?? null,
          gradNorm: training.metrics.gradNorm,
          skipped: training.metrics.skipped,
          ...(training.metrics.mismatchKl !== undefined ? { mismatchKl: training.metrics.mismatchKl } : {}),
          ...(training.metrics.mismatch !== undefined ? { mismatch: { ...training.metrics.mismatch } } : {}),
          ...(training.metrics.clipFractionLower !== undefined
            ? { clipFractionLower: training.metrics.clipFractionLower }
            : {}),
          ...(training.metrics.klSampling !== undefined ? { klSampling: { ...training.metrics.klSampling } } : {}),
          ...(training.metrics.critic !== undefined ? { critic: { ...training.metrics.critic } } : {}),
        }
      : null,
    time: {
      sandboxS:
        results.reduce((sum, result) => sum + result.timings.acquireMs + result.timings.turnsMs, -batch.inferenceMs) /
        1000,
      testsS: results.reduce((sum, result) => sum + result.timings.scoringMs, 0) / 1000,
      probesS: results.reduce((sum, result) => sum + (result.timings.probeMs ?? 0), 0) / 1000,
      phases: phaseSums(results),
      inferenceS: batch.inferenceMs / 1000,
      trainingS: (training?.durationMs ?? 0) / 1000,
      wallS: wallMs / 1000,
    },
  };
}

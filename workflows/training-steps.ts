import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { z } from 'zod';
import type { BuildBatchInput, BuiltBatch, EpisodeActivities } from '../activities';
import { describeIssues, ErrorTypes } from '../shared/names/errors';
import { isCriticEstimator } from '../shared/math/advantages';
import { formatPolicySpec } from '../shared/contracts/policy-spec';
import { TrainOnBatchInput, TrainOnBatchResult, type TrainerActivities } from '../shared/contracts/trainer-contract';
import type { EpisodeResult } from '../shared/contracts/episode';
import { storeRefOf } from '../shared/paths/store-refs';
import { effectiveStopCredit } from '../shared/contracts/run/credit';
import type { TrainingRunInput } from '../shared/contracts/run/input';
import { hfModelOf, toyModelOf } from '../shared/contracts/run/model';
import type { TrainingProgress } from '../shared/contracts/run/progress';
import type { TrainingRunState } from '../shared/contracts/run/state';
import { phaseSums, type IterationMetrics } from '../shared/contracts/run-metrics';
import { batchEpisode, episodeWorkflowId, type EpisodeSpec, type GroupedResult } from './training-episodes';

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
function batchModel(
  input: TrainingRunInput,
): { vocabSize: number } | { agentInterface: 'chat-tools'; chatTokenizer: string } {
  const hf = hfModelOf(input);
  if (hf) return { agentInterface: 'chat-tools', chatTokenizer: hf.tokenizer };
  return { vocabSize: toyModelOf(input)!.vocabSize };
}

/**
 * The buildBatch request of a run's episodes: a warm start's demonstrations (`imitation`), or an iteration's or an
 * asynchronous step's episodes (`policy_gradient`: with the run's stop credit, GiGPO settings, loss mask and a
 * privileged critic's features; `baseStep`: the step the trainer starts from, against which staleness is measured).
 */
export function batchRequest(
  run: Run,
  name: string,
  results: readonly GroupedResult[],
  objective: 'policy_gradient' | 'imitation',
  baseStep?: number,
): BuildBatchInput {
  const { input, state } = run;
  const { credit } = input;
  return {
    runRef: state.runRef,
    name,
    episodes: results.map(batchEpisode),
    objective,
    estimator: credit.estimator,
    truncation: credit.truncation,
    versions: state.versions,
    ...batchModel(input),
    ...(objective === 'policy_gradient'
      ? {
          stopCredit: effectiveStopCredit(credit),
          ...(credit.estimator === 'gigpo' ? { gigpo: credit.gigpo } : {}),
          ...(input.loss.mask === 'all' ? { lossMask: input.loss.mask } : {}),
          ...(isCriticEstimator(credit.estimator) && credit.critic.privileged ? { privileged: true } : {}),
        }
      : {}),
    ...(baseStep !== undefined ? { baseStep } : {}),
  };
}

/**
 * One trainer step on a batch, idempotent by its step id: `imitation` (a warm start: its epochs and its own learning
 * rate) or `policy_gradient` (the run's loss; `maxStaleness`: an asynchronous run's bound, checked again by the
 * trainer).
 */
export async function trainStep(
  run: Run,
  batch: BuiltBatch,
  objective: 'policy_gradient' | 'imitation',
  maxStaleness?: number,
): Promise<TrainOnBatchResult> {
  const { input, state } = run;
  const { loss, optimizer, credit } = input;
  const step = state.policy.step + 1;
  const imitation = objective === 'imitation';
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
      optimizer: { lr: (imitation ? input.warmStart.lr : undefined) ?? optimizer.lr },
      temperature: input.sampling.temperature ?? 1,
      clipEps: loss.clipEps,
      aggregation: loss.aggregation,
      ...(loss.scaleFactor !== undefined ? { lossScaleFactor: loss.scaleFactor } : {}),
      clipRatioC: loss.clipRatioC,
      logRatioClamp: loss.logRatioClamp,
      ratioLevel: loss.ratioLevel,
      klEstimator: loss.klEstimator,
      epochs: imitation ? input.warmStart.epochs : optimizer.epochs,
      // never more minibatches than rows (a batch of groups with a zero advantage left out can be small)
      minibatches: Math.min((imitation ? input.warmStart.minibatches : undefined) ?? optimizer.minibatches, batch.rows),
      objective,
      // the KL anchor is the warm-started step
      ...(!imitation && loss.klCoef > 0 && state.referenceStep
        ? { klCoef: loss.klCoef, referenceStep: state.referenceStep }
        : {}),
      ...(input.keepCheckpoints ? { keepCheckpoints: input.keepCheckpoints } : {}),
      ...(!imitation
        ? { offPolicy: loss.offPolicy, isCap: loss.isCap, ...(maxStaleness !== undefined ? { maxStaleness } : {}) }
        : {}),
      // a critic estimator: the trainer's value head gives the advantages
      ...(!imitation && isCriticEstimator(credit.estimator)
        ? { critic: { ...credit.critic, estimator: credit.estimator } }
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

/**
 * The evaluation's episodes of the policy now served: each evaluation task `evaluation.samples` times, never trained
 * on.
 */
export function evaluationEpisodes(run: Run, label: string): EpisodeSpec[] {
  const policy = servedPolicy(run);
  return run.state.evalTasks.flatMap((task) =>
    Array.from({ length: run.input.evaluation.samples }, (_, sample): EpisodeSpec => ({
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

import {
  ApplicationFailure, ParentClosePolicy, continueAsNew, defineQuery, executeChild, isCancellation, log, proxyActivities, setHandler, workflowInfo,
} from '@temporalio/workflow';
import type { BatchEpisode, BuiltBatch, createTrainingRunActivities } from '../activities/training-run';
import { emptyCounters, EpisodeInput, type EpisodeResult } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { Outcomes } from '../shared/outcomes';
import { seededSample } from '../shared/random';
import { describeIssues } from '../shared/task-spec';
import {
  inEvalTail, summariseEpisodes, TrainingRunInput, trainingProgressQueryName, type IterationMetrics, type PublishedPolicy, type TrainingProgress, type TrainingRunState,
} from '../shared/training-run';
import { rolloutEpisode } from './rollout-episode';

/** The queue of the Python trainer (trainer/agentrl_trainer/worker.py). */
export const trainingQueue = 'training';

type RunActivities = ReturnType<typeof createTrainingRunActivities>;

interface TrainResult {
  stepId: string;
  step: number;
  policyVersion: string;
  onnxPath: string;
  checkpointPath: string;
  metrics: { loss: number; meanRatio: number; clipFraction: number; klK3: number; klRef?: number; gradNorm: number; skipped: boolean };
  durationMs: number;
}

/** Implemented in Python (trainer/agentrl_trainer): one step per call, idempotent by step id. */
interface TrainerActivities {
  initPolicy(input: { runDir: string; seed: number; modelConfig: Record<string, number | boolean> }): Promise<{ step: 0; policyVersion: string; onnxPath: string }>;
  trainOnBatch(input: Record<string, unknown>): Promise<TrainResult>;
}

const run = proxyActivities<RunActivities>({
  // file-system work and one HTTP call; a batch of a few hundred episodes takes seconds
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [ErrorTypes.invalidInput] },
});

const trainer = proxyActivities<TrainerActivities>({
  taskQueue: trainingQueue,
  // a step on a CPU takes seconds to minutes; the heartbeat (every 2 s) notices a killed trainer
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2s', maximumInterval: '30s', maximumAttempts: 10, nonRetryableErrorTypes: ['InvalidInput', 'StepConflict', 'CheckpointUnreadable', 'NonFiniteUpdate'] },
});

export const trainingProgressQuery = defineQuery<TrainingProgress>(trainingProgressQueryName);

/**
 * A training run: per iteration, a group of episodes per drawn task (child workflows with
 * deterministic ids, bounded concurrency), a batch, one trainer step, the new weights published to
 * the policy server, and the iteration's metrics; continues as new between iterations.
 */
export async function trainingRun(rawInput: unknown = {}): Promise<{ runId: string; runDir: string; steps: number; policyVersion: string; reportPath: string }> {
  const parsed = TrainingRunInput.safeParse(rawInput ?? {});
  if (!parsed.success) throw ApplicationFailure.nonRetryable(describeIssues('training run input', parsed.error), ErrorTypes.invalidInput);
  const input = parsed.data;
  const runId = input.runId ?? workflowInfo().workflowId;
  const progress: TrainingProgress = {
    runId, phase: 'setting-up', iteration: input.state?.iteration ?? 0, iterations: input.iterations,
    episodesDone: 0, episodesTotal: 0, step: input.state?.policy.step ?? 0, policyVersion: input.state?.policy.version ?? null, last: input.state?.last ?? null,
  };
  setHandler(trainingProgressQuery, () => progress);
  const { state: _state, ...config } = input;
  const modelConfig = { ...input.model };

  let state = input.state;
  if (!state) {
    const setup = await run.setupRun({ runId, tasks: input.tasks, evalTasks: input.evalTasks, evalLimit: input.evalLimit, config: { ...config, runId } });
    if (setup.saved) {
      // a resumed run: continue from its last completed step with fresh episode ids
      state = { ...setup.saved, epoch: setup.saved.epoch + 1, startedAtMs: Date.now() };
      log.info('resuming training run', { runId, iteration: state.iteration, step: state.policy.step });
      await run.publishPolicy({ url: input.policyServer, onnxPath: state.policy.onnxPath });
    } else {
      const initial = await trainer.initPolicy({ runDir: setup.runDir, seed: input.seed, modelConfig });
      const version = await run.publishPolicy({ url: input.policyServer, onnxPath: initial.onnxPath });
      state = { runDir: setup.runDir, trainTasks: setup.trainTasks, evalTasks: setup.evalTasks, iteration: 0, policy: { step: 0, version, onnxPath: initial.onnxPath }, versions: { [version]: 0 }, warmStarted: false, epoch: 0, startedAtMs: Date.now(), last: null };
    }
    await run.saveRunState({ state });
  }
  const current: TrainingRunState = state;
  progress.step = current.policy.step;
  progress.policyVersion = current.policy.version;

  const episodeInput = (task: string, policy: string, sample: number, probeStops: boolean) =>
    EpisodeInput.parse({
      task,
      policy,
      checker: input.checker,
      probeStops,
      runId,
      budgets: input.budgets,
      sampling: { ...input.sampling, seed: input.seed * 1_000_003 + sample, window: input.model.context },
    });
  const prefix = current.epoch ? `${runId}.r${current.epoch}` : runId;

  /** Runs episodes as children, at most `concurrency` at once; a failed child counts as an environment failure. */
  const runEpisodes = async (specs: { id: string; task: string; policy: string; sample: number; group: string }[], probeStops = false): Promise<(EpisodeResult & { group: string })[]> => {
    progress.episodesDone = 0;
    progress.episodesTotal = specs.length;
    const results: (EpisodeResult & { group: string })[] = new Array(specs.length);
    let next = 0;
    const lane = async () => {
      while (next < specs.length) {
        const index = next++;
        const spec = specs[index]!;
        try {
          const result = await executeChild(rolloutEpisode, { workflowId: spec.id, args: [episodeInput(spec.task, spec.policy, spec.sample, probeStops)], parentClosePolicy: ParentClosePolicy.TERMINATE });
          results[index] = { ...result, group: spec.group };
        } catch (error) {
          if (isCancellation(error)) throw error;
          log.warn('episode failed; counted as an environment failure', { workflowId: spec.id, error: String(error) });
          results[index] = { ...failedEpisode(spec.id, spec.task, runId, String(error), applicationFailureTypes(error).includes(ErrorTypes.policyError) ? Outcomes.policyError : Outcomes.sandboxCrash), group: spec.group };
        }
        progress.episodesDone++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(input.concurrency, specs.length) }, lane));
    return results;
  };
  // pinned to the version this run published: weights another run publishes to the same server
  // fail the episodes (environment failures, never trained on) instead of being sampled
  const served = () => `completions:${input.policyServer}#${current.policy.version}`;
  const train = async (batch: BuiltBatch, objective: 'policy_gradient' | 'imitation', epochs: number): Promise<TrainResult> => {
    const step = current.policy.step + 1;
    progress.phase = 'training';
    return trainer.trainOnBatch({
      runDir: current.runDir, stepId: `${runId}-step-${step}`, step, batchPath: batch.batchPath, seed: input.seed, modelConfig,
      optimizer: { lr: input.lr }, temperature: input.sampling.temperature ?? 1, clipEps: input.clipEps, aggregation: input.aggregation,
      epochs, minibatches: input.minibatches, objective,
      ...(objective === 'policy_gradient' && input.klCoef > 0 && current.referenceStep ? { klCoef: input.klCoef, referenceStep: current.referenceStep } : {}),
    });
  };
  const publish = async (result: TrainResult): Promise<void> => {
    progress.phase = 'publishing';
    const version = await run.publishPolicy({ url: input.policyServer, onnxPath: result.onnxPath });
    const policy: PublishedPolicy = { step: result.step, version, onnxPath: result.onnxPath };
    current.policy = policy;
    current.versions[version] = result.step;
    progress.step = result.step;
    progress.policyVersion = version;
  };
  const evaluate = async (label: string) => {
    if (current.evalTasks.length === 0) return null;
    progress.phase = 'evaluating';
    const specs = current.evalTasks.flatMap((task) => Array.from({ length: input.evalSamples }, (_, sample) => ({ id: `${prefix}.${label}.${taskName(task)}.${sample}`, task, policy: served(), sample, group: task })));
    return summariseEpisodes(await runEpisodes(specs));
  };

  // warm start: format demonstrations (random valid edits), imitated without the edits' arguments
  if (!current.warmStarted && input.warmStart.episodes > 0 && current.policy.step === 0) {
    progress.phase = 'warm-start';
    const specs = Array.from({ length: input.warmStart.episodes }, (_, index) => {
      const task = current.trainTasks[index % current.trainTasks.length]!;
      return { id: `${prefix}.demo.${taskName(task)}.${index}`, task, policy: 'demo:format', sample: index, group: task };
    });
    const demos = await runEpisodes(specs);
    const batch = await run.buildBatch({ runDir: current.runDir, name: 'warm-start', episodes: demos.map(batchEpisode), objective: 'imitation', estimator: input.estimator, truncation: input.truncation, versions: current.versions, vocabSize: input.model.vocabSize });
    if (batch.rows > 0) {
      await publish(await train(batch, 'imitation', input.warmStart.epochs));
      current.referenceStep = current.policy.step;
    }
    current.warmStarted = true;
    await run.saveRunState({ state: current });
  }

  const iteration = current.iteration;
  const outOfTime = input.timeBudgetMinutes > 0 && Date.now() - current.startedAtMs > input.timeBudgetMinutes * 60_000;
  if (outOfTime) log.info('time budget spent: no further iterations', { runId, iteration });
  if (iteration < input.iterations && !outOfTime) {
    const started = Date.now();
    progress.iteration = iteration;
    const tasks = seededSample(current.trainTasks, input.tasksPerIteration, input.seed * 7919 + iteration);
    const evalNow = (input.evalEvery > 0 && iteration % input.evalEvery === 0) || inEvalTail(input, current, Date.now());
    const evalStarted = Date.now();
    const evalMetrics = evalNow ? await evaluate(`eval-${iteration}`) : null;
    const evalS = (Date.now() - evalStarted) / 1000;
    progress.phase = 'sampling';
    const specs = tasks.flatMap((task) => Array.from({ length: input.groupSize }, (_, sample) => ({ id: `${prefix}.it${iteration}.${taskName(task)}.${sample}`, task, policy: served(), sample: iteration * 10_000 + sample, group: `${iteration}:${task}` })));
    // the stop decisions' credit needs the grade of each passed check's state
    const results = await runEpisodes(specs, input.stopCredit > 0);
    const batch = await run.buildBatch({ runDir: current.runDir, name: `iteration-${String(iteration).padStart(4, '0')}`, episodes: results.map(batchEpisode), objective: 'policy_gradient', estimator: input.estimator, truncation: input.truncation, versions: current.versions, vocabSize: input.model.vocabSize, stopCredit: input.stopCredit });
    const sampledWith = current.policy;
    let training: TrainResult | null = null;
    if (batch.rows > 0) {
      training = await train(batch, 'policy_gradient', input.epochs);
      await publish(training);
    }
    const metrics: IterationMetrics = {
      iteration,
      step: current.policy.step,
      policyVersion: sampledWith.version,
      train: summariseEpisodes(results),
      eval: evalMetrics,
      batch: { rows: batch.rows, tokens: batch.tokens, generatedTokens: batch.generatedTokens, counts: { ...batch.counts } },
      training: training ? { loss: training.metrics.loss, meanRatio: training.metrics.meanRatio, clipFraction: training.metrics.clipFraction, klK3: training.metrics.klK3, klRef: training.metrics.klRef ?? null, gradNorm: training.metrics.gradNorm, skipped: training.metrics.skipped } : null,
      time: {
        sandboxS: results.reduce((sum, result) => sum + result.timings.acquireMs + result.timings.turnsMs, -batch.inferenceMs) / 1000,
        testsS: results.reduce((sum, result) => sum + result.timings.scoringMs, 0) / 1000,
        probesS: results.reduce((sum, result) => sum + (result.timings.probeMs ?? 0), 0) / 1000,
        inferenceS: batch.inferenceMs / 1000,
        trainingS: (training?.durationMs ?? 0) / 1000,
        wallS: (Date.now() - started) / 1000,
      },
    };
    progress.last = metrics;
    current.last = metrics;
    const timing = current.timing ?? { iterations: 0, iterationS: 0, evaluations: 0, evaluationS: 0 };
    current.timing = {
      iterations: timing.iterations + 1,
      iterationS: timing.iterationS + metrics.time.wallS - (evalMetrics ? evalS : 0),
      evaluations: timing.evaluations + (evalMetrics ? 1 : 0),
      evaluationS: timing.evaluationS + (evalMetrics ? evalS : 0),
    };
    await run.recordIteration({ runDir: current.runDir, metrics });
    current.iteration = iteration + 1;
    await run.saveRunState({ state: current });
    const budgetLeft = input.timeBudgetMinutes === 0 || Date.now() - current.startedAtMs <= input.timeBudgetMinutes * 60_000;
    if (current.iteration < input.iterations && budgetLeft) {
      return continueAsNew<typeof trainingRun>({ ...input, runId, state: current });
    }
  }

  // after the last step: the final policy on the evaluation tasks
  const evalStarted = Date.now();
  const finalEval = await evaluate(`eval-final-${current.policy.step}`);
  progress.phase = 'reporting';
  const reportPath = await run.recordIteration({
    runDir: current.runDir,
    // without evaluation tasks only the report is rewritten
    metrics: finalEval
      ? { iteration: current.iteration, step: current.policy.step, policyVersion: current.policy.version, train: null, eval: finalEval, batch: null, training: null, time: { sandboxS: 0, testsS: 0, probesS: 0, inferenceS: 0, trainingS: 0, wallS: (Date.now() - evalStarted) / 1000 } }
      : null,
  });
  progress.phase = 'done';
  return { runId, runDir: current.runDir, steps: current.policy.step, policyVersion: current.policy.version, reportPath };
}

function taskName(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}

function batchEpisode(result: EpisodeResult & { group: string }): BatchEpisode {
  return { episodeId: result.episodeId, groupId: result.group, outcome: result.outcome, reward: result.reward, trueSuccess: result.trueSuccess, stops: result.stops ?? [] };
}

/** The types of the application failures along an error's causes (a child's activity's, for one). */
function applicationFailureTypes(error: unknown): string[] {
  const types: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type) types.push(cause.type);
  }
  return types;
}

/**
 * A child that failed as a workflow (not as an episode outcome): an environment failure, never
 * trained on; `policy_error` when the policy could not be prepared (e.g. the server serves another
 * version), else `sandbox_crash`.
 */
function failedEpisode(workflowId: string, task: string, runId: string, error: string, outcome: typeof Outcomes.policyError | typeof Outcomes.sandboxCrash = Outcomes.sandboxCrash): EpisodeResult {
  return {
    workflowId, episodeId: `${workflowId}@failed`, runId, taskId: taskName(task), policyVersion: '', checker: 'strict', outcome, reward: null, trueSuccess: null,
    trueSuccessBasis: null, tamper: [], counters: emptyCounters(),
    trajectoryUri: '', scoringUri: null, error, timings: { acquireMs: 0, turnsMs: 0, scoringMs: 0 },
  };
}

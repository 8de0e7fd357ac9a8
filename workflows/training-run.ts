import {
  ApplicationFailure,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { describeIssues, ErrorTypes } from '../shared/names/errors';
import { formatPolicySpec } from '../shared/contracts/policy-spec';
import { seededSample } from '../shared/math/random';
import { trainingQueue } from '../shared/names/task-queues';
import { storeRefOf } from '../shared/paths/store-refs';
import {
  InitPolicyInput,
  InitPolicyResult,
  nonRetryableTrainerErrors,
  type TrainerActivities,
  type TrainOnBatchResult,
} from '../shared/contracts/trainer-contract';
import { probesStops } from '../shared/contracts/run/credit';
import { TrainingRunInput } from '../shared/contracts/run/input';
import { hfModelOf } from '../shared/contracts/run/model';
import { budgetSpent, inEvalTail, type TrainingProgress } from '../shared/contracts/run/progress';
import type { TrainingRunState } from '../shared/contracts/run/state';
import { summariseEpisodes, type EpisodeSetMetrics, type IterationMetrics } from '../shared/contracts/run-metrics';
import type { BatchEpisode } from '../activities';
import type { SolvedEpisode } from '../activities/training/run-records';
import { Outcomes } from '../shared/contracts/outcomes';
import type { EpisodeResult } from '../shared/contracts/episode';
import { runAsync } from './async-training';
import { EpisodeEvent, episodeEventSignal, parsePayload, trainingProgressQuery } from './messages';
import { episodeWorkflowId, runEpisodes, type EpisodeSpec } from './training-episodes';
import {
  activities,
  batchRequest,
  checked,
  evaluationEpisodes,
  publish,
  publishWeights,
  servedPolicy,
  stepFigures,
  trainerModel,
  trainStep,
  type Run,
} from './training-steps';

export interface TrainingRunResult {
  runId: string;
  runRef: string;
  steps: number;
  policyVersion: string;
  reportRef: string;
}

/**
 * A training run: per iteration, a group of episodes per drawn task (child workflows with
 * deterministic ids, bounded concurrency), a batch, one trainer step, the new weights published to
 * the policy server, and the iteration's metrics; continues as new between iterations.
 */
export async function trainingRun(rawInput: unknown = {}): Promise<TrainingRunResult> {
  const parsed = TrainingRunInput.safeParse(rawInput ?? {});
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(describeIssues('training run input', parsed.error), ErrorTypes.invalidInput);
  const input = parsed.data;
  const runId = input.runId ?? workflowInfo().workflowId;
  const progress: TrainingProgress = {
    runId,
    phase: 'setting-up',
    iteration: input.state?.iteration ?? 0,
    iterations: input.iterations,
    episodesDone: 0,
    episodesTotal: 0,
    step: input.state?.policy.step ?? 0,
    policyVersion: input.state?.policy.version ?? null,
    last: input.state?.last ?? null,
  };
  setHandler(trainingProgressQuery, () => progress);
  // an asynchronous run's episodes report here by signal, whichever run of the chain is current
  const events: EpisodeEvent[] = [];
  setHandler(episodeEventSignal, (raw) => {
    const event = parsePayload(EpisodeEvent, raw);
    if (event.ok) events.push(event.value);
    else log.warn('episode event ignored: not an episode event', { error: event.error });
  });
  const trainer = proxyActivities<TrainerActivities>({
    // the Python worker's queue derives from this run's: a second deployment never meets this trainer
    taskQueue: trainingQueue(workflowInfo().taskQueue),
    // a step on a CPU takes seconds to minutes; the heartbeat (every 2 s) notices a killed trainer
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30 seconds',
    retry: {
      initialInterval: '2s',
      maximumInterval: '30s',
      maximumAttempts: 10,
      nonRetryableErrorTypes: nonRetryableTrainerErrors,
    },
  });
  const state = input.state ?? (await setUpRun(input, runId, trainer));
  progress.step = state.policy.step;
  progress.policyVersion = state.policy.version;
  const run: Run = { input, runId, progress, state, prefix: state.epoch ? `${runId}.r${state.epoch}` : runId, trainer };

  if (!state.warmStarted && input.warmStart.episodes > 0 && state.policy.step === 0) await warmStart(run);

  if (input.mode === 'async') {
    if ((await runAsync(run, events)) === 'continue')
      return continueAsNew<typeof trainingRun>({ ...input, runId, state });
    return finish(run);
  }
  const outOfTime = budgetSpent(input, state, Date.now());
  if (outOfTime) log.info('time budget spent: no further iterations', { runId, iteration: state.iteration });
  if (state.iteration < input.iterations && !outOfTime) {
    await runIteration(run);
    if (state.iteration < input.iterations && !budgetSpent(input, state, Date.now())) {
      return continueAsNew<typeof trainingRun>({ ...input, runId, state });
    }
  }
  return finish(run);
}

/**
 * A run's first execution: resolves its folder and task sets; a folder that holds a saved state
 * resumes from it (fresh episode ids, the saved policy published again), else the trainer exports
 * the initial policy and it is published.
 */
async function setUpRun(input: TrainingRunInput, runId: string, trainer: TrainerActivities): Promise<TrainingRunState> {
  const { state: _state, ...config } = input;
  const setup = await activities.setupRun({
    runId,
    tasks: input.tasks,
    evalTasks: input.evaluation.tasks,
    evalLimit: input.evaluation.limit,
    config: { ...config, runId },
  });
  // a setupRun of before references answered with the run's folder (runDir)
  const runRef = storeRefOf(setup.runRef, (setup as { runDir?: string }).runDir);
  let state: TrainingRunState;
  if (setup.saved) {
    // an asynchronous run's episodes of before were let go when it stopped: a resumed run starts a fresh pool
    const { pool: _pool, ...saved } = setup.saved;
    state = { ...saved, epoch: saved.epoch + 1, startedAtMs: Date.now() };
    log.info('resuming training run', { runId, iteration: state.iteration, step: state.policy.step });
    await publishWeights(input, state.policy.policyRef, state.policy.version);
  } else {
    // the toy model is initialised from the seed; a real model starts from its prepared weights
    const request = checked(InitPolicyInput, { runRef, seed: input.seed, ...trainerModel(input) }, 'initPolicy input');
    const initial = checked(InitPolicyResult, await trainer.initPolicy(request), 'initPolicy result');
    const version = await publishWeights(input, initial.policyRef, initial.policyVersion);
    state = {
      runRef,
      trainTasks: setup.trainTasks,
      evalTasks: setup.evalTasks,
      iteration: 0,
      policy: { step: 0, version, policyRef: initial.policyRef },
      versions: { [version]: 0 },
      warmStarted: false,
      epoch: 0,
      startedAtMs: Date.now(),
      last: null,
    };
  }
  await activities.saveRunState({ state });
  return state;
}

/**
 * Demonstrations before the first iteration, imitated without what they may not teach: the toy model's random valid
 * edits (demo:format, whatever their outcome); a chat model's reference fixes (demo:solve) that the strict checker
 * and the audit both passed, with the solved training episodes of the runs `warmStart.solvedFrom` names. Its line of
 * metrics (iteration -1) holds the evaluation before it, when asked for.
 */
async function warmStart(run: Run): Promise<void> {
  const { input, state } = run;
  const started = Date.now();
  const evaluated = state.policy.version;
  const chat = hfModelOf(input) !== null;
  const recorded = patched(warmStartLinePatch);
  const before = recorded && input.evaluation.beforeWarmStart ? await evaluate(run, 'eval-before-warm-start') : null;
  run.progress.phase = 'warm-start';
  const demonstrator = formatPolicySpec({ kind: 'demo', name: chat ? 'solve' : 'format' });
  // a chat model's demonstrations of fewer tasks than it trains on are of a seeded sample of them, not the first
  // ones by name
  const demoTasks =
    chat && input.warmStart.episodes < state.trainTasks.length
      ? seededSample(state.trainTasks, input.warmStart.episodes, input.seed * 7919 - 1)
      : state.trainTasks;
  const specs = Array.from({ length: input.warmStart.episodes }, (_, index): EpisodeSpec => {
    const task = demoTasks[index % demoTasks.length]!;
    return {
      id: episodeWorkflowId(run.prefix, 'demo', task, index),
      task,
      policy: demonstrator,
      sample: index,
      group: task,
    };
  });
  const demos = await runEpisodes(input, run.runId, run.progress, specs);
  const request = batchRequest(run, 'warm-start', chat ? demos.filter(solvedEpisode) : demos, 'imitation');
  if (chat && input.warmStart.solvedFrom.length > 0) {
    const earlier = await activities.earlierSolved({
      runs: input.warmStart.solvedFrom,
      trainTasks: state.trainTasks,
      evalTasks: state.evalTasks,
      model: input.model.name,
    });
    log.info('warm start: solved episodes of earlier runs', { runId: run.runId, episodes: earlier.length });
    request.episodes.push(...earlier.map(imitatedEarlier));
  }
  const batch = await activities.buildBatch(request);
  let training: TrainOnBatchResult | null = null;
  if (batch.rows > 0) {
    training = await trainStep(run, batch, 'imitation');
    await publish(run, training);
    state.referenceStep = state.policy.step;
  }
  if (recorded) {
    await activities.recordIteration({
      runRef: state.runRef,
      metrics: {
        iteration: -1,
        step: state.policy.step,
        policyVersion: evaluated,
        train: summariseEpisodes(demos),
        eval: before,
        ...stepFigures(demos, batch, training, Date.now() - started),
      },
    });
  }
  state.warmStarted = true;
  await activities.saveRunState({ state });
}

/** The workflow patch that added the warm start's line of metrics (and the evaluation before it). */
const warmStartLinePatch = 'warm-start-line';

/** Submitted, paid and confirmed by the audit: an episode worth imitating. */
function solvedEpisode(result: EpisodeResult): boolean {
  return result.outcome === Outcomes.submitted && result.reward === 1 && result.trueSuccess === true;
}

/** An earlier run's solved episode, as the batch builder takes it (its records are read by its id). */
function imitatedEarlier(line: SolvedEpisode): BatchEpisode {
  return { episodeId: line.episodeId, groupId: line.task, outcome: Outcomes.submitted, reward: 1, trueSuccess: true };
}

/**
 * One iteration: the evaluation when it is due, a group of episodes per drawn task with the
 * current policy, a batch, one policy-gradient step and its publication, and the iteration's
 * metrics; the state then points at the next iteration.
 */
async function runIteration(run: Run): Promise<void> {
  const { input, state, progress } = run;
  const iteration = state.iteration;
  const started = Date.now();
  progress.iteration = iteration;
  const tasks = seededSample(state.trainTasks, input.tasksPerIteration, input.seed * 7919 + iteration);
  const { every } = input.evaluation;
  const evalNow = (every > 0 && iteration % every === 0) || inEvalTail(input, state, Date.now());
  const evalStarted = Date.now();
  const evalMetrics = evalNow ? await evaluate(run, `eval-${iteration}`) : null;
  const evalS = (Date.now() - evalStarted) / 1000;
  progress.phase = 'sampling';
  const specs = tasks.flatMap((task) =>
    Array.from({ length: input.groupSize }, (_, sample): EpisodeSpec => ({
      id: episodeWorkflowId(run.prefix, `it${iteration}`, task, sample),
      task,
      policy: servedPolicy(run),
      sample: iteration * 10_000 + sample,
      group: `${iteration}:${task}`,
    })),
  );
  // the stop decisions' credit needs the grade of each passed check's state
  const results = await runEpisodes(input, run.runId, progress, specs, probesStops(input.credit));
  const name = `iteration-${String(iteration).padStart(4, '0')}`;
  const batch = await activities.buildBatch(batchRequest(run, name, results, 'policy_gradient'));
  // results come in the order of their specs
  const solved = results.flatMap((result, index) =>
    solvedEpisode(result)
      ? [{ episodeId: result.episodeId, task: specs[index]!.task, iteration, policyVersion: state.policy.version }]
      : [],
  );
  if (solved.length > 0 && patched(solvedRecordPatch)) {
    await activities.recordSolved({ runRef: state.runRef, iteration, episodes: solved });
  }
  const sampledWith = state.policy;
  let training: TrainOnBatchResult | null = null;
  if (batch.rows > 0) {
    training = await trainStep(run, batch, 'policy_gradient');
    await publish(run, training);
  }
  const metrics: IterationMetrics = {
    iteration,
    step: state.policy.step,
    policyVersion: sampledWith.version,
    train: summariseEpisodes(results),
    eval: evalMetrics,
    ...stepFigures(results, batch, training, Date.now() - started),
  };
  progress.last = metrics;
  state.last = metrics;
  const timing = state.timing ?? { iterations: 0, iterationS: 0, evaluations: 0, evaluationS: 0 };
  state.timing = {
    iterations: timing.iterations + 1,
    iterationS: timing.iterationS + metrics.time.wallS - (evalMetrics ? evalS : 0),
    evaluations: timing.evaluations + (evalMetrics ? 1 : 0),
    evaluationS: timing.evaluationS + (evalMetrics ? evalS : 0),
  };
  await activities.recordIteration({ runRef: state.runRef, metrics });
  state.iteration = iteration + 1;
  await activities.saveRunState({ state });
}

/** The workflow patch that added the run's record of its solved training episodes. */
const solvedRecordPatch = 'solved-record';

/** The current policy on the evaluation tasks (never trained on); null without evaluation tasks. */
async function evaluate(run: Run, label: string): Promise<EpisodeSetMetrics | null> {
  const { input, state } = run;
  if (state.evalTasks.length === 0) return null;
  run.progress.phase = 'evaluating';
  return summariseEpisodes(await runEpisodes(input, run.runId, run.progress, evaluationEpisodes(run, label)));
}

/** After the last step: the final policy on the evaluation tasks, and the report. */
async function finish(run: Run): Promise<TrainingRunResult> {
  const { state, progress } = run;
  const evalStarted = Date.now();
  const finalEval = await evaluate(run, `eval-final-${state.policy.step}`);
  progress.phase = 'reporting';
  const reportRef = await activities.recordIteration({
    runRef: state.runRef,
    // without evaluation tasks only the report is rewritten
    metrics: finalEval
      ? {
          iteration: state.iteration,
          step: state.policy.step,
          policyVersion: state.policy.version,
          train: null,
          eval: finalEval,
          batch: null,
          training: null,
          time: {
            sandboxS: 0,
            testsS: 0,
            probesS: 0,
            inferenceS: 0,
            trainingS: 0,
            wallS: (Date.now() - evalStarted) / 1000,
          },
        }
      : null,
  });
  progress.phase = 'done';
  return {
    runId: run.runId,
    runRef: state.runRef,
    steps: state.policy.step,
    policyVersion: state.policy.version,
    reportRef,
  };
}

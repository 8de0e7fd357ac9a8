import {
  CancellationScope,
  ChildWorkflowCancellationType,
  type SignalDefinition,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { BuiltBatch } from '../activities';
import type { EpisodeResult } from '../shared/contracts/episode';
import { seededSample } from '../shared/math/random';
import { asyncSettingsOf } from '../shared/contracts/run/async';
import { probesStops } from '../shared/contracts/run/credit';
import { budgetSpent } from '../shared/contracts/run/progress';
import {
  activeCount,
  applyEvent,
  emptyPool,
  emptyWindow,
  groupStaleness,
  mayAdmitGroup,
  parkedOverCap,
  parkedToResume,
  recordResult,
  tick,
  type AsyncPool,
  type PoolEpisode,
} from '../shared/math/async-pool';
import { summariseEpisodes, type AsyncStepMetrics, type IterationMetrics } from '../shared/contracts/run-metrics';
import type { TrainOnBatchResult } from '../shared/contracts/trainer-contract';
import { rolloutEpisode } from './rollout-episode';
import { releaseSignal, resumeSignal, usePolicyVersionSignal, type EpisodeEvent } from './messages';
import { childFailure, episodeInput, episodeWorkflowId } from './training-episodes';
import {
  activities,
  batchRequest,
  evaluationEpisodes,
  publish,
  servedPolicy,
  stepFigures,
  trainStep,
  type Run,
} from './training-steps';

/**
 * How long the end of a run (or its cancellation) waits for its episodes to report that they let go of their
 * containers.
 */
const stopWaitMs = 10 * 60_000;

/** The settings of an asynchronous run, with their defaults (shared/contracts/run/async.ts). */
const settings = (run: Run) => asyncSettingsOf(run.input);

/**
 * The asynchronous run: sampling never waits for training. Episodes are children that report to
 * this run by signal (so they survive its continue-as-new); the pool keeps `concurrency` of them
 * acting, admits whole groups while the sampler is at most η steps ahead of the trainer, cuts a
 * batch as soon as `groupsPerStep` groups are complete (dropping groups with a token staler than η),
 * and trains it while sampling goes on; each published version reaches the episodes in flight
 * (`versionSwitch: "turn"`) and resumes the parked ones. Returns 'continue' after a step (the caller
 * continues as new), or 'done' once `iterations` steps are done and every episode has let go.
 */
export async function runAsync(run: Run, events: EpisodeEvent[]): Promise<'continue' | 'done'> {
  const { input, state, progress } = run;
  const pool = (state.pool ??= emptyPool(state.iteration * settings(run).groupsPerStep, Date.now()));
  const config = settings(run);
  let training: Promise<void> | null = null;
  // set by the step's callback: an object, so the check below sees what the callback did
  const failed = { error: null as Error | null };
  let stepped = false;
  let wake = false;
  const outOfTime = () => budgetSpent(input, state, Date.now());
  const finished = () => state.iteration >= input.iterations || outOfTime();
  if (state.iteration === 0 && pool.admitted === 0 && input.evaluation.every > 0 && !pool.evaluation)
    queueEvaluation(run, pool, `eval-0`);
  try {
    for (;;) {
      tick(pool, Date.now());
      drainEvents(run, pool, events);
      if (!training && stepped) return 'continue';
      if (!training && finished()) break;
      if (!training && pool.ready.length >= config.groupsPerStep) {
        const groups = pool.ready.splice(0, config.groupsPerStep);
        training = trainNext(run, pool, groups).then(
          () => {
            training = null;
            stepped = true;
            wake = true;
          },
          // what a workflow's activity rejects with is always a failure (ActivityFailure, CancelledFailure)
          (error: Error) => {
            failed.error = error;
            wake = true;
          },
        );
      }
      await startEpisodes(run, pool, finished());
      resumeParked(run, pool, training !== null);
      progress.phase = training ? 'training' : 'sampling';
      progress.pool = {
        inFlight: Object.keys(pool.running).length,
        parked: Object.keys(pool.parked).length,
        ready: pool.ready.length,
        training: training !== null,
      };
      await condition(() => events.length > 0 || wake);
      wake = false;
      // a step that failed fails the run, as in a synchronous run
      if (failed.error) throw failed.error;
    }
  } catch (error) {
    if (isCancellation(error)) {
      // a cancelled run lets every episode go (each releases its container; the parked hold none) before it ends
      progress.phase = 'stopping';
      await CancellationScope.nonCancellable(() => stopAll(pool, events, 'the run was cancelled'));
    }
    throw error;
  }
  progress.phase = 'stopping';
  progress.pool = {
    inFlight: Object.keys(pool.running).length,
    parked: Object.keys(pool.parked).length,
    ready: pool.ready.length,
    training: false,
  };
  await stopAll(pool, events, 'the run ended');
  state.pool = undefined;
  return 'done';
}

/**
 * What the episodes reported: parks, resumes and results (an environment failure is sampled again; a complete group
 * is ready); beyond the cap on parked episodes, the longest parked resume at once.
 */
function drainEvents(run: Run, pool: AsyncPool, events: EpisodeEvent[]): void {
  for (const event of events.splice(0)) {
    const ended = applyEvent(pool, event, Date.now());
    if (ended) acceptResult(run, pool, ended.entry, ended.result);
  }
  for (const id of parkedOverCap(pool, settings(run).maxParked)) sendResume(run, pool, id);
}

/** Records a result in the pool (shared/math/async-pool.ts) and counts it in the run's progress. */
function acceptResult(run: Run, pool: AsyncPool, entry: PoolEpisode, result: EpisodeResult): void {
  const recorded = recordResult(pool, entry, result, {
    groupSize: run.input.groupSize,
    summarise: summariseEpisodes,
  });
  if (recorded === 'resampled') {
    log.warn('episode ended in an environment failure; sampling it again', {
      workflowId: result.workflowId,
      outcome: result.outcome,
    });
    run.progress.resampled = (run.progress.resampled ?? 0) + 1;
  } else if (recorded === 'member' || recorded === 'ready') {
    run.progress.episodesDone++;
  }
}

/** Starts admitted episodes while fewer than `concurrency` act, admitting whole groups within the staleness bound. */
async function startEpisodes(run: Run, pool: AsyncPool, stopping: boolean): Promise<void> {
  const { input, state } = run;
  const config = settings(run);
  for (;;) {
    if (activeCount(pool) >= input.concurrency) return;
    if (pool.queue.length === 0) {
      const admissible = mayAdmitGroup(pool, {
        stopping,
        iterations: input.iterations,
        groupsPerStep: config.groupsPerStep,
        iteration: state.iteration,
        maxStaleness: config.maxStaleness,
      });
      if (!admissible) return;
      admitGroup(run, pool);
    }
    const next = pool.queue.shift()!;
    await startEpisode(run, pool, next);
  }
}

/**
 * Admits the next group: the tasks of draw d = ⌊i / k⌋ are those the synchronous run's iteration d
 * draws (k = groupsPerStep, at most the task count), and the group takes the (i mod k)-th of them.
 */
function admitGroup(run: Run, pool: AsyncPool): void {
  const { input, state } = run;
  const index = pool.admitted++;
  const perDraw = Math.min(settings(run).groupsPerStep, state.trainTasks.length);
  const draw = Math.floor(index / perDraw);
  const task = seededSample(state.trainTasks, perDraw, input.seed * 7919 + draw)[index % perDraw]!;
  pool.groups[index] = { task, results: {} };
  run.progress.episodesTotal += input.groupSize;
  for (let member = 0; member < input.groupSize; member++) {
    pool.queue.push({
      id: episodeWorkflowId(run.prefix, `g${index}`, task, member),
      task,
      policy: servedPolicy(run),
      sample: draw * 10_000 + member,
      group: index,
      member,
      attempt: 0,
    });
  }
}

/** Starts one episode as a child that reports to this run and outlives its continue-as-new. */
async function startEpisode(run: Run, pool: AsyncPool, entry: PoolEpisode): Promise<void> {
  const { input } = run;
  const training = entry.group !== null;
  const { segment } = settings(run);
  const args = episodeInput(
    input,
    run.runId,
    { id: entry.id, task: entry.task, policy: entry.policy, sample: entry.sample, group: String(entry.group) },
    training && probesStops(input.credit),
    {
      reportTo: workflowInfo().workflowId,
      ...(training && segment ? { segment } : {}),
    },
  );
  pool.running[entry.id] = entry;
  try {
    // not cancellable: a cancellation between the start's request and its answer would leave an episode
    // this run does not know of; it takes effect at the next wait, which lets every episode go
    await CancellationScope.nonCancellable(() =>
      startChild(rolloutEpisode, {
        workflowId: entry.id,
        args: [args],
        // the run continues as new while its episodes act: they must outlive each run of its chain, and
        // the run itself cancels (or releases) them when it ends or is cancelled
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      }),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    delete pool.running[entry.id];
    log.warn('episode could not be started; counted as an environment failure', {
      workflowId: entry.id,
      error: String(error),
    });
    acceptResult(run, pool, entry, childFailure(run.input, run.runId, entry, entry.id, String(error)));
  }
}

/**
 * Resumes parked episodes when nothing else can run (none acting, none to start, no step coming), with the newest
 * version.
 */
function resumeParked(run: Run, pool: AsyncPool, trainingBusy: boolean): void {
  const ids = parkedToResume(pool, {
    trainingBusy,
    groupsPerStep: settings(run).groupsPerStep,
    concurrency: run.input.concurrency,
  });
  for (const id of ids) sendResume(run, pool, id);
}

function sendResume(run: Run, pool: AsyncPool, id: string): void {
  pool.parked[id]!.resumeSent = true;
  const version = settings(run).versionSwitch === 'turn' ? { policyVersion: run.state.policy.version } : {};
  void signalEpisode(id, resumeSignal, version);
}

/** Signals an episode; one that has just ended is no error. */
async function signalEpisode<Args extends unknown[]>(
  id: string,
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<void> {
  try {
    await getExternalWorkflowHandle(id).signal(signal, ...args);
  } catch (error) {
    log.info('episode did not take the signal (it has ended)', {
      workflowId: id,
      signal: signal.name,
      error: String(error),
    });
  }
}

/** Evaluation episodes of the version now published: first in the queue, never trained on, never parked. */
function queueEvaluation(run: Run, pool: AsyncPool, label: string): void {
  const { state } = run;
  if (state.evalTasks.length === 0) return;
  const specs = evaluationEpisodes(run, label).map(({ id, task, policy, sample }): PoolEpisode => ({
    id,
    task,
    policy,
    sample,
    group: null,
    member: sample,
    attempt: 0,
  }));
  pool.evaluation = { label, version: state.policy.version, total: specs.length, results: [] };
  pool.queue.unshift(...specs);
}

/**
 * One step: the batch of `groups` (those with a token staler than η dropped), the trainer step, the
 * new version published to the episodes in flight and the parked ones, and the step's metrics line.
 */
async function trainNext(run: Run, pool: AsyncPool, groups: number[]): Promise<void> {
  const { input, state, progress } = run;
  const config = settings(run);
  const started = Date.now();
  const base = state.policy.step;
  const sampledWith = state.policy.version;
  const kept: number[] = [];
  let stale = 0;
  for (const index of groups) {
    const results = Object.values(pool.groups[index]?.results ?? {});
    if (groupStaleness(results, state.versions, base) > config.maxStaleness) stale++;
    else kept.push(index);
  }
  pool.dropped += stale;
  if (stale) log.info('groups dropped as stale', { stale, base, maxStaleness: config.maxStaleness });
  const results = kept.flatMap((index) =>
    Object.values(pool.groups[index]!.results).map((result) => ({
      ...result,
      group: `g${index}:${pool.groups[index]!.task}`,
    })),
  );
  for (const index of groups) delete pool.groups[index];
  const name = `step-${String(state.iteration).padStart(4, '0')}`;
  const batch: BuiltBatch = await activities.buildBatch(batchRequest(run, name, results, 'policy_gradient', base));
  let training: TrainOnBatchResult | null = null;
  if (batch.rows > 0) {
    training = await trainStep(run, batch, 'policy_gradient', config.maxStaleness);
    const version = await publish(run, training);
    await announce(run, pool, version);
  }
  pool.window.trainerBusyMs += Date.now() - started;
  const now = Date.now();
  const wallMs = Math.max(1, now - pool.window.startedAtMs);
  const evaluated = pool.evaluated;
  pool.evaluated = null;
  const asyncMetrics: AsyncStepMetrics = {
    parked: pool.window.parked,
    resumed: pool.window.resumed,
    abandoned: pool.window.abandoned,
    spanningVersions: batch.spanningVersions ?? 0,
    stale,
    staleness: {
      max: batch.staleness?.max ?? 0,
      mean: batch.staleness?.mean ?? 0,
      histogram: batch.staleness?.histogram ?? [],
    },
    importanceWeight: training?.metrics.importanceWeight ?? null,
    trainerIdleShare: Math.max(0, 1 - pool.window.trainerBusyMs / wallMs),
    samplerIdleShare: Math.min(1, pool.window.samplerIdleMs / wallMs),
    episodesFinished: pool.window.finished,
    inFlight: Object.keys(pool.running).length,
    parkedNow: Object.keys(pool.parked).length,
  };
  const metrics: IterationMetrics = {
    iteration: state.iteration,
    step: state.policy.step,
    policyVersion: sampledWith,
    train: summariseEpisodes(results),
    eval: evaluated?.metrics ?? null,
    ...(evaluated ? { evalPolicyVersion: evaluated.version } : {}),
    ...stepFigures(results, batch, training, wallMs),
    async: asyncMetrics,
  };
  pool.window = emptyWindow(now);
  progress.last = metrics;
  state.last = metrics;
  await activities.recordIteration({ runRef: state.runRef, metrics });
  state.iteration++;
  progress.iteration = state.iteration;
  if (
    input.evaluation.every > 0 &&
    state.iteration % input.evaluation.every === 0 &&
    state.iteration < input.iterations &&
    !pool.evaluation
  ) {
    queueEvaluation(run, pool, `eval-${state.iteration}`);
  }
  const { pool: _pool, ...saved } = state;
  await activities.saveRunState({ state: saved });
}

/**
 * A new version: the training episodes in flight sample it from their next turn (`turn`), and the parked ones resume.
 */
async function announce(run: Run, pool: AsyncPool, version: string): Promise<void> {
  const switching = settings(run).versionSwitch === 'turn';
  const sends: Promise<void>[] = [];
  for (const [id, entry] of Object.entries(pool.running)) {
    if (entry.group === null) continue;
    if (pool.parked[id]) {
      if (!pool.parked[id].resumeSent) {
        pool.parked[id].resumeSent = true;
        sends.push(signalEpisode(id, resumeSignal, switching ? { policyVersion: version } : {}));
      }
    } else if (switching) {
      sends.push(signalEpisode(id, usePolicyVersionSignal, { version }));
    }
  }
  await Promise.all(sends);
}

/**
 * Lets every episode go: the parked are released (they end as `abandoned`), the others cancelled
 * (each releases its container); then waits for their reports, so that no container outlives the run.
 */
async function stopAll(pool: AsyncPool, events: EpisodeEvent[], reason: string): Promise<void> {
  // what the episodes reported meanwhile: which of them are parked, which have ended
  const stopped = (event: EpisodeEvent) => {
    if (!pool.running[event.workflowId]) return;
    if (event.kind === 'parked') pool.parked[event.workflowId] = { sinceMs: Date.now(), resumeSent: false };
    else if (event.kind === 'resumed') delete pool.parked[event.workflowId];
    else {
      delete pool.running[event.workflowId];
      delete pool.parked[event.workflowId];
      pool.window.abandoned++;
    }
  };
  for (const event of events.splice(0)) stopped(event);
  const ids = Object.keys(pool.running);
  if (ids.length === 0) return;
  log.info('letting the episodes in flight go', {
    episodes: ids.length,
    parked: Object.keys(pool.parked).length,
    reason,
  });
  pool.queue = [];
  await Promise.all(
    ids.map(async (id) => {
      try {
        if (pool.parked[id]) await getExternalWorkflowHandle(id).signal(releaseSignal, { reason });
        else await getExternalWorkflowHandle(id).cancel();
      } catch (error) {
        // it ended meanwhile: its report comes, or it came
        log.info('episode did not take the stop', { workflowId: id, error: String(error) });
      }
    }),
  );
  const deadline = Date.now() + stopWaitMs;
  while (Object.keys(pool.running).length > 0 && Date.now() < deadline) {
    await condition(() => events.length > 0, Math.max(1, deadline - Date.now()));
    for (const event of events.splice(0)) {
      // one that parked after it was cancelled is released too
      if (event.kind === 'parked' && pool.running[event.workflowId])
        void signalEpisode(event.workflowId, releaseSignal, { reason });
      stopped(event);
    }
  }
  if (Object.keys(pool.running).length)
    log.warn('episodes did not report their end in time; the reaper removes what they left', {
      episodes: Object.keys(pool.running),
    });
}

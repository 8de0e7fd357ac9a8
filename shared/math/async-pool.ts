/**
 * The pool of an asynchronous training run (workflows/async-training.ts drives it): which episodes
 * are admitted, running and parked, which groups are complete, what the evaluation has so far.
 * Its state is carried across continue-as-new and validated on the way in; its rules are pure
 * functions of the pool and explicit settings (times are passed in), unit-tested on their own.
 */
import { z } from 'zod';
import { EpisodeResult } from '../contracts/episode';
import { firstRunId, resampleAfter, resampledId } from '../contracts/outcomes';
import { EpisodeSetMetrics } from '../contracts/run-metrics';

/** η of an asynchronous run when its input does not say. */
export const defaultMaxStaleness = 2;
/** The cap on parked episodes of an asynchronous run when its input does not say. */
export const defaultMaxParked = 64;

/** An episode an asynchronous run has admitted: a member of a training group, or an evaluation episode (group null). */
export const PoolEpisode = z.object({
  id: z.string(),
  task: z.string(),
  policy: z.string(),
  /** seeds the episode's sampling */
  sample: z.number().int(),
  /** the group's index (training), or null (evaluation) */
  group: z.number().int().min(0).nullable(),
  /** its place in its group */
  member: z.number().int().min(0),
  /** 0, then 1 and 2 when it is sampled again after an environment failure */
  attempt: z.number().int().min(0),
});
export type PoolEpisode = z.infer<typeof PoolEpisode>;

/** What an asynchronous run keeps of its episodes between workflow tasks and across continue-as-new. */
export const AsyncPool = z.object({
  /** groups admitted since the run began, and how many of them were dropped as stale (they free their place) */
  admitted: z.number().int().min(0),
  dropped: z.number().int().min(0),
  /** admitted episodes not yet started, the next one first */
  queue: z.array(PoolEpisode),
  /** started episodes that have not reported their end, by workflow id */
  running: z.record(z.string(), PoolEpisode),
  /** the running episodes that are parked: since when, and whether a resume was sent */
  parked: z.record(z.string(), z.object({ sinceMs: z.number(), resumeSent: z.boolean() })),
  /** each admitted group: its task and the results of its members so far */
  groups: z.record(z.string(), z.object({ task: z.string(), results: z.record(z.string(), EpisodeResult) })),
  /** complete groups waiting for a batch, in the order they completed */
  ready: z.array(z.number().int().min(0)),
  /** the evaluation in flight: its label, version and results so far */
  evaluation: z
    .object({ label: z.string(), version: z.string(), total: z.number().int().min(0), results: z.array(EpisodeResult) })
    .nullable(),
  /** a finished evaluation waiting for the next metrics line */
  evaluated: z.object({ version: z.string(), metrics: EpisodeSetMetrics }).nullable(),
  /** counts and clocks since the last metrics line */
  window: z.object({
    startedAtMs: z.number(),
    parked: z.number().int().min(0),
    resumed: z.number().int().min(0),
    abandoned: z.number().int().min(0),
    finished: z.number().int().min(0),
    trainerBusyMs: z.number().min(0),
    samplerIdleMs: z.number().min(0),
    lastTickMs: z.number(),
  }),
});
export type AsyncPool = z.infer<typeof AsyncPool>;

/**
 * A fresh pool whose group numbering continues from `admitted` (a resumed run draws the tasks the next steps would).
 */
export function emptyPool(admitted: number, nowMs: number): AsyncPool {
  return {
    admitted,
    dropped: 0,
    queue: [],
    running: {},
    parked: {},
    groups: {},
    ready: [],
    evaluation: null,
    evaluated: null,
    window: emptyWindow(nowMs),
  };
}

/** A measurement window that starts now: what the run's metrics report per iteration. */
export function emptyWindow(nowMs: number): AsyncPool['window'] {
  return {
    startedAtMs: nowMs,
    parked: 0,
    resumed: 0,
    abandoned: 0,
    finished: 0,
    trainerBusyMs: 0,
    samplerIdleMs: 0,
    lastTickMs: nowMs,
  };
}

/** Episodes acting now: running and not parked. */
export function activeCount(pool: AsyncPool): number {
  return Object.keys(pool.running).length - Object.keys(pool.parked).length;
}

/** Accounts the time since the last tick: no episode acting is the sampler's idle time. */
export function tick(pool: AsyncPool, nowMs: number): void {
  if (activeCount(pool) === 0) pool.window.samplerIdleMs += nowMs - pool.window.lastTickMs;
  pool.window.lastTickMs = nowMs;
}

/** What an episode told its run: it parked, resumed, or finished with its result. */
export type PoolEvent =
  | { kind: 'parked'; workflowId: string }
  | { kind: 'resumed'; workflowId: string }
  | { kind: 'finished'; workflowId: string; result: EpisodeResult };

/**
 * Applies one episode's report: a park or a resume updates the parked set; an end takes the episode
 * out of the pool and is returned with its entry, for {@link recordResult}. A report of an episode
 * the pool no longer waits for (one it let go of, or a duplicate) changes nothing.
 */
export function applyEvent(
  pool: AsyncPool,
  event: PoolEvent,
  nowMs: number,
): { entry: PoolEpisode; result: EpisodeResult } | null {
  const entry = pool.running[event.workflowId];
  if (!entry) return null;
  if (event.kind === 'parked') {
    pool.parked[event.workflowId] = { sinceMs: nowMs, resumeSent: false };
    pool.window.parked++;
    return null;
  }
  if (event.kind === 'resumed') {
    delete pool.parked[event.workflowId];
    pool.window.resumed++;
    return null;
  }
  delete pool.running[event.workflowId];
  delete pool.parked[event.workflowId];
  return { entry, result: event.result };
}

/** What became of a result: sampled again, part of the evaluation, a group's member (its group complete or not). */
export type Recorded = 'resampled' | 'evaluation' | 'evaluated' | 'member' | 'ready' | 'ignored';

/**
 * Records an episode's result. An environment failure says nothing of the policy: the episode is
 * queued again first (a new id, shared/contracts/outcomes.ts `resampledId`), as `resampleAfter` says, so that its group
 * stays
 * whole. An evaluation episode's result joins the evaluation (complete: its metrics wait for the
 * next line, `summarise`); a training episode's joins its group, which is ready once it has
 * `groupSize` results.
 */
export function recordResult(
  pool: AsyncPool,
  entry: PoolEpisode,
  result: EpisodeResult,
  rules: { groupSize: number; summarise: (results: EpisodeResult[]) => EpisodeSetMetrics },
): Recorded {
  pool.window.finished++;
  if (result.outcome === 'abandoned') pool.window.abandoned++;
  if (resampleAfter(result.outcome, entry.attempt)) {
    pool.queue.unshift({
      ...entry,
      id: resampledId(firstRunId(entry.id), entry.attempt + 1),
      attempt: entry.attempt + 1,
    });
    return 'resampled';
  }
  if (entry.group === null) {
    const evaluation = pool.evaluation;
    if (!evaluation) return 'ignored';
    evaluation.results.push(result);
    if (evaluation.results.length < evaluation.total) return 'evaluation';
    pool.evaluated = { version: evaluation.version, metrics: rules.summarise(evaluation.results) };
    pool.evaluation = null;
    return 'evaluated';
  }
  const group = pool.groups[entry.group];
  if (!group) return 'ignored';
  group.results[entry.member] = result;
  if (Object.keys(group.results).length < rules.groupSize) return 'member';
  pool.ready.push(entry.group);
  return 'ready';
}

/** The parked episodes beyond the cap, longest parked first, that no resume was sent to: they resume at once. */
export function parkedOverCap(pool: AsyncPool, maxParked: number): string[] {
  const waiting = Object.entries(pool.parked)
    .filter(([, park]) => !park.resumeSent)
    .sort((a, b) => a[1].sinceMs - b[1].sinceMs);
  const over = Object.keys(pool.parked).length - maxParked;
  return waiting.slice(0, Math.max(0, over)).map(([id]) => id);
}

/**
 * Whether another group may be admitted (AReaL's rule): the groups admitted, those dropped as stale
 * aside, stay within η steps of the trainer, and never exceed what the run's steps need.
 */
export function mayAdmitGroup(
  pool: AsyncPool,
  run: { stopping: boolean; iterations: number; groupsPerStep: number; iteration: number; maxStaleness: number },
): boolean {
  const live = pool.admitted - pool.dropped;
  const needed = run.iterations * run.groupsPerStep;
  return !(run.stopping || live >= needed || live >= (run.iteration + run.maxStaleness + 1) * run.groupsPerStep);
}

/**
 * The parked episodes to resume when nothing else can run (none acting, none to start, no step
 * coming), the longest parked first, at most `concurrency`.
 */
export function parkedToResume(
  pool: AsyncPool,
  run: { trainingBusy: boolean; groupsPerStep: number; concurrency: number },
): string[] {
  const waiting = Object.entries(pool.parked).filter(([, park]) => !park.resumeSent);
  if (
    waiting.length === 0 ||
    activeCount(pool) > 0 ||
    pool.queue.length > 0 ||
    run.trainingBusy ||
    pool.ready.length >= run.groupsPerStep
  )
    return [];
  return waiting
    .sort((a, b) => a[1].sinceMs - b[1].sinceMs)
    .slice(0, run.concurrency)
    .map(([id]) => id);
}

/** The staleness of a group against the weights the next step starts from: its oldest turn's version. */
export function groupStaleness(
  results: readonly Pick<EpisodeResult, 'policyVersion' | 'policyVersions'>[],
  versions: Readonly<Record<string, number>>,
  baseStep: number,
): number {
  let oldest = baseStep;
  for (const result of results) {
    for (const version of result.policyVersions ?? [result.policyVersion]) {
      const step = versions[version];
      if (step !== undefined && step < oldest) oldest = step;
    }
  }
  return baseStep - oldest;
}

/** The figures a training run records: one line of metrics.jsonl per iteration (or asynchronous step). */
import { z } from 'zod';
import type { EpisodeResult, StopRecord } from './episode';
import type { Outcome } from './outcomes';
import { TrainerStepMetrics } from './trainer-contract';

/** Seconds spent so far in iterations (their evaluations left out) and in evaluations, for `evalTail`. */
export const RunTiming = z.object({
  iterations: z.number().int(),
  iterationS: z.number(),
  evaluations: z.number().int(),
  evaluationS: z.number(),
});
export type RunTiming = z.infer<typeof RunTiming>;

const Counts = z.record(z.string(), z.number());

/** The decisions at stop points: after a passed and after a failed check, and how many submitted. */
export const StopCounts = z.object({
  afterPass: z.number().int(),
  submittedAfterPass: z.number().int(),
  afterFail: z.number().int(),
  submittedAfterFail: z.number().int(),
  /** passed checks whose state was graded, and how many of those would have earned reward 1 */
  probed: z.number().int(),
  probedRewarded: z.number().int(),
});
export type StopCounts = z.infer<typeof StopCounts>;

/** Figures of a set of episodes (training or evaluation). */
export const EpisodeSetMetrics = z.object({
  episodes: z.number().int(),
  /** mean reward of episodes that have one */
  meanReward: z.number().nullable(),
  /** mean true success of audited episodes */
  trueSuccess: z.number().nullable(),
  /** scored episodes whose true success nothing independent audited (a task without an oracle); absent in older runs */
  unaudited: z.number().int().optional(),
  /**
   * audited episodes whose reward and true success disagree (paid in full but not fixed, or fixed but not paid in
   * full); absent in older runs
   */
  rewardTrueGap: z.number().int().optional(),
  /** the mean of each figure a Harbor verifier reported beside its reward (reward.json), over the episodes that did */
  verifierMetrics: Counts.optional(),
  outcomes: Counts,
  /** episodes with at least one tamper finding, and findings by kind */
  tampered: z.number().int(),
  tamperKinds: Counts,
  /** episodes whose test report was shown forged by canary twins (a `forged_report` finding); absent in older runs */
  forgedReports: z.number().int().optional(),
  meanTurns: z.number(),
  stops: StopCounts.optional(),
  /** episodes by the sandbox host they finished on (a worker's host id); absent in older runs */
  hosts: Counts.optional(),
  /**
   * environment failures sampled again (not in `episodes`, never trained on): how many, by outcome and by the
   * host they ran on; absent in older runs
   */
  resampled: z.object({ episodes: z.number().int(), outcomes: Counts, hosts: Counts }).optional(),
});
export type EpisodeSetMetrics = z.infer<typeof EpisodeSetMetrics>;
export type OutcomeCounts = Record<string, number>;

/** An environment failure that was sampled again: which, how it ended, where it ran. */
export interface ReplacedEpisode {
  workflowId: string;
  outcome: Outcome;
  hosts: readonly string[];
}

/** One line of the run's metrics.jsonl. */
export const IterationMetrics = z.object({
  /**
   * -1: the warm start's line (its demonstrations as `train`, the evaluation before it as `eval`, its imitation
   * step)
   */
  iteration: z.number().int(),
  step: z.number().int(),
  policyVersion: z.string(),
  train: EpisodeSetMetrics.nullable(),
  eval: EpisodeSetMetrics.nullable(),
  batch: z
    .object({ rows: z.number().int(), tokens: z.number().int(), generatedTokens: z.number().int(), counts: Counts })
    .nullable(),
  /**
   * the trainer step's figures, as its result states them (trainer-contract.ts TrainerStepMetrics), except klRef: KL
   * to the warm-started policy, null without the anchor
   */
  training: TrainerStepMetrics.pick({
    loss: true,
    meanRatio: true,
    clipFraction: true,
    klK3: true,
    gradNorm: true,
    skipped: true,
    mismatchKl: true,
    clipFractionLower: true,
    klSampling: true,
    critic: true,
    mismatch: true,
  })
    .extend({ klRef: z.number().nullable().optional() })
    .nullable(),
  /**
   * the version the evaluation of this line sampled, when it is not `policyVersion` (an asynchronous run evaluates
   * while it trains)
   */
  evalPolicyVersion: z.string().optional(),
  /** asynchronous runs: what happened since the previous line (AsyncStepMetrics) */
  async: z.lazy(() => AsyncStepMetrics).optional(),
  /**
   * seconds: containers (start-up and tool calls), the checker's tests, stop probes' tests (absent
   * in metrics from before them), inference, the trainer
   */
  time: z.object({
    sandboxS: z.number(),
    testsS: z.number(),
    probesS: z.number().optional(),
    inferenceS: z.number(),
    trainingS: z.number(),
    wallS: z.number(),
    /**
     * the episodes' time by phase, summed (absent in metrics from before it was recorded): container start-up, the
     * policy's generation inside turns, tool calls in the sandbox, sweeps (overlapping the records), the turns'
     * records, Temporal's round trips between turns (the rest of the turns' time), the checker's tests
     */
    phases: z
      .object({
        acquireS: z.number(),
        inferenceS: z.number(),
        toolS: z.number(),
        sweepS: z.number(),
        storeS: z.number(),
        roundTripsS: z.number(),
        scoringS: z.number(),
        /** inside scoring: the grader's and the audit's runs (they overlap); absent in metrics from before */
        graderS: z.number().optional(),
        auditS: z.number().optional(),
      })
      .optional(),
  }),
});
export type IterationMetrics = z.infer<typeof IterationMetrics>;

/** A staleness histogram: histogram[s] counts trained tokens of staleness s (shared/math/off-policy.ts). */
export const StalenessMetrics = z.object({ max: z.number(), mean: z.number(), histogram: z.array(z.number().int()) });

/**
 * One asynchronous step's line: the parking, the staleness of what it trained, the importance weights, the idle shares.
 */
export const AsyncStepMetrics = z.object({
  /**
   * episodes that parked, resumed, or were abandoned (released parked, or cut off at the run's end) since the previous
   * line
   */
  parked: z.number().int(),
  resumed: z.number().int(),
  abandoned: z.number().int(),
  /** episodes of this batch whose trained tokens come from more than one version */
  spanningVersions: z.number().int(),
  /** groups dropped when the batch was cut: a token staler than maxStaleness */
  stale: z.number().int(),
  staleness: StalenessMetrics,
  /** pi_prox / mu over the trained tokens (the trainer's proximal recomputation) */
  importanceWeight: z.object({ mean: z.number(), max: z.number(), truncatedShare: z.number() }).nullable(),
  /** shares of this line's wall time: the trainer not training, and no episode acting */
  trainerIdleShare: z.number(),
  samplerIdleShare: z.number(),
  /** episodes finished since the previous line (training and evaluation), and the episodes in flight and parked now */
  episodesFinished: z.number().int(),
  inFlight: z.number().int(),
  parkedNow: z.number().int(),
});
export type AsyncStepMetrics = z.infer<typeof AsyncStepMetrics>;

/** The figures of a set of episode results. */
export function summariseEpisodes(
  results: readonly {
    outcome: Outcome;
    reward: number | null;
    trueSuccess: boolean | null;
    tamper: readonly { kind: string }[];
    counters: { turns: number };
    metrics?: Record<string, number>;
    stops?: readonly StopRecord[];
    hosts?: readonly string[];
    replaced?: readonly ReplacedEpisode[];
  }[],
): EpisodeSetMetrics {
  const stops: StopCounts = {
    afterPass: 0,
    submittedAfterPass: 0,
    afterFail: 0,
    submittedAfterFail: 0,
    probed: 0,
    probedRewarded: 0,
  };
  const outcomes: OutcomeCounts = {};
  const tamperKinds: Record<string, number> = {};
  const hosts: Record<string, number> = {};
  const resampled = { episodes: 0, outcomes: {} as Record<string, number>, hosts: {} as Record<string, number> };
  let rewardSum = 0;
  let rewarded = 0;
  let successSum = 0;
  let audited = 0;
  let unaudited = 0;
  let rewardTrueGap = 0;
  const figures = new Map<string, { sum: number; count: number }>();
  let tampered = 0;
  let turns = 0;
  for (const result of results) {
    outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
    if (result.reward !== null) {
      rewardSum += result.reward;
      rewarded++;
    }
    if (result.trueSuccess !== null) {
      successSum += result.trueSuccess ? 1 : 0;
      audited++;
      if (result.reward !== null && (result.reward === 1) !== result.trueSuccess) rewardTrueGap++;
    } else if (result.reward !== null) unaudited++;
    for (const [key, value] of Object.entries(result.metrics ?? {})) {
      const figure = figures.get(key) ?? { sum: 0, count: 0 };
      figure.sum += value;
      figure.count++;
      figures.set(key, figure);
    }
    if (result.tamper.length) tampered++;
    for (const finding of result.tamper) tamperKinds[finding.kind] = (tamperKinds[finding.kind] ?? 0) + 1;
    turns += result.counters.turns;
    const host = result.hosts?.at(-1);
    if (host) hosts[host] = (hosts[host] ?? 0) + 1;
    for (const failed of result.replaced ?? []) {
      resampled.episodes++;
      resampled.outcomes[failed.outcome] = (resampled.outcomes[failed.outcome] ?? 0) + 1;
      const failedHost = failed.hosts.at(-1);
      if (failedHost) resampled.hosts[failedHost] = (resampled.hosts[failedHost] ?? 0) + 1;
    }
    for (const stop of result.stops ?? []) {
      if (stop.passed) {
        stops.afterPass++;
        if (stop.submitted) stops.submittedAfterPass++;
      } else {
        stops.afterFail++;
        if (stop.submitted) stops.submittedAfterFail++;
      }
      if (stop.probe !== null) {
        stops.probed++;
        if (stop.probe === 1) stops.probedRewarded++;
      }
    }
  }
  return {
    episodes: results.length,
    meanReward: rewarded ? rewardSum / rewarded : null,
    trueSuccess: audited ? successSum / audited : null,
    unaudited,
    rewardTrueGap,
    ...(figures.size
      ? { verifierMetrics: Object.fromEntries([...figures].map(([key, { sum, count }]) => [key, sum / count])) }
      : {}),
    outcomes,
    tampered,
    tamperKinds,
    forgedReports: results.filter((result) => result.tamper.some((finding) => finding.kind === 'forged_report')).length,
    meanTurns: results.length ? turns / results.length : 0,
    stops,
    hosts,
    resampled,
  };
}

/** The iteration's episodes' time by phase, in seconds (IterationMetrics.time.phases). */
export function phaseSums(
  results: readonly Pick<EpisodeResult, 'timings'>[],
): NonNullable<IterationMetrics['time']['phases']> {
  const sums = {
    acquireS: 0,
    inferenceS: 0,
    toolS: 0,
    sweepS: 0,
    storeS: 0,
    roundTripsS: 0,
    scoringS: 0,
    graderS: 0,
    auditS: 0,
  };
  for (const { timings } of results) {
    const phases = timings.turnPhases ?? { inferenceMs: 0, toolMs: 0, sweepMs: 0, storeMs: 0 };
    sums.acquireS += timings.acquireMs / 1000;
    sums.inferenceS += phases.inferenceMs / 1000;
    sums.toolS += phases.toolMs / 1000;
    sums.sweepS += phases.sweepMs / 1000;
    sums.storeS += phases.storeMs / 1000;
    sums.roundTripsS +=
      Math.max(0, timings.turnsMs - phases.inferenceMs - phases.toolMs - Math.max(phases.storeMs, phases.sweepMs)) /
      1000;
    sums.scoringS += timings.scoringMs / 1000;
    sums.graderS += (timings.scoringPhases?.graderMs ?? 0) / 1000;
    sums.auditS += (timings.scoringPhases?.auditMs ?? 0) / 1000;
  }
  return sums;
}

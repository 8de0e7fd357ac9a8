/** A training run's progress as its query reports it, and the time budget's arithmetic. */
import type { IterationMetrics } from '../run-metrics';
import type { EvaluationSettings } from './evaluation';
import type { TrainingRunState } from './state';

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

/** Whether a time-budgeted run has spent its budget (a run without one never has). */
export function budgetSpent(
  input: { timeBudgetMinutes: number },
  state: Pick<TrainingRunState, 'startedAtMs'>,
  nowMs: number,
): boolean {
  return input.timeBudgetMinutes > 0 && nowMs - state.startedAtMs > input.timeBudgetMinutes * 60_000;
}

/**
 * Whether the iteration about to start is one of the last `evaluation.tail − 1` of a time-budgeted run:
 * the iterations that can still start (this one included) are counted from the time left and the
 * mean time of an iteration and of an evaluation so far. False before any iteration was timed.
 */
export function inEvalTail(
  input: { timeBudgetMinutes: number; evaluation: Pick<EvaluationSettings, 'tail'> },
  state: Pick<TrainingRunState, 'startedAtMs' | 'timing'>,
  nowMs: number,
): boolean {
  const timing = state.timing;
  const tail = input.evaluation.tail;
  if (input.timeBudgetMinutes <= 0 || tail <= 1 || !timing || timing.iterations === 0) return false;
  const leftS = input.timeBudgetMinutes * 60 - (nowMs - state.startedAtMs) / 1000;
  if (leftS < 0) return false;
  const cycleS =
    timing.iterationS / timing.iterations + (timing.evaluations ? timing.evaluationS / timing.evaluations : 0);
  const starting = Math.floor(leftS / Math.max(cycleS, 1e-3)) + 1;
  return starting <= tail - 1;
}

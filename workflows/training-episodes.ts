import { ApplicationFailure, ParentClosePolicy, executeChild, isCancellation, log } from '@temporalio/workflow';
import type { BatchEpisode } from '../activities';
import { emptyCounters, EpisodeInput, type EpisodeResult } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { Outcomes } from '../shared/outcomes';
import type { TrainingProgress, TrainingRunInput } from '../shared/training-run';
import { rolloutEpisode } from './rollout-episode';

/** One episode a training run starts: a child workflow with a deterministic id. */
export interface EpisodeSpec {
  /** the child's workflow id, `<run>.<label>.<task>.<sample>` */
  id: string;
  task: string;
  policy: string;
  /** seeds the episode's sampling */
  sample: number;
  /** the group whose episodes share an advantage baseline */
  group: string;
}

export type GroupedResult = EpisodeResult & { group: string };

/** The input of one of the run's episodes: the run's checker, budgets and sampling, seeded by sample. */
export function episodeInput(input: TrainingRunInput, runId: string, spec: EpisodeSpec, probeStops: boolean): EpisodeInput {
  return EpisodeInput.parse({
    task: spec.task,
    policy: spec.policy,
    checker: input.checker,
    probeStops,
    runId,
    budgets: input.budgets,
    sampling: { ...input.sampling, seed: input.seed * 1_000_003 + spec.sample, window: input.model.context },
  });
}

/**
 * Runs episodes as children, at most `concurrency` at once, counting them in `progress`. A child
 * that fails as a workflow is an environment failure (never trained on): `policy_error` when its
 * policy could not be prepared (e.g. the server serves another version), else `sandbox_crash`.
 */
export async function runEpisodes(
  input: TrainingRunInput,
  runId: string,
  progress: TrainingProgress,
  specs: readonly EpisodeSpec[],
  probeStops = false,
): Promise<GroupedResult[]> {
  progress.episodesDone = 0;
  progress.episodesTotal = specs.length;
  const results: GroupedResult[] = new Array(specs.length);
  let next = 0;
  const lane = async () => {
    while (next < specs.length) {
      const index = next++;
      const spec = specs[index]!;
      try {
        const result = await executeChild(rolloutEpisode, { workflowId: spec.id, args: [episodeInput(input, runId, spec, probeStops)], parentClosePolicy: ParentClosePolicy.TERMINATE });
        results[index] = { ...result, group: spec.group };
      } catch (error) {
        if (isCancellation(error)) throw error;
        log.warn('episode failed; counted as an environment failure', { workflowId: spec.id, error: String(error) });
        const outcome = applicationFailureTypes(error).includes(ErrorTypes.policyError) ? Outcomes.policyError : Outcomes.sandboxCrash;
        results[index] = { ...failedEpisode(spec.id, spec.task, runId, String(error), outcome), group: spec.group };
      }
      progress.episodesDone++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency, specs.length) }, lane));
  return results;
}

/** The last part of a task folder's path. */
export function taskName(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}

/** What the batch builder needs of a result. */
export function batchEpisode(result: GroupedResult): BatchEpisode {
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

/** The result of a child that failed as a workflow: an environment failure with its error. */
function failedEpisode(workflowId: string, task: string, runId: string, error: string, outcome: typeof Outcomes.policyError | typeof Outcomes.sandboxCrash): EpisodeResult {
  return {
    workflowId, episodeId: `${workflowId}@failed`, runId, taskId: taskName(task), policyVersion: '', checker: 'strict', outcome, reward: null, trueSuccess: null,
    trueSuccessBasis: null, tamper: [], counters: emptyCounters(),
    trajectoryUri: '', scoringUri: null, error, timings: { acquireMs: 0, turnsMs: 0, scoringMs: 0 },
  };
}

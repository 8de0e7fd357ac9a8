import {
  ApplicationFailure,
  ParentClosePolicy,
  executeChild,
  isCancellation,
  log,
  patched,
} from '@temporalio/workflow';
import type { BatchEpisode } from '../activities';
import { failedEpisodeIdOf, failedEpisodeResult, type EpisodeResult } from '../shared/contracts/episode';
import { EpisodeInput } from '../shared/contracts/episode-input';
import { ErrorTypes } from '../shared/names/errors';
import { taskName } from '../shared/names/tasks';
import { Outcomes, resampleAfter, resampledId } from '../shared/contracts/outcomes';
import type { TrainingRunInput } from '../shared/contracts/run/input';
import { toyModelOf } from '../shared/contracts/run/model';
import type { TrainingProgress } from '../shared/contracts/run/progress';
import type { ReplacedEpisode } from '../shared/contracts/run-metrics';
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

/** An episode's result in its group, with the environment failures it was sampled again after (never trained on). */
export type GroupedResult = EpisodeResult & { group: string; replaced?: ReplacedEpisode[] };

/**
 * The input of one of the run's episodes: the run's checker, budgets and sampling, seeded by sample (and `extra`: whom
 * to report to, a segment budget).
 */
export function episodeInput(
  input: TrainingRunInput,
  runId: string,
  spec: EpisodeSpec,
  probeStops: boolean,
  extra: Pick<EpisodeInput, 'reportTo' | 'segment'> = {},
): EpisodeInput {
  const toy = toyModelOf(input);
  return EpisodeInput.parse({
    task: spec.task,
    policy: spec.policy,
    checker: input.checker,
    // the warm start's demonstrations are the built-in loop's demonstrator: a harness runs the policy's episodes
    ...(input.harness && !spec.policy.startsWith('demo:') ? { harness: input.harness } : {}),
    probeStops,
    runId,
    budgets: input.budgets,
    // the toy model's window is its context; a served chat model states its own
    sampling: {
      ...input.sampling,
      seed: input.seed * 1_000_003 + spec.sample,
      ...(toy ? { window: toy.context } : {}),
    },
    ...extra,
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
  const results = new Array<GroupedResult>(specs.length);
  let next = 0;
  const runChild = async (spec: EpisodeSpec, workflowId: string): Promise<EpisodeResult> => {
    try {
      return await executeChild(rolloutEpisode, {
        workflowId,
        args: [episodeInput(input, runId, spec, probeStops)],
        parentClosePolicy: ParentClosePolicy.TERMINATE,
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn('episode failed; counted as an environment failure', { workflowId, error: String(error) });
      const outcome = applicationFailureTypes(error).includes(ErrorTypes.policyError)
        ? Outcomes.policyError
        : Outcomes.sandboxCrash;
      return childFailure(input, runId, spec, workflowId, String(error), outcome);
    }
  };
  const lane = async () => {
    while (next < specs.length) {
      const index = next++;
      const spec = specs[index]!;
      let result = await runChild(spec, spec.id);
      const replaced: ReplacedEpisode[] = [];
      // an environment failure (a crashed sandbox, an unreachable policy, a grader fault) says nothing
      // of the policy: the episode runs again, so that its group stays whole
      // (runs started before re-sampling existed replay without it)
      for (let attempt = 0; resampleAfter(result.outcome, attempt) && patched(resamplePatch); attempt++) {
        log.warn('episode ended in an environment failure; sampling it again', {
          workflowId: result.workflowId,
          outcome: result.outcome,
        });
        progress.resampled = (progress.resampled ?? 0) + 1;
        replaced.push({ workflowId: result.workflowId, outcome: result.outcome, hosts: result.hosts ?? [] });
        result = await runChild(spec, resampledId(spec.id, attempt + 1));
      }
      results[index] = { ...result, group: spec.group, ...(replaced.length ? { replaced } : {}) };
      progress.episodesDone++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency, specs.length) }, lane));
  return results;
}

/** The workflow patch that introduced re-sampling. */
const resamplePatch = 'resample-environment-failures';

/**
 * The workflow id of one of a run's episodes: `<run>.<label>.<task>.<index>` (deterministic: a replayed run finds it).
 */
export function episodeWorkflowId(prefix: string, label: string, task: string, index: number): string {
  return `${prefix}.${label}.${taskName(task)}.${index}`;
}

/** What the batch builder needs of a result. */
export function batchEpisode(result: GroupedResult): BatchEpisode {
  return {
    episodeId: result.episodeId,
    groupId: result.group,
    outcome: result.outcome,
    reward: result.reward,
    trueSuccess: result.trueSuccess,
    stops: result.stops ?? [],
  };
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
 * The result of one of the run's episodes that failed as a workflow or could not be started: an
 * environment failure with its error, under the run's checker.
 */
export function childFailure(
  input: Pick<TrainingRunInput, 'checker'>,
  runId: string,
  spec: Pick<EpisodeSpec, 'task'>,
  workflowId: string,
  error: string,
  outcome: typeof Outcomes.policyError | typeof Outcomes.sandboxCrash = Outcomes.sandboxCrash,
): EpisodeResult {
  return failedEpisodeResult({
    workflowId,
    episodeId: failedEpisodeIdOf(workflowId),
    runId,
    taskId: taskName(spec.task),
    checker: input.checker,
    outcome,
    error,
  });
}

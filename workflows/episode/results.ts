/** How an episode ends: its result (the trajectory written, the search attributes set), and reports to its run. */
import {
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScoreSummary } from '../../activities';
import {
  emptyTimings,
  episodeIdOf,
  failedEpisodeResult,
  type EpisodeProgress,
  type EpisodeResult,
  type EpisodeState,
} from '../../shared/contracts/episode';
import { type EpisodeInput, type ResumeRequest } from '../../shared/contracts/episode-input';
import { ErrorTypes } from '../../shared/names/errors';
import { agentFailures, Outcomes, type Outcome } from '../../shared/contracts/outcomes';
import { SearchAttributes } from '../../shared/names/search-attributes';
import { episodeEventSignal, type EpisodeEvent } from '../messages';
import { failureType, messageOf } from './failures';
import { records } from './proxies';

/** The marker of episodes that keep the AgentrlPhase search attribute (episodes recorded before it replay without). */
export const phasePatch = 'agentrl-phase';

/** What the signals have asked for, waiting for the workflow to act on it. */
export interface Control {
  resume: ResumeRequest | null;
  release: string | null;
  version: string | null;
}

/** Tells the reporting run (if any) what happened; a run that is gone is no reason to fail the episode. */
export async function report(input: EpisodeInput, event: EpisodeEvent): Promise<void> {
  if (!input.reportTo) return;
  try {
    await getExternalWorkflowHandle(input.reportTo).signal(episodeEventSignal, event);
  } catch (error) {
    log.warn('could not report to the run', { run: input.reportTo, kind: event.kind, error: messageOf(error) });
  }
}

/** The result reported for an episode that failed as a workflow: an environment failure (never trained on). */
export function failedResult(input: EpisodeInput, progress: EpisodeProgress, error: unknown): EpisodeResult {
  const policyFailure =
    failureType(error) === ErrorTypes.policyError || failureType(error) === ErrorTypes.invalidPolicy;
  return failedEpisodeResult({
    workflowId: workflowInfo().workflowId,
    episodeId: currentEpisodeId(),
    runId: input.runId,
    taskId: progress.taskId ?? '',
    checker: input.checker,
    outcome: policyFailure ? Outcomes.policyError : Outcomes.sandboxCrash,
    error: isCancellation(error) ? 'cancelled' : messageOf(error),
    counters: progress.counters,
  });
}

/** This episode's id: its workflow id with its first run id (shared/contracts/episode.ts). */
export function currentEpisodeId(): string {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  return episodeIdOf(workflowId, firstExecutionRunId);
}

/** Writes the trajectory, tags the episode for search, and builds the result. */
export async function finish(
  input: EpisodeInput,
  episode: Pick<EpisodeState, 'task' | 'policy' | 'counters' | 'timings' | 'stops' | 'versions' | 'parks'> &
    Partial<Pick<EpisodeState, 'hosts' | 'sandbox'>>,
  outcome: Outcome,
  score: ScoreSummary | null,
  error: string | null,
): Promise<EpisodeResult> {
  const { workflowId } = workflowInfo();
  const episodeId = currentEpisodeId();
  const trajectoryUri = await records.writeTrajectory({ episodeId, outcome });
  // an agent crash scores 0 and stays trainable; environment failures have no reward
  const reward = score ? score.reward : agentFailures.includes(outcome) ? 0 : null;
  upsertSearchAttributes([
    { key: SearchAttributes.outcome, value: outcome },
    ...(reward === null ? [] : [{ key: SearchAttributes.reward, value: reward }]),
    ...(patched(phasePatch) ? [{ key: SearchAttributes.phase, value: 'finished' }] : []),
  ]);
  return {
    workflowId,
    episodeId,
    runId: input.runId,
    taskId: episode.task.id,
    policyVersion: episode.policy.version,
    checker: input.checker,
    outcome,
    reward,
    trueSuccess: score ? score.trueSuccess : agentFailures.includes(outcome) ? false : null,
    trueSuccessBasis: score ? score.trueSuccessBasis : null,
    tamper: score?.tamper ?? [],
    counters: episode.counters,
    trajectoryUri,
    scoringUri: score?.scoringUri ?? null,
    error,
    timings: episode.timings ?? emptyTimings(),
    stops: episode.stops ?? [],
    ...(episode.versions ? { policyVersions: episode.versions } : {}),
    ...(episode.parks ? { parks: episode.parks } : {}),
    hosts: episode.hosts ?? (episode.sandbox ? [episode.sandbox.hostId] : []),
    ...(score?.metrics ? { metrics: score.metrics } : {}),
  };
}

import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScoreSummary } from '../activities';
import {
  emptyCounters,
  emptyTimings,
  type EpisodeProgress,
  type EpisodeResult,
  type EpisodeState,
  type SandboxHandle,
} from '../shared/contracts/episode';
import { EpisodeInput, ResumeRequest } from '../shared/contracts/episode-input';
import { describeIssues, ErrorTypes } from '../shared/names/errors';
import { Outcomes, type Outcome } from '../shared/contracts/outcomes';
import { harnessNames } from '../shared/names/harnesses';
import { SearchAttributes } from '../shared/names/search-attributes';
import { failureType, isHostLost, messageOf } from './episode/failures';
import { parkSandbox, resumeParked, waitParked } from './episode/parking';
import { acquireSandbox, hostActivities, records, type Host } from './episode/proxies';
import { currentEpisodeId, failedResult, finish, phasePatch, report, type Control } from './episode/results';
import { actWithHarness } from './episode/harness';
import { takeTurns } from './episode/turns';
import {
  episodeProgressQuery,
  parsePayload,
  Release,
  releaseSignal,
  resumeSignal,
  UsePolicyVersion,
  usePolicyVersionSignal,
} from './messages';

/**
 * One agent episode: acquire a sandbox, take turns until an outcome (parking between segments when asked), score,
 * release.
 */
export async function rolloutEpisode(rawInput: unknown = {}): Promise<EpisodeResult> {
  const progress: EpisodeProgress = { phase: 'preparing', counters: emptyCounters(), taskId: null };
  setHandler(episodeProgressQuery, () => progress);
  const control: Control = { resume: null, release: null, version: null };
  // a signal has no caller to answer: a malformed payload is logged and ignored
  setHandler(resumeSignal, (raw) => {
    const parsed = parsePayload(ResumeRequest, raw);
    if (parsed.ok) control.resume = parsed.value;
    else log.warn('resume signal ignored: not a resume request', { error: parsed.error });
  });
  setHandler(usePolicyVersionSignal, (raw) => {
    const parsed = parsePayload(UsePolicyVersion, raw);
    if (parsed.ok) control.version = parsed.value.version;
    else log.warn('usePolicyVersion signal ignored', { error: parsed.error });
  });
  setHandler(releaseSignal, (raw) => {
    const parsed = parsePayload(Release, raw);
    if (parsed.ok) control.release = parsed.value.reason;
    else log.warn('release signal ignored', { error: parsed.error });
  });
  const parsed = EpisodeInput.safeParse(rawInput ?? {});
  if (!parsed.success)
    throw ApplicationFailure.nonRetryable(describeIssues('episode input', parsed.error), ErrorTypes.invalidInput);
  const input = parsed.data;
  const harnessRefusal = refuseHarness(input);
  if (harnessRefusal) throw ApplicationFailure.nonRetryable(harnessRefusal, ErrorTypes.invalidInput);
  if (!input.reportTo) return runEpisode(input, progress, control);
  // the run that started this episode learns how it ended, whatever happened (a failure becomes an environment failure
  // it can sample again)
  try {
    const result = await runEpisode(input, progress, control);
    // not cancellable: a cancellation that comes as the episode ends must not cost its run the report
    await CancellationScope.nonCancellable(() =>
      report(input, { kind: 'finished', workflowId: workflowInfo().workflowId, result }),
    );
    return result;
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    const result = failedResult(input, progress, error);
    await CancellationScope.nonCancellable(() =>
      report(input, { kind: 'finished', workflowId: workflowInfo().workflowId, result }),
    );
    throw error;
  }
}

/** What is wrong with an episode's harness, if anything. */
function refuseHarness(input: EpisodeInput): string | null {
  if (!input.harness) return null;
  if (!harnessNames.includes(input.harness))
    return (
      `episode input: harness: unknown harness ${JSON.stringify(input.harness)}; ` + `known: ${harnessNames.join(', ')}`
    );
  if (input.segment?.maxMs !== undefined && input.segment.maxTurns === undefined)
    return 'episode input: a harness episode parks at a call boundary: its segment budget needs maxTurns (calls)';
  return null;
}

/**
 * The states of an episode after its sandbox is acquired. Each handler does one state's work and
 * names the next; `finishing` ends the episode with its result, `continuing` as a new run.
 */
type EpisodeStep =
  | { state: 'acting' }
  | { state: 'parking' }
  | { state: 'parked' }
  | { state: 'resuming' }
  | { state: 'scoring'; outcome: Outcome; detail: string | null }
  | { state: 'finishing'; outcome: Outcome; score: ScoreSummary | null; detail: string | null }
  | { state: 'continuing' };

/** What every state handler works on. */
interface Episode {
  input: EpisodeInput;
  state: EpisodeState;
  progress: EpisodeProgress;
  control: Control;
  /** the activities on the sandbox's host; a resume moves the episode to another host */
  host: Host;
  episodeId: string;
}

/** Outcomes the checker grades: the agent submitted, or a limit cut it off with a tree to grade. */
const gradedOutcomes: readonly Outcome[] = [
  Outcomes.submitted,
  Outcomes.turnLimit,
  Outcomes.tokenLimit,
  Outcomes.timeout,
];

async function runEpisode(input: EpisodeInput, progress: EpisodeProgress, control: Control): Promise<EpisodeResult> {
  // keys the sandbox, the journal and the records: stable across continue-as-new, new for a reused workflow id
  const episodeId = currentEpisodeId();
  const started = input.resume ?? (await startEpisode(input, progress, episodeId));
  if ('outcome' in started) return started;
  const state = started;
  state.timings ??= emptyTimings();
  Object.assign(progress, {
    phase: state.parked ? 'parked' : 'running',
    counters: state.counters,
    taskId: state.task.id,
    segmented: Boolean(state.segment),
    parks: state.parks ?? 0,
    host: state.sandbox.hostId,
  });
  const episode: Episode = { input, state, progress, control, host: hostActivities(input, state.sandbox), episodeId };
  let step: EpisodeStep = state.parked ? { state: 'parked' } : { state: 'acting' };
  try {
    for (;;) {
      switch (step.state) {
        case 'acting':
          step = await act(episode);
          break;
        case 'parking':
          step = await park(episode);
          break;
        case 'parked': {
          const woke = await waitParked(input, state, progress, control);
          step = woke.release
            ? { state: 'finishing', outcome: Outcomes.abandoned, score: null, detail: woke.release }
            : { state: 'resuming' };
          break;
        }
        case 'resuming':
          step = await resume(episode);
          break;
        case 'scoring':
          step = await score(episode, step.outcome, step.detail);
          break;
        case 'continuing':
          return await continueAsNew<typeof rolloutEpisode>({ ...input, resume: state });
        case 'finishing':
          return await finish(input, state, step.outcome, step.score, step.detail);
      }
    }
  } catch (error) {
    // a cancelled episode still leaves its trajectory behind; the release below runs either way
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => records.writeTrajectory({ episodeId }));
    throw error;
  } finally {
    // a parked episode holds no container (it was released when it parked), nor does one continuing as new
    if (step.state !== 'continuing' && !state.parked) await release(episode);
  }
}

/**
 * The episode's first run: the task and policy prepared, the search attributes set, a sandbox
 * acquired; an acquisition that fails (but for a missing image, a fault of the task) ends the
 * episode as `sandbox_crash`.
 */
async function startEpisode(
  input: EpisodeInput,
  progress: EpisodeProgress,
  episodeId: string,
): Promise<EpisodeState | EpisodeResult> {
  const { workflowId } = workflowInfo();
  const { task, policy } = await records.prepareEpisode({
    task: input.task,
    policy: input.policy,
    sampling: input.sampling,
  });
  upsertSearchAttributes([
    { key: SearchAttributes.runId, value: input.runId },
    { key: SearchAttributes.taskId, value: task.id },
    ...(patched(phasePatch) ? [{ key: SearchAttributes.phase, value: 'running' }] : []),
  ]);
  let sandbox: SandboxHandle;
  progress.phase = 'acquiring';
  const acquireStart = Date.now();
  progress.taskId = task.id;
  try {
    sandbox = await acquireSandbox(input, { workflowId, episodeId, runId: input.runId, task });
  } catch (error) {
    if (isCancellation(error) || failureType(error) === ErrorTypes.missingImage) throw error;
    return finish(
      input,
      {
        task,
        policy,
        counters: emptyCounters(),
        timings: { acquireMs: Date.now() - acquireStart, turnsMs: 0, scoringMs: 0 },
      },
      Outcomes.sandboxCrash,
      null,
      `sandbox acquisition failed: ${messageOf(error)}`,
    );
  }
  const timings = { acquireMs: Date.now() - acquireStart, turnsMs: 0, scoringMs: 0 };
  const state: EpisodeState = {
    task,
    policy,
    sandbox,
    hosts: [sandbox.hostId],
    counters: emptyCounters(),
    deadlineAtMs: Date.now() + Math.min(input.budgets.deadlineMs, task.deadlineMs ?? Infinity),
    timings,
  };
  if (input.segment) Object.assign(state, { segment: input.segment, segmentState: { index: 0, turns: 0, actedMs: 0 } });
  return state;
}

/** Acting: turns until an outcome (graded or not), the end of a segment, or a continue-as-new. */
async function act(episode: Episode): Promise<EpisodeStep> {
  if (episode.input.harness) {
    const ended = await actWithHarness(episode);
    if ('park' in ended) return { state: 'parking' };
    if (gradedOutcomes.includes(ended.outcome))
      return { state: 'scoring', outcome: ended.outcome, detail: ended.detail };
    return { state: 'finishing', outcome: ended.outcome, score: null, detail: ended.detail };
  }
  const ended = await takeTurns(episode.input, episode.state, episode.host, episode.control);
  if ('continueAsNew' in ended) return { state: 'continuing' };
  if ('park' in ended) return { state: 'parking' };
  if (gradedOutcomes.includes(ended.outcome)) return { state: 'scoring', outcome: ended.outcome, detail: ended.detail };
  return { state: 'finishing', outcome: ended.outcome, score: null, detail: ended.detail };
}

/** Resuming: a fresh container restored from the snapshot; one that cannot be made ends the episode. */
async function resume(episode: Episode): Promise<EpisodeStep> {
  const { input, state, progress, control, episodeId } = episode;
  const resumed = await resumeParked(input, state, progress, control, episodeId);
  if (!resumed.ok) return { state: 'finishing', outcome: Outcomes.sandboxCrash, score: null, detail: resumed.detail };
  episode.host = hostActivities(input, state.sandbox);
  return { state: 'acting' };
}

/**
 * Parks the episode. A tree the agent made that cannot be parked (over the snapshot's bounds) ends
 * the episode as the agent's failure: reward 0, kept for training, never an environment failure.
 */
async function park(episode: Episode): Promise<EpisodeStep> {
  const { input, state, progress, episodeId } = episode;
  try {
    await parkSandbox(input, state, episode.host, progress, episodeId);
    return { state: 'parked' };
  } catch (error) {
    if (failureType(error) !== ErrorTypes.treeOverLimits) throw error;
    return {
      state: 'finishing',
      outcome: Outcomes.agentCrash,
      score: null,
      detail: `over_limits: ${messageOf(error)}`,
    };
  }
}

/**
 * Scoring: the checker grades the tree. A lost host or a sandbox fault is `sandbox_crash`, any
 * other failure of the checker `grader_error`: environment failures, never a reward.
 */
async function score(episode: Episode, outcome: Outcome, detail: string | null): Promise<EpisodeStep> {
  const { input, state, progress, episodeId } = episode;
  progress.phase = 'scoring';
  const scoringStart = Date.now();
  try {
    const summary = await episode.host.scoreSubmission({
      workflowId: workflowInfo().workflowId,
      episodeId,
      runId: input.runId,
      sandbox: state.sandbox,
      task: state.task,
      checker: input.checker,
      testTimeoutMs: input.budgets.testTimeoutMs,
    });
    state.timings!.scoringMs += Date.now() - scoringStart;
    if (summary.phases) state.timings!.scoringPhases = summary.phases;
    return { state: 'finishing', outcome, score: summary, detail };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const lost = isHostLost(error) || failureType(error) === ErrorTypes.sandboxCrash;
    return {
      state: 'finishing',
      outcome: lost ? Outcomes.sandboxCrash : Outcomes.graderError,
      score: null,
      detail: `scoring failed: ${messageOf(error)}`,
    };
  }
}

/** Releases the container, even when the episode is cancelled; a host that is gone leaves it to the reaper. */
async function release(episode: Episode): Promise<void> {
  const { state, progress, episodeId } = episode;
  progress.phase = 'releasing';
  await CancellationScope.nonCancellable(() =>
    episode.host.releaseSandbox({ sandbox: state.sandbox, episodeId }),
  ).catch((error: unknown) =>
    log.warn('sandbox release failed; the reaper will remove it', {
      error: messageOf(error),
      container: state.sandbox.containerName,
    }),
  );
}

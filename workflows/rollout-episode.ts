import {
  ActivityFailure, ApplicationFailure, CancellationScope, TimeoutFailure,
  continueAsNew, defineQuery, isCancellation, log, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';
import type { EpisodeActivities, HostActivities, ScoreSummary } from '../activities';
import {
  defaultLimits, emptyCounters, EpisodeInput, progressQueryName, type EpisodeProgress, type EpisodeResult, type EpisodeState, type SandboxHandle, type StopRecord, type TurnSummary,
} from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { Outcomes, type Outcome } from '../shared/outcomes';
import { SearchAttributes } from '../shared/search-attributes';
import { describeIssues } from '../shared/task-spec';
import { hostQueue, sandboxesQueue } from '../shared/task-queues';

// on the workflow's own task queue: any worker of this deployment can run them
/** How long a turn may run past the episode's deadline before the episode gives up on it. */
const deadlineMarginMs = 30_000;

const records = proxyActivities<EpisodeActivities>({
  // file-system work and a policy server's description: a minute is generous; the retries (about a
  // minute and a half in all) cover a worker restart and a policy server that is being restarted
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 12 },
});

/** Where an episode is: answered from workflow state, nothing is recorded in history. */
export const progressQuery = defineQuery<EpisodeProgress>(progressQueryName);

/** One agent episode: acquire a sandbox, take turns until an outcome, score, release. */
export async function rolloutEpisode(rawInput: unknown = {}): Promise<EpisodeResult> {
  const progress: EpisodeProgress = { phase: 'preparing', counters: emptyCounters(), taskId: null };
  setHandler(progressQuery, () => progress);
  const parsed = EpisodeInput.safeParse(rawInput ?? {});
  if (!parsed.success) throw ApplicationFailure.nonRetryable(describeIssues('episode input', parsed.error), ErrorTypes.invalidInput);
  const input = parsed.data;
  const { workflowId } = workflowInfo();
  // keys the sandbox, the journal and the records: stable across continue-as-new, new for a reused workflow id
  const episodeId = `${workflowId}@${workflowInfo().firstExecutionRunId}`;
  let state = input.resume;
  if (!state) {
    const { task, policy } = await records.prepareEpisode({ task: input.task, policy: input.policy, sampling: input.sampling });
    upsertSearchAttributes([
      { key: SearchAttributes.runId, value: input.runId },
      { key: SearchAttributes.taskId, value: task.id },
    ]);
    const acquire = proxyActivities<HostActivities>({
      taskQueue: sandboxesQueue(workflowInfo().taskQueue),
      startToCloseTimeout: input.timeouts.acquireMs,
      heartbeatTimeout: input.timeouts.heartbeatMs,
      // acquisition is idempotent by episode id, so a retry finds the container an earlier attempt made
      retry: { maximumAttempts: 3, nonRetryableErrorTypes: [ErrorTypes.missingImage] },
    });
    let sandbox: SandboxHandle;
    progress.phase = 'acquiring';
    const acquireStart = Date.now();
    progress.taskId = task.id;
    try {
      // not cancellable: a cancellation during acquisition would leave a container nobody releases;
      // it takes effect at the first turn, and the release below runs
      sandbox = await CancellationScope.nonCancellable(() => acquire.acquireSandbox({ workflowId, episodeId, runId: input.runId, task }));
    } catch (error) {
      if (isCancellation(error) || failureType(error) === ErrorTypes.missingImage) throw error;
      return finish(input, { task, policy, counters: emptyCounters(), timings: { acquireMs: Date.now() - acquireStart, turnsMs: 0, scoringMs: 0 } }, Outcomes.sandboxCrash, null, `sandbox acquisition failed: ${messageOf(error)}`);
    }
    const timings = { acquireMs: Date.now() - acquireStart, turnsMs: 0, scoringMs: 0 };
    state = { task, policy, sandbox, counters: emptyCounters(), deadlineAtMs: Date.now() + input.budgets.deadlineMs, timings };
  }
  const episode = state;
  episode.timings ??= { acquireMs: 0, turnsMs: 0, scoringMs: 0 };
  Object.assign(progress, { phase: 'running', counters: episode.counters, taskId: episode.task.id });
  const host = hostActivities(input, episode.sandbox);
  let continuing = false;
  try {
    const { outcome, detail } = await takeTurns(input, episode, host, () => (continuing = true));
    if (continuing) return await continueAsNew<typeof rolloutEpisode>({ ...input, resume: episode });
    if (outcome === Outcomes.submitted || outcome === Outcomes.turnLimit || outcome === Outcomes.tokenLimit || outcome === Outcomes.timeout) {
      let score: ScoreSummary;
      progress.phase = 'scoring';
      const scoringStart = Date.now();
      try {
        score = await host.scoreSubmission({ workflowId, episodeId, runId: input.runId, sandbox: episode.sandbox, task: episode.task, checker: input.checker, testTimeoutMs: input.budgets.testTimeoutMs });
        episode.timings.scoringMs += Date.now() - scoringStart;
      } catch (error) {
        if (isCancellation(error)) throw error;
        const lost = isHostLost(error) || failureType(error) === ErrorTypes.sandboxCrash;
        return await finish(input, episode, lost ? Outcomes.sandboxCrash : Outcomes.graderError, null, `scoring failed: ${messageOf(error)}`);
      }
      return await finish(input, episode, outcome, score, detail);
    }
    return await finish(input, episode, outcome, null, detail);
  } catch (error) {
    // a cancelled episode still leaves its trajectory behind; the release below runs either way
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => records.writeTrajectory({ episodeId }));
    throw error;
  } finally {
    if (!continuing) {
      progress.phase = 'releasing';
      // released even when the episode is cancelled; a host that is gone leaves the container to the reaper
      await CancellationScope.nonCancellable(() => host.releaseSandbox({ sandbox: episode.sandbox, episodeId })).catch((error: unknown) =>
        log.warn('sandbox release failed; the reaper will remove it', { error: messageOf(error), container: episode.sandbox.containerName }),
      );
    }
  }
}

type Host = ReturnType<typeof hostActivities>;

/** Activities on the sandbox's own host queue. */
function hostActivities(input: EpisodeInput, sandbox: SandboxHandle) {
  const common = {
    taskQueue: hostQueue(workflowInfo().taskQueue, sandbox.hostId),
    // a host that vanished never picks up its queue: after this wait the sandbox counts as lost
    scheduleToStartTimeout: input.timeouts.hostScheduleToStartMs,
    // a worker killed mid-call stops heartbeating; its retry on the restarted worker finds the journal
    heartbeatTimeout: input.timeouts.heartbeatMs,
  };
  /** A turn may not outlive the episode's deadline: the server enforces it, so no timer is needed per turn. */
  const turn = (remainingMs: number) =>
    proxyActivities<HostActivities>({
      ...common,
      startToCloseTimeout: input.budgets.toolTimeoutMs + 120_000,
      // the tool's own timeout is cut to the deadline; the margin covers start-up, recording and retries
      scheduleToCloseTimeout: remainingMs + deadlineMarginMs,
      // enough attempts for a worker restart or a daemon hiccup; a fault that persists ends the episode as
      // sandbox_crash (an environment failure) well before the deadline turns it into a trainable timeout
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 6 },
    }).takeTurn;
  const scoring = proxyActivities<HostActivities>({
    ...common,
    // two test runs, container start-up and the archive copy
    startToCloseTimeout: input.budgets.testTimeoutMs * 2 + 180_000,
    retry: { initialInterval: '2s', maximumAttempts: 3, nonRetryableErrorTypes: [ErrorTypes.graderError, ErrorTypes.sandboxCrash] },
  });
  const release = proxyActivities<HostActivities>({ ...common, startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 5 } });
  return { takeTurn: turn, scoreSubmission: scoring.scoreSubmission, probeSubmission: scoring.probeSubmission, releaseSandbox: release.releaseSandbox };
}

/** Runs turns until an outcome, or until it is time to continue as new. */
async function takeTurns(input: EpisodeInput, episode: EpisodeState, host: Host, requestContinueAsNew: () => void): Promise<{ outcome: Outcome; detail: string | null }> {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const episodeId = `${workflowId}@${firstExecutionRunId}`;
  const maxTurns = input.budgets.maxTurns ?? episode.task.maxTurns ?? defaultLimits.maxTurns;
  const maxTokens = input.budgets.maxTokens ?? episode.task.maxTokens ?? defaultLimits.maxTokens;
  const counters = episode.counters;
  if (counters.tokens === 0) counters.tokens = episode.task.promptTokens;
  let turnsThisRun = 0;
  for (;;) {
    if (counters.turns >= maxTurns) {
      counters.turnLimitHits++;
      return { outcome: Outcomes.turnLimit, detail: `reached ${maxTurns} turns` };
    }
    if (counters.tokens >= maxTokens) {
      counters.tokenLimitHits++;
      return { outcome: Outcomes.tokenLimit, detail: `context reached ${counters.tokens} of ${maxTokens} tokens` };
    }
    const remaining = episode.deadlineAtMs - Date.now();
    if (remaining <= 0) {
      counters.deadlineHits++;
      return { outcome: Outcomes.timeout, detail: `deadline of ${input.budgets.deadlineMs} ms passed` };
    }
    if (workflowInfo().continueAsNewSuggested || (input.continueAsNewEveryTurns > 0 && turnsThisRun >= input.continueAsNewEveryTurns)) {
      requestContinueAsNew();
      return { outcome: Outcomes.submitted, detail: null };
    }
    const turn = counters.turns;
    let summary: TurnSummary;
    const turnStart = Date.now();
    try {
      summary = await host.takeTurn(remaining)({ episodeId, turn, container: episode.sandbox.containerName, policy: { kind: episode.policy.kind, ref: episode.policy.ref, version: episode.policy.version }, promptRef: episode.task.promptRef, maxTurns, toolTimeoutMs: Math.min(input.budgets.toolTimeoutMs, remaining), maxObservationBytes: input.budgets.maxObservationBytes });
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (timeoutTypeOf(error) === TimeoutType.SCHEDULE_TO_CLOSE) {
        counters.deadlineHits++;
        return { outcome: Outcomes.timeout, detail: `deadline of ${input.budgets.deadlineMs} ms passed during turn ${turn}` };
      }
      return { outcome: Outcomes.sandboxCrash, detail: isHostLost(error) ? `sandbox host ${episode.sandbox.hostId} stopped serving its queue` : `turn ${turn} failed: ${messageOf(error)}` };
    }
    if (episode.timings) episode.timings.turnsMs += Date.now() - turnStart;
    if (summary.status === 'token_limit') {
      // the context cannot hold another action and its observation: never a silent cut
      counters.tokenLimitHits++;
      return { outcome: Outcomes.tokenLimit, detail: summary.detail };
    }
    counters.turns++;
    turnsThisRun++;
    counters.tokens += summary.actionTokens + summary.observationTokens;
    if (summary.status !== 'policy_error') counters.toolCalls++;
    const stops = (episode.stops ??= []);
    if (summary.actionKind === 'change') episode.changed = true;
    if (summary.status === 'submitted' && stops.at(-1)?.turn === turn - 1) stops.at(-1)!.submitted = true;
    // a check after a change is a stop point (the agent interface's actionKind)
    if (summary.actionKind === 'check' && episode.changed) {
      const stop: StopRecord = { turn, passed: summary.status === 'ok' && summary.exitCode === 0 && !summary.timedOut, submitted: false, probe: null };
      stops.push(stop);
      if (stop.passed && input.probeStops) stop.probe = await probeStop(input, episode, host, episodeId, turn);
    }
    if (summary.status === 'tool_error') counters.toolErrors++;
    if (summary.truncated) counters.truncatedOutputs++;
    if (summary.timedOut) counters.toolTimeouts++;
    switch (summary.status) {
      case 'submitted':
        return { outcome: Outcomes.submitted, detail: null };
      case 'agent_crash':
        return { outcome: Outcomes.agentCrash, detail: summary.detail };
      case 'sandbox_crash':
        return { outcome: Outcomes.sandboxCrash, detail: summary.detail };
      case 'policy_error':
        return { outcome: Outcomes.policyError, detail: summary.detail };
      default:
        break;
    }
  }
}

/**
 * The reward of submitting at a stop point. A probe that fails leaves the stop without a grade (its
 * decision gets no credit); the episode goes on: a strict probe never touches the agent's
 * container, and a weak one only runs the visible tests there, as the agent's own checks do.
 */
async function probeStop(input: EpisodeInput, episode: EpisodeState, host: Host, episodeId: string, turn: number): Promise<number | null> {
  const started = Date.now();
  try {
    const { reward } = await host.probeSubmission({ workflowId: workflowInfo().workflowId, episodeId, runId: input.runId, sandbox: episode.sandbox, task: episode.task, checker: input.checker, testTimeoutMs: input.budgets.testTimeoutMs, turn });
    return reward;
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('stop probe failed; the decision gets no credit', { turn, error: messageOf(error) });
    return null;
  } finally {
    // the probe is the trainer's bookkeeping, not the agent's time: it moves the deadline, so a
    // training episode has as long to act as an evaluation episode (which never probes)
    const spent = Date.now() - started;
    episode.deadlineAtMs += spent;
    if (episode.timings) episode.timings.probeMs = (episode.timings.probeMs ?? 0) + spent;
  }
}

/** Writes the trajectory, tags the episode for search, and builds the result. */
async function finish(
  input: EpisodeInput,
  episode: Pick<EpisodeState, 'task' | 'policy' | 'counters' | 'timings' | 'stops'>,
  outcome: Outcome,
  score: ScoreSummary | null,
  error: string | null,
): Promise<EpisodeResult> {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const trajectoryUri = await records.writeTrajectory({ episodeId: `${workflowId}@${firstExecutionRunId}` });
  // an agent crash scores 0 and stays trainable; environment failures have no reward
  const reward = score ? score.reward : outcome === Outcomes.agentCrash ? 0 : null;
  upsertSearchAttributes([
    { key: SearchAttributes.outcome, value: outcome },
    ...(reward === null ? [] : [{ key: SearchAttributes.reward, value: reward }]),
  ]);
  return {
    workflowId,
    episodeId: `${workflowId}@${firstExecutionRunId}`,
    runId: input.runId,
    taskId: episode.task.id,
    policyVersion: episode.policy.version,
    checker: input.checker,
    outcome,
    reward,
    trueSuccess: score ? score.trueSuccess : outcome === Outcomes.agentCrash ? false : null,
    trueSuccessBasis: score ? score.trueSuccessBasis : null,
    tamper: score?.tamper ?? [],
    counters: episode.counters,
    trajectoryUri,
    scoringUri: score?.scoringUri ?? null,
    error,
    timings: episode.timings ?? { acquireMs: 0, turnsMs: 0, scoringMs: 0 },
    stops: episode.stops ?? [],
  };
}

function timeoutTypeOf(error: unknown): TimeoutType | null {
  return error instanceof ActivityFailure && error.cause instanceof TimeoutFailure ? error.cause.timeoutType : null;
}

function isHostLost(error: unknown): boolean {
  return timeoutTypeOf(error) === TimeoutType.SCHEDULE_TO_START;
}

function failureType(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? cause.type ?? undefined : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

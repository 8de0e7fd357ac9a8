import { servedPolicyKinds } from '../shared/policy-spec';
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  ContinueAsNew,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';
import type { EpisodeActivities, HostActivities, ScoreSummary } from '../activities';
import {
  defaultLimits,
  defaultParkTtlMs,
  emptyCounters,
  emptyTimings,
  EpisodeInput,
  episodeIdOf,
  failedEpisodeResult,
  ResumeRequest,
  type EpisodeProgress,
  type EpisodeResult,
  type EpisodeState,
  type SandboxHandle,
  type StopRecord,
  type TurnSummary,
} from '../shared/episode';
import { describeIssues, ErrorTypes } from '../shared/errors';
import { Outcomes, type Outcome } from '../shared/outcomes';
import { SearchAttributes } from '../shared/search-attributes';
import { hostQueue, sandboxesQueue } from '../shared/task-queues';
import {
  episodeEventSignal,
  episodeProgressQuery,
  parsePayload,
  Release,
  releaseSignal,
  resumeSignal,
  UsePolicyVersion,
  usePolicyVersionSignal,
  type EpisodeEvent,
} from './messages';

// on the workflow's own task queue: any worker of this deployment can run them
/** How long a turn may run past the episode's deadline before the episode gives up on it. */
const deadlineMarginMs = 30_000;

const records = proxyActivities<EpisodeActivities>({
  // file-system work and a policy server's description: a minute is generous; the retries (about a
  // minute and a half in all) cover a worker restart and a policy server that is being restarted
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 12 },
});

/** The marker of episodes that keep the AgentrlPhase search attribute (episodes recorded before it replay without). */
const phasePatch = 'agentrl-phase';

/** What the signals have asked for, waiting for the workflow to act on it. */
interface Control {
  resume: ResumeRequest | null;
  release: string | null;
  version: string | null;
}

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

async function runEpisode(input: EpisodeInput, progress: EpisodeProgress, control: Control): Promise<EpisodeResult> {
  const { workflowId } = workflowInfo();
  // keys the sandbox, the journal and the records: stable across continue-as-new, new for a reused workflow id
  const episodeId = currentEpisodeId();
  let state = input.resume;
  if (!state) {
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
    state = {
      task,
      policy,
      sandbox,
      counters: emptyCounters(),
      deadlineAtMs: Date.now() + input.budgets.deadlineMs,
      timings,
    };
    if (input.segment)
      Object.assign(state, { segment: input.segment, segmentState: { index: 0, turns: 0, actedMs: 0 } });
  }
  const episode = state;
  episode.timings ??= emptyTimings();
  Object.assign(progress, {
    phase: episode.parked ? 'parked' : 'running',
    counters: episode.counters,
    taskId: episode.task.id,
    segmented: Boolean(episode.segment),
    parks: episode.parks ?? 0,
  });
  let host = hostActivities(input, episode.sandbox);
  let continuing = false;
  try {
    for (;;) {
      if (episode.parked) {
        const woke = await waitParked(input, episode, progress, control);
        if (woke.release) return await finish(input, episode, Outcomes.abandoned, null, woke.release);
        const resumed = await resumeParked(input, episode, progress, control, episodeId);
        if (!resumed.ok) return await finish(input, episode, Outcomes.sandboxCrash, null, resumed.detail);
        host = hostActivities(input, episode.sandbox);
      }
      const ended = await takeTurns(input, episode, host, control, () => (continuing = true));
      if (continuing) return await continueAsNew<typeof rolloutEpisode>({ ...input, resume: episode });
      if ('park' in ended) {
        await parkSandbox(input, episode, host, progress, episodeId);
        continue;
      }
      const { outcome, detail } = ended;
      if (
        outcome === Outcomes.submitted ||
        outcome === Outcomes.turnLimit ||
        outcome === Outcomes.tokenLimit ||
        outcome === Outcomes.timeout
      ) {
        let score: ScoreSummary;
        progress.phase = 'scoring';
        const scoringStart = Date.now();
        try {
          score = await host.scoreSubmission({
            workflowId,
            episodeId,
            runId: input.runId,
            sandbox: episode.sandbox,
            task: episode.task,
            checker: input.checker,
            testTimeoutMs: input.budgets.testTimeoutMs,
          });
          episode.timings.scoringMs += Date.now() - scoringStart;
        } catch (error) {
          if (isCancellation(error)) throw error;
          const lost = isHostLost(error) || failureType(error) === ErrorTypes.sandboxCrash;
          return await finish(
            input,
            episode,
            lost ? Outcomes.sandboxCrash : Outcomes.graderError,
            null,
            `scoring failed: ${messageOf(error)}`,
          );
        }
        return await finish(input, episode, outcome, score, detail);
      }
      return await finish(input, episode, outcome, null, detail);
    }
  } catch (error) {
    // a cancelled episode still leaves its trajectory behind; the release below runs either way
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => records.writeTrajectory({ episodeId }));
    throw error;
  } finally {
    // a parked episode holds no container: it was released when it parked
    if (!continuing && !episode.parked) {
      progress.phase = 'releasing';
      // released even when the episode is cancelled; a host that is gone leaves the container to the reaper
      await CancellationScope.nonCancellable(() => host.releaseSandbox({ sandbox: episode.sandbox, episodeId })).catch(
        (error: unknown) =>
          log.warn('sandbox release failed; the reaper will remove it', {
            error: messageOf(error),
            container: episode.sandbox.containerName,
          }),
      );
    }
  }
}

/** Acquires a sandbox on any host (a parked episode's next segment: restored from its snapshot). */
async function acquireSandbox(
  input: EpisodeInput,
  request: Parameters<HostActivities['acquireSandbox']>[0],
): Promise<SandboxHandle> {
  const acquire = proxyActivities<HostActivities>({
    taskQueue: sandboxesQueue(workflowInfo().taskQueue),
    startToCloseTimeout: input.timeouts.acquireMs,
    heartbeatTimeout: input.timeouts.heartbeatMs,
    // acquisition is idempotent by episode id (and segment), so a retry finds the container an earlier attempt made
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [ErrorTypes.missingImage] },
  });
  // not cancellable: a cancellation during acquisition would leave a container nobody releases;
  // it takes effect at the first turn, and the release runs
  return CancellationScope.nonCancellable(() => acquire.acquireSandbox(request));
}

/** Saves the tree, releases the container and marks the episode parked; the acting time left is kept. */
async function parkSandbox(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  progress: EpisodeProgress,
  episodeId: string,
): Promise<void> {
  progress.phase = 'parking';
  const snapshot = await host.parkSandbox({ sandbox: episode.sandbox, episodeId });
  // the snapshot is in the store: from here on the container may go, even on cancellation
  episode.parked = { snapshot, actingLeftMs: Math.max(0, episode.deadlineAtMs - Date.now()), atMs: Date.now() };
  episode.parks = (episode.parks ?? 0) + 1;
  progress.parks = episode.parks;
  await CancellationScope.nonCancellable(() => host.releaseSandbox({ sandbox: episode.sandbox, episodeId })).catch(
    (error: unknown) =>
      log.warn('sandbox release after parking failed; the reaper will remove it', {
        error: messageOf(error),
        container: episode.sandbox.containerName,
      }),
  );
  upsertSearchAttributes([{ key: SearchAttributes.phase, value: 'parked' }]);
  progress.phase = 'parked';
  log.info('episode parked', { turns: episode.counters.turns, snapshot: snapshot.ref, entries: snapshot.entries });
  await report(input, {
    kind: 'parked',
    workflowId: workflowInfo().workflowId,
    version: episode.policy.version,
    turns: episode.counters.turns,
  });
}

/** Waits, holding no container, for a resume or a release; a parked episode past its time to live is released. */
async function waitParked(
  input: EpisodeInput,
  episode: EpisodeState,
  progress: EpisodeProgress,
  control: Control,
): Promise<{ release: string | null }> {
  progress.phase = 'parked';
  const ttlMs = episode.segment?.parkTtlMs ?? defaultParkTtlMs;
  const leftMs = Math.max(0, (episode.parked?.atMs ?? Date.now()) + ttlMs - Date.now());
  const woke = await condition(() => control.resume !== null || control.release !== null, leftMs);
  if (control.release !== null) return { release: `released while parked: ${control.release}` };
  if (!woke) return { release: `parked for longer than its time to live of ${ttlMs} ms` };
  return { release: null };
}

/** A fresh hardened container restored from the snapshot, on any host, with the version the resume names. */
async function resumeParked(
  input: EpisodeInput,
  episode: EpisodeState,
  progress: EpisodeProgress,
  control: Control,
  episodeId: string,
): Promise<{ ok: true } | { ok: false; detail: string }> {
  const request = control.resume!;
  control.resume = null;
  progress.phase = 'resuming';
  // a new segment budget replaces the one in force; its time to live stays unless it states one
  if (request.segment !== undefined) {
    const ttl = episode.segment?.parkTtlMs;
    episode.segment =
      request.segment === null ? null : { ...(ttl === undefined ? {} : { parkTtlMs: ttl }), ...request.segment };
    progress.segmented = Boolean(episode.segment);
  }
  const version =
    request.policyVersion ?? (request.newest ? await records.currentPolicyVersion({ policy: episode.policy }) : null);
  if (version && servedPolicyKinds.includes(episode.policy.kind)) {
    episode.policy = { ...episode.policy, version };
    control.version = version;
  }
  const parked = episode.parked!;
  const segment = (episode.segmentState?.index ?? 0) + 1;
  const started = Date.now();
  let sandbox: SandboxHandle;
  try {
    sandbox = await acquireSandbox(input, {
      workflowId: workflowInfo().workflowId,
      episodeId,
      runId: input.runId,
      task: episode.task,
      restore: { snapshot: parked.snapshot, segment },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // the snapshot stays: the episode is not parked any more, and nothing is left to release
    episode.parked = undefined;
    return { ok: false, detail: `restoring the parked sandbox failed: ${messageOf(error)}` };
  }
  episode.sandbox = sandbox;
  episode.parked = undefined;
  if (episode.timings) episode.timings.acquireMs += Date.now() - started;
  // parked time never counts: the deadline is what was left of the acting time
  episode.deadlineAtMs = Date.now() + parked.actingLeftMs;
  episode.segmentState = { index: segment, turns: 0, actedMs: 0 };
  upsertSearchAttributes([{ key: SearchAttributes.phase, value: 'running' }]);
  progress.phase = 'running';
  log.info('episode resumed', { segment, version: episode.policy.version, host: sandbox.hostId });
  await report(input, { kind: 'resumed', workflowId: workflowInfo().workflowId, version: episode.policy.version });
  return { ok: true };
}

/** Tells the reporting run (if any) what happened; a run that is gone is no reason to fail the episode. */
async function report(input: EpisodeInput, event: EpisodeEvent): Promise<void> {
  if (!input.reportTo) return;
  try {
    await getExternalWorkflowHandle(input.reportTo).signal(episodeEventSignal, event);
  } catch (error) {
    log.warn('could not report to the run', { run: input.reportTo, kind: event.kind, error: messageOf(error) });
  }
}

/** The result reported for an episode that failed as a workflow: an environment failure (never trained on). */
function failedResult(input: EpisodeInput, progress: EpisodeProgress, error: unknown): EpisodeResult {
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

/** This episode's id: its workflow id with its first run id (shared/episode.ts). */
function currentEpisodeId(): string {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  return episodeIdOf(workflowId, firstExecutionRunId);
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
    retry: {
      initialInterval: '2s',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [ErrorTypes.graderError, ErrorTypes.sandboxCrash],
    },
  });
  const release = proxyActivities<HostActivities>({
    ...common,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 5 },
  });
  // saving the tree reads the repository out through the archive API: seconds, a minute at most
  const park = proxyActivities<HostActivities>({
    ...common,
    startToCloseTimeout: '5 minutes',
    retry: { maximumAttempts: 5 },
  });
  return {
    takeTurn: turn,
    scoreSubmission: scoring.scoreSubmission,
    probeSubmission: scoring.probeSubmission,
    releaseSandbox: release.releaseSandbox,
    parkSandbox: park.parkSandbox,
  };
}

/** Runs turns until an outcome, until the segment ends (park), or until it is time to continue as new. */
async function takeTurns(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  control: Control,
  requestContinueAsNew: () => void,
): Promise<{ outcome: Outcome; detail: string | null } | { park: true }> {
  const episodeId = currentEpisodeId();
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
    if (
      workflowInfo().continueAsNewSuggested ||
      (input.continueAsNewEveryTurns > 0 && turnsThisRun >= input.continueAsNewEveryTurns)
    ) {
      requestContinueAsNew();
      return { outcome: Outcomes.submitted, detail: null };
    }
    const segment = episode.segment;
    const inSegment = episode.segmentState;
    if (
      segment &&
      inSegment &&
      ((segment.maxTurns !== undefined && inSegment.turns >= segment.maxTurns) ||
        (segment.maxMs !== undefined && inSegment.actedMs >= segment.maxMs))
    ) {
      return { park: true };
    }
    // a version the run published since the last turn: the whole turn samples it (a turn never mixes versions)
    if (
      control.version &&
      servedPolicyKinds.includes(episode.policy.kind) &&
      control.version !== episode.policy.version
    )
      episode.policy = { ...episode.policy, version: control.version };
    if (episode.versions?.at(-1) !== episode.policy.version) (episode.versions ??= []).push(episode.policy.version);
    const turn = counters.turns;
    let summary: TurnSummary;
    const turnStart = Date.now();
    try {
      summary = await host.takeTurn(remaining)({
        episodeId,
        turn,
        container: episode.sandbox.containerName,
        policy: { kind: episode.policy.kind, ref: episode.policy.ref, version: episode.policy.version },
        promptRef: episode.task.promptRef,
        maxTurns,
        toolTimeoutMs: Math.min(input.budgets.toolTimeoutMs, remaining),
        maxObservationBytes: input.budgets.maxObservationBytes,
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (timeoutTypeOf(error) === TimeoutType.SCHEDULE_TO_CLOSE) {
        counters.deadlineHits++;
        return {
          outcome: Outcomes.timeout,
          detail: `deadline of ${input.budgets.deadlineMs} ms passed during turn ${turn}`,
        };
      }
      return {
        outcome: Outcomes.sandboxCrash,
        detail: isHostLost(error)
          ? `sandbox host ${episode.sandbox.hostId} stopped serving its queue`
          : `turn ${turn} failed: ${messageOf(error)}`,
      };
    }
    if (episode.timings) episode.timings.turnsMs += Date.now() - turnStart;
    if (episode.segmentState) {
      episode.segmentState.turns++;
      episode.segmentState.actedMs += Date.now() - turnStart;
    }
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
      const stop: StopRecord = {
        turn,
        passed: summary.status === 'ok' && summary.exitCode === 0 && !summary.timedOut,
        submitted: false,
        probe: null,
      };
      stops.push(stop);
      if (stop.passed && input.probeStops) stop.probe = await probeStop(input, episode, host, episodeId, turn);
    }
    if (summary.status === 'tool_error') counters.toolErrors++;
    if (summary.contextSplit) counters.contextSplits = (counters.contextSplits ?? 0) + 1;
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
async function probeStop(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  episodeId: string,
  turn: number,
): Promise<number | null> {
  const started = Date.now();
  try {
    const { reward } = await host.probeSubmission({
      workflowId: workflowInfo().workflowId,
      episodeId,
      runId: input.runId,
      sandbox: episode.sandbox,
      task: episode.task,
      checker: input.checker,
      testTimeoutMs: input.budgets.testTimeoutMs,
      turn,
    });
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
  episode: Pick<EpisodeState, 'task' | 'policy' | 'counters' | 'timings' | 'stops' | 'versions' | 'parks'>,
  outcome: Outcome,
  score: ScoreSummary | null,
  error: string | null,
): Promise<EpisodeResult> {
  const { workflowId } = workflowInfo();
  const episodeId = currentEpisodeId();
  const trajectoryUri = await records.writeTrajectory({ episodeId });
  // an agent crash scores 0 and stays trainable; environment failures have no reward
  const reward = score ? score.reward : outcome === Outcomes.agentCrash ? 0 : null;
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
    trueSuccess: score ? score.trueSuccess : outcome === Outcomes.agentCrash ? false : null,
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
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The acting state: turns until an outcome, the end of a segment, or a continue-as-new; stop probes. */
import { isCancellation, log, workflowInfo } from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';
import { type EpisodeState, type StopRecord, type TurnPhases, type TurnSummary } from '../../shared/contracts/episode';
import { defaultLimits, type EpisodeInput } from '../../shared/contracts/episode-input';
import { Outcomes, type Outcome } from '../../shared/contracts/outcomes';
import { servedPolicyKinds } from '../../shared/contracts/policy-spec';
import { isHostLost, messageOf, timeoutTypeOf } from './failures';
import { type Host } from './proxies';
import { currentEpisodeId, type Control } from './results';

/** How a run of turns ends: an outcome, the end of a segment (park), or time to continue as new. */
export type TurnsEnd = Ended | { park: true } | { continueAsNew: true };
type Ended = { outcome: Outcome; detail: string | null };

/** The limits of this episode's turns: its input's budgets, else its task's, else the defaults. */
interface TurnLimits {
  maxTurns: number;
  maxTokens: number;
}

/** Runs turns until an outcome, until the segment ends (park), or until it is time to continue as new. */
export async function takeTurns(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  control: Control,
): Promise<TurnsEnd> {
  const episodeId = currentEpisodeId();
  const limits: TurnLimits = {
    maxTurns: input.budgets.maxTurns ?? episode.task.maxTurns ?? defaultLimits.maxTurns,
    maxTokens: input.budgets.maxTokens ?? episode.task.maxTokens ?? defaultLimits.maxTokens,
  };
  const counters = episode.counters;
  if (counters.tokens === 0) counters.tokens = episode.task.promptTokens;
  for (let turnsThisRun = 0; ; turnsThisRun++) {
    const stop = beforeTurn(input, episode, limits, turnsThisRun);
    if (stop) return stop;
    // a version the run published since the last turn: the whole turn samples it (a turn never mixes versions)
    if (
      control.version &&
      servedPolicyKinds.includes(episode.policy.kind) &&
      control.version !== episode.policy.version
    )
      episode.policy = { ...episode.policy, version: control.version };
    if (episode.versions?.at(-1) !== episode.policy.version) (episode.versions ??= []).push(episode.policy.version);
    const turn = counters.turns;
    const turnStart = Date.now();
    const summary = await runTurn(input, episode, host, limits, turn, episodeId);
    if ('outcome' in summary) return summary;
    addTimings(episode, summary, turnStart);
    if (summary.status === 'token_limit') {
      // the context cannot hold another action and its observation: never a silent cut
      counters.tokenLimitHits++;
      return { outcome: Outcomes.tokenLimit, detail: summary.detail };
    }
    countTurn(episode, summary);
    // a check after a change is a stop point (the agent interface's actionKind)
    if (summary.actionKind === 'check' && episode.changed) {
      const stop: StopRecord = {
        turn,
        passed: summary.status === 'ok' && summary.exitCode === 0 && !summary.timedOut,
        submitted: false,
        probe: null,
      };
      episode.stops!.push(stop);
      if (stop.passed && input.probeStops) stop.probe = await probeStop(input, episode, host, episodeId, turn);
    }
    const ended = endOf(summary);
    if (ended) return ended;
  }
}

/** What ends the episode before its next turn: a limit reached, the segment's end, or continue-as-new. */
function beforeTurn(
  input: EpisodeInput,
  episode: EpisodeState,
  limits: TurnLimits,
  turnsThisRun: number,
): TurnsEnd | null {
  const counters = episode.counters;
  if (counters.turns >= limits.maxTurns) {
    counters.turnLimitHits++;
    return { outcome: Outcomes.turnLimit, detail: `reached ${limits.maxTurns} turns` };
  }
  if (counters.tokens >= limits.maxTokens) {
    counters.tokenLimitHits++;
    return { outcome: Outcomes.tokenLimit, detail: `context reached ${counters.tokens} of ${limits.maxTokens} tokens` };
  }
  if (episode.deadlineAtMs - Date.now() <= 0) {
    counters.deadlineHits++;
    return { outcome: Outcomes.timeout, detail: `deadline of ${input.budgets.deadlineMs} ms passed` };
  }
  if (
    workflowInfo().continueAsNewSuggested ||
    (input.continueAsNewEveryTurns > 0 && turnsThisRun >= input.continueAsNewEveryTurns)
  )
    return { continueAsNew: true };
  const segment = episode.segment;
  const inSegment = episode.segmentState;
  if (
    segment &&
    inSegment &&
    ((segment.maxTurns !== undefined && inSegment.turns >= segment.maxTurns) ||
      (segment.maxMs !== undefined && inSegment.actedMs >= segment.maxMs))
  )
    return { park: true };
  return null;
}

/**
 * One turn on the sandbox's host. The deadline passing during it is `timeout`; any other failure of
 * the activity (its host lost, a fault) is `sandbox_crash`.
 */
async function runTurn(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  limits: TurnLimits,
  turn: number,
  episodeId: string,
): Promise<TurnSummary | Ended> {
  const remaining = episode.deadlineAtMs - Date.now();
  try {
    return await host.takeTurn(remaining)({
      episodeId,
      turn,
      container: episode.sandbox.containerName,
      policy: { kind: episode.policy.kind, ref: episode.policy.ref, version: episode.policy.version },
      promptRef: episode.task.promptRef,
      maxTurns: limits.maxTurns,
      ...(episode.task.solutionRef ? { solutionRef: episode.task.solutionRef } : {}),
      toolTimeoutMs: Math.min(input.budgets.toolTimeoutMs, remaining),
      maxObservationBytes: input.budgets.maxObservationBytes,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (timeoutTypeOf(error) === TimeoutType.SCHEDULE_TO_CLOSE) {
      episode.counters.deadlineHits++;
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
}

/** The turn's time, by phase, and the segment's share of it. */
function addTimings(episode: EpisodeState, summary: TurnSummary, turnStart: number): void {
  if (episode.timings) {
    episode.timings.turnsMs += Date.now() - turnStart;
    if (summary.phases) {
      const sums = (episode.timings.turnPhases ??= { inferenceMs: 0, toolMs: 0, sweepMs: 0, storeMs: 0 });
      for (const phase of Object.keys(sums) as (keyof TurnPhases)[]) sums[phase] += summary.phases[phase];
    }
  }
  if (episode.segmentState) {
    episode.segmentState.turns++;
    episode.segmentState.actedMs += Date.now() - turnStart;
  }
}

/** A turn taken: its counters, and whether it changed the tree or submitted after a stop point. */
function countTurn(episode: EpisodeState, summary: TurnSummary): void {
  const counters = episode.counters;
  const turn = counters.turns;
  counters.turns++;
  counters.tokens += summary.actionTokens + summary.observationTokens;
  if (summary.status !== 'policy_error') counters.toolCalls++;
  const stops = (episode.stops ??= []);
  if (summary.actionKind === 'change') episode.changed = true;
  if (summary.status === 'submitted' && stops.at(-1)?.turn === turn - 1) stops.at(-1)!.submitted = true;
  if (summary.status === 'tool_error') counters.toolErrors++;
  if (summary.contextSplit) counters.contextSplits = (counters.contextSplits ?? 0) + 1;
  if (summary.truncated) counters.truncatedOutputs++;
  if (summary.timedOut) counters.toolTimeouts++;
}

/** The outcome a turn's status ends the episode with; null: the episode goes on. */
function endOf(summary: TurnSummary): Ended | null {
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
      return null;
  }
}

/**
 * The reward of submitting at a stop point. A probe that fails leaves the stop without a grade (its
 * decision gets no credit); the episode goes on: a strict probe never touches the agent's
 * container, and a weak one only runs the visible tests there, as the agent's own checks do.
 */
export async function probeStop(
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

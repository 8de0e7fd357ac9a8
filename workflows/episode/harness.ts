/**
 * The acting state of a harness episode: an agent harness (mini-swe-agent, a coding CLI) runs unmodified in the
 * sandbox and calls the model through the gateway; each call is a `modelCall` update of this workflow, recorded as a
 * durable step. When the harness, its worker or its host dies, the harness is started again in a fresh sandbox (the
 * task's starting tree) and every request that equals a recorded one is answered from the record without inference,
 * until the call where it was interrupted; a request that differs ends the replay (a divergence, counted) and the
 * episode samples from there.
 */
import {
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { EpisodeActivities, HostActivities } from '../../activities';
import { emptyTimings, type EpisodeState, type SandboxHandle, type TurnPhases } from '../../shared/contracts/episode';
import { defaultLimits, type EpisodeInput } from '../../shared/contracts/episode-input';
import { Outcomes, type Outcome } from '../../shared/contracts/outcomes';
import { servedPolicyKinds } from '../../shared/contracts/policy-spec';
import { hostQueue } from '../../shared/names/task-queues';
import { ModelCall, modelCallUpdate, type ModelCallAnswer } from '../messages';
import { failureType, messageOf } from './failures';
import { ErrorTypes } from '../../shared/names/errors';
import { acquireSandbox, hostActivities, type Host } from './proxies';
import type { Control } from './results';

type Ended = { outcome: Outcome; detail: string | null };
/** How a harness's acting ends: an outcome, or the end of a segment (the episode parks at a call boundary). */
export type HarnessEnd = Ended | { park: true };

/** How often a harness that crashed (killed, its worker or host lost) is started again before the episode gives up. */
export const maxHarnessRelaunches = 3;

/** The generation of one call, on any worker: a served model may take minutes for a long answer on a CPU. */
function generationActivity(input: EpisodeInput) {
  return proxyActivities<EpisodeActivities>({
    startToCloseTimeout: '15 minutes',
    // a worker killed mid-generation stops beating: the call is retried on another worker after this, not after the
    // 15 minutes the update (and so the harness's relaunch) would otherwise wait
    heartbeatTimeout: input.timeouts.heartbeatMs,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 6 },
  }).generateCall;
}
const recording = proxyActivities<EpisodeActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 6 },
});

/** The launch now running: its session, where its replay is, and why it is being stopped. */
interface Live {
  session: string;
  launch: number;
  /** the next recorded call a request is compared with */
  cursor: number;
  busy: boolean;
  inFlight: number;
  stop: HarnessEnd | null;
  scope: CancellationScope | null;
}

export interface HarnessEpisode {
  input: EpisodeInput;
  state: EpisodeState;
  control: Control;
  host: Host;
  episodeId: string;
}

/** The harness's part of the episode state, made on first use. */
function harnessState(state: EpisodeState) {
  state.harness ??= { launches: 0, calls: [], replayed: 0, divergences: [], discarded: 0, segmentStarts: {} };
  return state.harness;
}

/** The harness's figures in the episode's counters (its progress and its result). */
function countHarness(state: EpisodeState): void {
  const harness = harnessState(state);
  state.counters.harness = {
    launches: harness.launches,
    replayed: harness.replayed,
    divergences: harness.divergences.length,
    discarded: harness.discarded,
    segmentStarts: { ...harness.segmentStarts },
  };
}

/**
 * Runs the harness until it ends: exit 0 is a submission, a non-zero exit or a hang the agent's failure, a limit its
 * outcome; a crash starts it again (at most {@link maxHarnessRelaunches} times) in a fresh sandbox.
 */
export async function actWithHarness(episode: HarnessEpisode): Promise<HarnessEnd> {
  const { input, state } = episode;
  const harness = harnessState(state);
  const harnessName = input.harness!;
  const limits = {
    maxTurns: input.budgets.maxTurns ?? state.task.maxTurns ?? defaultLimits.maxTurns,
    maxTokens: input.budgets.maxTokens ?? state.task.maxTokens ?? defaultLimits.maxTokens,
  };
  let live: Live | null = null;
  const liveNow = (): Live | null => live;
  const answer = modelCallHandler(episode, limits, liveNow);
  setHandler(modelCallUpdate, answer, {
    validator: (call: ModelCall) => {
      const parsed = ModelCall.safeParse(call);
      if (!parsed.success) throw new Error('a model call needs session, requestRef and digest');
      const running = liveNow();
      if (!running || parsed.data.session !== running.session)
        throw new Error(`session ${parsed.data.session} is not this episode's running harness`);
    },
  });
  for (;;) {
    const launch = harness.launches++;
    countHarness(state);
    live = {
      session: `${episode.episodeId}#${launch}`,
      launch,
      cursor: 0,
      busy: false,
      inFlight: 0,
      stop: null,
      scope: null,
    };
    const current: Live = live;
    let crash: string | null = null;
    let ended: HarnessEnd | null = null;
    const launchStart = Date.now();
    const inferenceBefore = phasesOf(state).inferenceMs;
    try {
      current.scope = new CancellationScope();
      const run = await current.scope.run(() =>
        harnessActivity(input, state.sandbox).runHarness({
          sandbox: state.sandbox,
          episodeId: episode.episodeId,
          workflowId: workflowInfo().workflowId,
          session: current.session,
          key: uuid4(),
          harness: harnessName,
          promptRef: state.task.promptRef,
          timeLimitMs: Math.max(1000, state.deadlineAtMs - Date.now()),
          idleLimitMs: input.budgets.harnessIdleMs,
          model: state.policy.version || 'agentrl',
        }),
      );
      // stopped at a limit first (the stop kills its processes); else killed from outside (SIGKILL, or exit 137 where
      // the launcher itself was killed): a crash, not the agent's end
      if (run.stopped === 'time') {
        state.counters.deadlineHits++;
        ended = { outcome: Outcomes.timeout, detail: 'the harness ran to the episode deadline' };
      } else if (run.stopped === 'idle')
        ended = {
          outcome: Outcomes.harnessFailed,
          detail: `the harness hung: no model call and no exit for ${input.budgets.harnessIdleMs} ms`,
        };
      else if (run.signal === 'SIGKILL' || run.exitCode === 137)
        crash = `the harness was killed (${run.signal ?? `exit ${run.exitCode}`})`;
      else if (run.exitCode === 0) ended = { outcome: Outcomes.submitted, detail: null };
      else
        ended = {
          outcome: Outcomes.harnessFailed,
          detail: `the harness exited with code ${run.exitCode}: ${run.tail.trim().split('\n').slice(-4).join(' | ')}`,
        };
    } catch (error) {
      if (current.stop) ended = current.stop;
      else if (isCancellation(error)) throw error;
      // a host that cannot run harnesses at all (none installed, no gateway): starting again would not help
      else if (failureType(error) === ErrorTypes.sandboxCrash)
        ended = { outcome: Outcomes.sandboxCrash, detail: `the harness could not run: ${messageOf(error)}` };
      else crash = `the harness's run failed: ${messageOf(error)}`;
    }
    // the calls in flight are answered (or refused) before the session closes
    await condition(() => current.inFlight === 0);
    live = null;
    countHarness(state);
    addLaunchTimings(state, Date.now() - launchStart, inferenceBefore);
    if (current.stop) ended = current.stop;
    // parking: the calls are recorded in the state; the resume relaunches and replays them
    if (ended && 'park' in ended) return ended;
    if (ended) {
      await recording.recordHarnessTurns({ episodeId: episode.episodeId, callRefs: harness.calls.map((c) => c.ref) });
      return ended;
    }
    if (launch >= maxHarnessRelaunches)
      return { outcome: Outcomes.sandboxCrash, detail: `${crash}; started ${launch + 1} times, giving up` };
    const fresh = await freshSandbox(episode, launch + 1);
    if (!fresh) return { outcome: Outcomes.sandboxCrash, detail: `${crash}; no fresh sandbox to start it again` };
  }
}

/**
 * A launch's time in the episode's timings: all of it in turnsMs; inside it, the generations (added per call) and the
 * rest, the harness's own time between calls, as its tool time.
 */
function addLaunchTimings(state: EpisodeState, launchMs: number, inferenceBefore: number): void {
  (state.timings ??= emptyTimings()).turnsMs += launchMs;
  const phases = phasesOf(state);
  phases.toolMs += Math.max(0, launchMs - (phases.inferenceMs - inferenceBefore));
}

function phasesOf(state: EpisodeState): TurnPhases {
  return ((state.timings ??= emptyTimings()).turnPhases ??= { inferenceMs: 0, toolMs: 0, sweepMs: 0, storeMs: 0 });
}

/** The harness's run: on the sandbox's host, no retry (a crash starts the harness again, from a fresh sandbox). */
function harnessActivity(input: EpisodeInput, sandbox: SandboxHandle) {
  return proxyActivities<HostActivities>({
    taskQueue: hostActivitiesQueue(sandbox),
    scheduleToStartTimeout: input.timeouts.hostScheduleToStartMs,
    startToCloseTimeout: input.budgets.deadlineMs + 120_000,
    heartbeatTimeout: input.timeouts.heartbeatMs,
    retry: { maximumAttempts: 1 },
  });
}

function hostActivitiesQueue(sandbox: SandboxHandle): string {
  return hostQueue(workflowInfo().taskQueue, sandbox.hostId);
}

/** A fresh sandbox for the next launch: the old one released (a lost host leaves it to the reaper). */
async function freshSandbox(episode: HarnessEpisode, launch: number): Promise<boolean> {
  const { input, state } = episode;
  await CancellationScope.nonCancellable(() =>
    episode.host.releaseSandbox({ sandbox: state.sandbox, episodeId: episode.episodeId }),
  ).catch(() => undefined);
  const started = Date.now();
  try {
    state.sandbox = await acquireSandbox(input, {
      workflowId: workflowInfo().workflowId,
      episodeId: episode.episodeId,
      runId: input.runId,
      task: state.task,
      launch,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return false;
  }
  (state.timings ??= emptyTimings()).acquireMs += Date.now() - started;
  (state.hosts ??= []).push(state.sandbox.hostId);
  episode.host = hostActivities(input, state.sandbox);
  return true;
}

/** A new call counts in the segment; whether the segment's budget is spent (the episode parks after this call). */
function segmentEnded(state: EpisodeState): boolean {
  const segment = state.segment;
  const inSegment = state.segmentState;
  if (!segment || !inSegment) return false;
  inSegment.turns++;
  return segment.maxTurns !== undefined && inSegment.turns >= segment.maxTurns;
}

/** The update handler: replay from the record while requests match it, else one recorded generation. */
function modelCallHandler(
  episode: HarnessEpisode,
  limits: { maxTurns: number; maxTokens: number },
  liveNow: () => Live | null,
) {
  const { state, control } = episode;
  const harness = harnessState(state);
  const generateCall = generationActivity(episode.input);
  const refused = (status: number, message: string): ModelCallAnswer => ({
    refused: { status, type: status >= 500 ? 'api_error' : 'invalid_request_error', message },
  });
  return async (call: ModelCall): Promise<ModelCallAnswer> => {
    const live = liveNow();
    if (!live || live.session !== call.session) return refused(409, 'this session has ended');
    live.inFlight++;
    try {
      // one call at a time: the trajectory is a sequence
      await condition(() => !live.busy);
      live.busy = true;
      if (live.stop)
        return refused(
          400,
          'park' in live.stop
            ? 'the episode is parking'
            : `the episode is ending: ${live.stop.detail ?? live.stop.outcome}`,
        );
      if (live.cursor < harness.calls.length) {
        const recorded = harness.calls[live.cursor]!;
        if (recorded.digest === call.digest) {
          live.cursor++;
          harness.replayed++;
          return { callRef: recorded.ref, replayed: true };
        }
        // the relaunched harness asked something else: the record from here on is not this episode's any more
        harness.divergences.push({ launch: live.launch, at: live.cursor });
        harness.discarded += harness.calls.length - live.cursor;
        harness.calls.splice(live.cursor);
      }
      const stopWith = (ended: HarnessEnd) => {
        live.stop = ended;
        live.scope?.cancel();
      };
      if (harness.calls.length >= limits.maxTurns) {
        state.counters.turnLimitHits++;
        stopWith({ outcome: Outcomes.turnLimit, detail: `${limits.maxTurns} model calls` });
        return refused(400, `the episode's limit of ${limits.maxTurns} model calls is reached`);
      }
      if (control.version && servedPolicyKinds.includes(state.policy.kind) && control.version !== state.policy.version)
        state.policy = { ...state.policy, version: control.version };
      if (state.versions?.at(-1) !== state.policy.version) (state.versions ??= []).push(state.policy.version);
      let result;
      try {
        result = await generateCall({
          episodeId: episode.episodeId,
          launch: live.launch,
          index: harness.calls.length,
          requestRef: call.requestRef,
          previousCallRef: harness.calls.at(-1)?.ref ?? null,
          policyRef: state.policy.ref,
          version: state.policy.version,
        });
      } catch (error) {
        if (isCancellation(error)) throw error;
        stopWith({ outcome: Outcomes.policyError, detail: `generation failed: ${messageOf(error)}` });
        return refused(500, `the model could not answer: ${messageOf(error)}`);
      }
      if ('tokenLimit' in result) {
        state.counters.tokenLimitHits++;
        stopWith({ outcome: Outcomes.tokenLimit, detail: result.tokenLimit });
        return refused(400, result.tokenLimit);
      }
      phasesOf(state).inferenceMs += result.inferenceMs;
      harness.calls.push({ ref: result.callRef, digest: call.digest });
      live.cursor = harness.calls.length;
      if (result.segmentStart && result.segmentStart !== 'first') {
        harness.segmentStarts[result.segmentStart] = (harness.segmentStarts[result.segmentStart] ?? 0) + 1;
        state.counters.contextSplits = (state.counters.contextSplits ?? 0) + 1;
      }
      state.counters.turns = harness.calls.length;
      state.counters.tokens = Math.max(state.counters.tokens, result.promptTokens + result.generatedTokens);
      if (state.counters.tokens >= limits.maxTokens) {
        state.counters.tokenLimitHits++;
        stopWith({ outcome: Outcomes.tokenLimit, detail: `${state.counters.tokens} tokens` });
      } else if (segmentEnded(state)) stopWith({ park: true });
      return { callRef: result.callRef, replayed: false };
    } finally {
      live.busy = false;
      live.inFlight--;
    }
  };
}

import { randomBytes } from 'node:crypto';
import { Context, log } from '@temporalio/activity';
import type Dockerode from 'dockerode';
import type { PolicySummary, SandboxHandle, TurnPhases, TurnSummary } from '../../shared/contracts/episode';
import { countByteTokens } from '../../shared/math/tokenizer';
import { agentInterface } from '../policies/agent-interfaces';
import { PolicyUnavailable } from '../policies/completions-client';
import { PolicyError, type PolicyAction } from '../policies/policy-action';
import { scriptedAction } from '../policies/policy-kinds';
import { createTokenPolicy } from '../policies/token-policy';
import { createChatPolicy } from '../policies/chat/chat-policy';
import { createSandboxRunner, type RunnerDeps } from '../sandbox/runner';
import { releasedOnCancel } from '../sandbox/release-on-cancel';
import { sweepAgentProcesses } from '../sandbox/sweep';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords, type ModelRecord } from '../store/episode-records';
import { createJournal } from './journal';
import { describeResult, emptySummary, withoutFooter } from './observation';

/** Kept small: it is written into the workflow history on every turn. */
export interface TakeTurnInput {
  /** the workflow id with its first run id: a reused workflow id starts a new journal */
  episodeId: string;
  turn: number;
  /** the sandbox's container name */
  container: string;
  policy: Pick<PolicySummary, 'ref' | 'version'> & Partial<Pick<PolicySummary, 'kind'>>;
  /** the task's prompt (token-level policies read it at the first turn) */
  promptRef?: string;
  /** the episode's turn budget (the format demonstrator submits before it) */
  maxTurns?: number;
  /** demo:solve only: the files the task's reference fix changes */
  solutionRef?: string;
  toolTimeoutMs: number;
  maxObservationBytes: number;
}

export interface ToolCallDeps {
  docker: Dockerode;
  store: ArtifactStore;
  /** the tool-call journal of this host (journal.ts) */
  journalDir: string;
  uid: number;
  /** how tool calls reach the sandbox (sandbox.executor); @default 'exec' */
  executor?: RunnerDeps['executor'];
  executorClient?: RunnerDeps['executorClient'];
}

/** Whole milliseconds (the summary is written into the workflow history). */
function roundPhases(phases: TurnPhases): TurnPhases {
  return Object.fromEntries(Object.entries(phases).map(([key, ms]) => [key, Math.round(ms)])) as TurnPhases;
}

/** The longest pause between two tries of an unreachable policy server. */
const policyRetryCapMs = 30_000;

/**
 * Calls the policy, waiting while its server is unreachable (a restart, a crash the supervisor
 * repairs) with capped backoff and a heartbeat that says so, until this attempt's time is nearly
 * up; then the turn is a policy_error, an environment failure that training never uses.
 */
export async function waitingForPolicy<T>(call: () => Promise<T>): Promise<T> {
  const info = Context.current().info;
  const deadline = Date.now() + Math.max(0, info.startToCloseTimeoutMs - 30_000);
  for (let pause = 1000; ; pause = Math.min(pause * 2, policyRetryCapMs)) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PolicyUnavailable) || !error.transient || Date.now() + pause > deadline) throw error;
      log.warn('policy server unreachable; waiting for it', { error: error.message, retryInMs: pause });
      // in slices, each with a heartbeat: the wait is longer than the heartbeat timeout
      for (let waited = 0; waited < pause; waited += 2000) {
        Context.current().heartbeat({ waitingForPolicy: error.message });
        await Context.current().sleep(Math.min(2000, pause - waited));
      }
    }
  }
}

/** The turn activity: asks the policy, runs the tool call exactly once, records both. */
export function createToolCallActivities(deps: ToolCallDeps) {
  const { store } = deps;
  const { runInSandbox } = createSandboxRunner(deps);
  const journal = createJournal(deps.journalDir);
  const records = createEpisodeRecords(store);
  const tokenPolicy = createTokenPolicy(store);
  const sweep = (container: string) =>
    sweepAgentProcesses(deps.docker, container, deps.uid, deps.executor === 'server' ? 'cgroup' : 'docker');
  const chatPolicy = createChatPolicy(store);

  return {
    /**
     * Runs a command in the agent's sandbox through the runner, outside the trajectory (the weak checker's test run).
     */
    runCheckCommand: async (input: {
      sandbox: SandboxHandle;
      command: string;
      timeoutMs: number;
    }): Promise<{ exitCode: number | null; output: string }> => {
      const container = input.sandbox.containerName;
      // the scoring that runs it may be cancelled: the tests' processes go then, not at their timeout
      return releasedOnCancel(
        async () => {
          const nonce = randomBytes(16).toString('hex');
          const result = await runInSandbox(
            { container, toolTimeoutMs: input.timeoutMs, maxObservationBytes: 65_536 },
            { tool: 'bash', command: input.command },
            nonce,
            false,
            [],
          );
          await sweep(container);
          if ('crash' in result) return { exitCode: null, output: result.detail };
          return {
            exitCode: result.timedOut ? null : (result.exitCode ?? null),
            output: result.output ?? result.error ?? '',
          };
        },
        () => sweep(container),
      );
    },

    /**
     * One turn: policy action → tool call in the sandbox → recorded (action, observation). Cancelled by its workflow,
     * the turn kills the call's processes (the sweep) and ends as cancelled, instead of waiting out the call.
     */
    takeTurn: (input: TakeTurnInput): Promise<TurnSummary> => {
      return releasedOnCancel(
        () => playTurn(input),
        () => sweep(input.container),
      );
    },
  };

  /** The turn itself (takeTurn above adds the release on cancellation). */
  async function playTurn(input: TakeTurnInput): Promise<TurnSummary> {
    // the earlier call whose spool files can go is read meanwhile (needed only when this turn runs a call)
    const [entry, previousNonces] = await Promise.all([
      journal.read(input.episodeId, input.turn),
      journal.previousNonces(input.episodeId, input.turn),
    ]);
    if (entry?.phase === 'done') return entry.summary;
    const done = async (summary: TurnSummary) => {
      await journal.write(input.episodeId, input.turn, { phase: 'done', summary });
      return summary;
    };
    const started = Date.now();
    const phases: TurnPhases = { inferenceMs: 0, toolMs: 0, sweepMs: 0, storeMs: 0 };
    const tokenLevel = input.policy.kind !== undefined && input.policy.kind !== 'scripted';
    const snapshot = tokenLevel ? await tokenPolicy.snapshot(input.policy.ref) : null;
    const previous: ModelRecord | null = snapshot ? await tokenPolicy.previous(input) : null;
    let action: PolicyAction;
    let inferenceMs = 0;
    if (entry) {
      action = entry.action;
    } else {
      try {
        if (snapshot) {
          const inferenceStart = Date.now();
          const turn = { ...input, version: input.policy.version };
          // a served model's turn can take longer than the heartbeat timeout: beat while it generates
          const context = Context.current();
          const beat = setInterval(() => context.heartbeat({ sampling: input.turn }), 2000);
          let sampled;
          try {
            sampled = await waitingForPolicy(() =>
              snapshot.interface === 'chat-tools'
                ? chatPolicy.act(turn, snapshot, previous)
                : tokenPolicy.act(turn, snapshot, previous),
            );
          } finally {
            clearInterval(beat);
          }
          inferenceMs = Date.now() - inferenceStart;
          phases.inferenceMs = inferenceMs;
          if ('tokenLimit' in sampled) return await done(emptySummary(input.turn, 'token_limit', sampled.tokenLimit));
          action = sampled;
        } else {
          action = await scriptedAction(input.policy, input.turn, store);
        }
      } catch (error) {
        if (!(error instanceof PolicyError) && !(error instanceof PolicyUnavailable)) throw error;
        return await done(emptySummary(input.turn, 'policy_error', error.message));
      }
    }
    const agent = agentInterface(snapshot?.interface ?? 'compact-actions');
    const parsed = agent.toToolCall(action.text, { cutByLength: action.finishReason === 'length' });
    let observation: string;
    let summary: TurnSummary;
    let usedNonce: string | undefined;
    let swept: Promise<Error | null> = Promise.resolve(null);
    if (!parsed.ok) {
      observation = `error: ${parsed.error}`;
      summary = { ...emptySummary(input.turn, 'tool_error', parsed.error), tool: null };
    } else if (parsed.call.tool === 'submit') {
      observation = 'submitted';
      summary = { ...emptySummary(input.turn, 'submitted', null), tool: 'submit' };
    } else {
      const nonce = entry?.phase === 'started' ? entry.nonce : randomBytes(16).toString('hex');
      // a turn cancelled while its policy sampled starts no call
      if (entry?.phase !== 'started') Context.current().cancellationSignal.throwIfAborted();
      if (entry?.phase !== 'started')
        await journal.write(input.episodeId, input.turn, { phase: 'started', action, nonce });
      usedNonce = nonce;
      // a retry after a worker died in the middle of a sweep finds the container frozen: thaw it first
      if (entry?.phase === 'started') await sweep(input.container);
      const toolStart = performance.now();
      const outcome = await runInSandbox(input, parsed.call, nonce, entry?.phase === 'started', previousNonces);
      phases.toolMs = performance.now() - toolStart;
      // whatever happened to the runner, nothing the call started outlives it (sandbox/sweep.ts); the records are
      // written meanwhile, and the turn ends only once the sweep has
      swept = sweep(input.container).then(
        () => {
          phases.sweepMs = performance.now() - toolStart - phases.toolMs;
          return null;
        },
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      if ('crash' in outcome) {
        observation = `error: ${outcome.detail}`;
        summary = { ...emptySummary(input.turn, outcome.crash, outcome.detail), tool: parsed.call.tool };
      } else {
        ({ observation, summary } = describeResult(input.turn, parsed.call, outcome));
      }
    }
    const kind = agent.actionKind(action.text);
    if (kind) summary.actionKind = kind;
    summary.actionTokens = action.tokenIds.length;
    summary.observationTokens = countByteTokens(observation);
    let model: ModelRecord | undefined;
    if (snapshot && action.contextRef && snapshot.interface === 'chat-tools') {
      const observed = await chatPolicy.observe(
        snapshot,
        previous,
        { ...action, contextRef: action.contextRef },
        observation,
        inferenceMs,
      );
      model = observed.model;
      summary.observationTokens = observed.observationTokens;
      if (observed.split) summary.contextSplit = true;
    } else if (snapshot && action.contextRef) {
      const observed = await tokenPolicy.observe(
        snapshot,
        previous,
        { ...action, contextRef: action.contextRef },
        observation,
        withoutFooter(observation),
        summary.exitCode,
        inferenceMs,
      );
      model = observed.model;
      summary.observationTokens = observed.observationTokens;
    }
    const storeStart = performance.now();
    const [actionRef, tokenIdsRef, logprobsRef, observationRef] = await Promise.all([
      store.putBlob(action.text),
      store.putJson(action.tokenIds),
      store.putJson(action.logprobs),
      store.putBlob(observation),
    ]);
    await records.writeTurn(input.episodeId, {
      turn: input.turn,
      policyVersion: action.version,
      status: summary.status,
      action: { ref: actionRef, tool: summary.tool, tokenIdsRef, logprobsRef, tokens: summary.actionTokens },
      observation: {
        ref: observationRef,
        tokens: summary.observationTokens,
        exitCode: summary.exitCode,
        timedOut: summary.timedOut,
        truncated: summary.truncated,
      },
      durationMs: Date.now() - started,
      ...(model ? { model } : {}),
    });
    phases.storeMs = performance.now() - storeStart;
    const sweepFailed = await swept;
    if (sweepFailed) throw sweepFailed;
    summary.phases = roundPhases(phases);
    await journal.write(input.episodeId, input.turn, {
      phase: 'done',
      summary,
      ...(usedNonce ? { nonce: usedNonce } : {}),
    });
    return summary;
  }
}

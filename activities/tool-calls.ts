import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { actionKind } from '../shared/action-language';
import type { PolicySummary, SandboxHandle } from '../shared/episode';
import { appendGiven, emptyContext, observationIds, promptIds, type ModelContext } from '../shared/model-context';
import { parseToolCall, type ToolCall } from '../shared/tool-call';
import { countByteTokens, policyTokenizer } from '../shared/tokenizer';
import { atomicWrite, episodeKey, type ArtifactStore } from './artifact-store';
import { nextAction, PolicyError, type PolicyAction } from './policies';
import {
  actId, longestAction, PolicyUnavailable, rememberTurn, sampleAction, type PolicyMemory, type TokenPolicySnapshot,
} from './token-policy';
import { createSandboxRunner, type RunnerResult } from './sandbox-runner';

export type TurnStatus = 'ok' | 'tool_error' | 'submitted' | 'agent_crash' | 'sandbox_crash' | 'policy_error' | 'token_limit';

/** What the workflow learns of a turn: a small summary; the texts are in the artifact store. */
export interface TurnSummary {
  turn: number;
  tool: string | null;
  status: TurnStatus;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  actionTokens: number;
  observationTokens: number;
  detail: string | null;
  /** for an action of the action language: whether it changed the repository or ran the tests */
  actionKind?: 'change' | 'check';
}

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
  toolTimeoutMs: number;
  maxObservationBytes: number;
}

/**
 * A journal entry on the worker's host, outside every container: what a retried turn must not redo.
 * `started` is written before a tool call reaches the sandbox; an action with no side effect
 * (submit, a malformed call) goes straight to `done`.
 */
type JournalEntry =
  | { phase: 'started'; action: PolicyAction; nonce: string }
  | { phase: 'done'; summary: TurnSummary; nonce?: string };

export interface ToolCallDeps {
  docker: Dockerode;
  store: ArtifactStore;
  journalDir: string;
  uid: number;
}

/** The turn activity: asks the policy, runs the tool call exactly once, records both. */
export function createToolCallActivities(deps: ToolCallDeps) {
  const { store } = deps;
  const { runInSandbox } = createSandboxRunner(deps);
  const journalPath = (episodeId: string, turn: number) => join(deps.journalDir, episodeKey(episodeId), `${String(turn).padStart(6, '0')}.json`);
  const readJournal = async (path: string): Promise<JournalEntry | null> => {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as JournalEntry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  };

  return {
    /** Runs a command in the agent's sandbox through the runner, outside the trajectory (the weak checker's test run). */
    async runCheckCommand(input: { sandbox: SandboxHandle; command: string; timeoutMs: number }): Promise<{ exitCode: number | null; output: string }> {
      const nonce = randomBytes(16).toString('hex');
      const result = await runInSandbox({ container: input.sandbox.containerName, toolTimeoutMs: input.timeoutMs, maxObservationBytes: 65_536 }, { tool: 'bash', command: input.command }, nonce, false, []);
      if ('crash' in result) return { exitCode: null, output: result.detail };
      return { exitCode: result.timedOut ? null : (result.exitCode ?? null), output: result.output ?? result.error ?? '' };
    },

    /** One turn: policy action → tool call in the sandbox → recorded (action, observation). */
    async takeTurn(input: TakeTurnInput): Promise<TurnSummary> {
      const path = journalPath(input.episodeId, input.turn);
      const entry = await readJournal(path);
      if (entry?.phase === 'done') return entry.summary;
      const started = Date.now();
      let action: PolicyAction;
      const tokenLevel = input.policy.kind !== undefined && input.policy.kind !== 'scripted';
      let previous: ModelRecord | null = null;
      let inferenceMs = 0;
      if (tokenLevel && input.turn > 0) previous = (await readTurnRecord(input.episodeId, input.turn - 1))?.model ?? null;
      const snapshot = tokenLevel ? (JSON.parse((await store.getBlob(input.policy.ref)).toString('utf8')) as TokenPolicySnapshot) : null;
      if (entry) {
        action = entry.action;
      } else {
        try {
          if (snapshot) {
            const inferenceStart = Date.now();
            const sampled = await sampleTokenAction(input, snapshot, previous);
            inferenceMs = Date.now() - inferenceStart;
            if ('tokenLimit' in sampled) {
              const summary = emptySummary(input.turn, 'token_limit', sampled.tokenLimit);
              await atomicWrite(path, JSON.stringify({ phase: 'done', summary }));
              return summary;
            }
            action = sampled;
          } else {
            action = await nextAction(input.policy, input.turn, store);
          }
        } catch (error) {
          if (!(error instanceof PolicyError) && !(error instanceof PolicyUnavailable)) throw error;
          const summary = emptySummary(input.turn, 'policy_error', error.message);
          await atomicWrite(path, JSON.stringify({ phase: 'done', summary }));
          return summary;
        }
      }
      const parsed = parseToolCall(action.text);
      let observation: string;
      let summary: TurnSummary;
      let usedNonce: string | undefined;
      if (!parsed.ok) {
        observation = `error: ${parsed.error}`;
        summary = { ...emptySummary(input.turn, 'tool_error', parsed.error), tool: null };
      } else if (parsed.call.tool === 'submit') {
        observation = 'submitted';
        summary = { ...emptySummary(input.turn, 'submitted', null), tool: 'submit' };
      } else {
        const nonce = entry?.phase === 'started' ? entry.nonce : randomBytes(16).toString('hex');
        if (entry?.phase !== 'started') await atomicWrite(path, JSON.stringify({ phase: 'started', action, nonce } satisfies JournalEntry));
        usedNonce = nonce;
        const outcome = await runInSandbox(input, parsed.call, nonce, entry?.phase === 'started', await previousNonces(input));
        if ('crash' in outcome) {
          observation = `error: ${outcome.detail}`;
          summary = { ...emptySummary(input.turn, outcome.crash, outcome.detail), tool: parsed.call.tool };
        } else {
          ({ observation, summary } = describeResult(input.turn, parsed.call, outcome));
        }
      }
      const kind = actionKind(action.text);
      if (kind) summary.actionKind = kind;
      summary.actionTokens = action.tokenIds.length;
      summary.observationTokens = countByteTokens(observation);
      let model: ModelRecord | undefined;
      if (snapshot && action.contextRef) {
        const context = JSON.parse((await store.getBlob(action.contextRef)).toString('utf8')) as ModelContext;
        const seen = observationIds(observation, policyTokenizer, { mode: snapshot.sampling.observations, maxTokens: snapshot.sampling.maxObservationTokens });
        appendGiven(context, seen);
        summary.observationTokens = seen.length;
        const memory = rememberTurn(previous?.memory ?? { sourceLines: [], actions: [] }, action.text, withoutFooter(observation), summary.exitCode, snapshot.sampling.observations);
        model = { contextRef: await store.putJson(context), memory, tokens: context.ids.length, inferenceMs };
      }
      const [actionRef, tokenIdsRef, logprobsRef, observationRef] = await Promise.all([
        store.putBlob(action.text), store.putJson(action.tokenIds), store.putJson(action.logprobs), store.putBlob(observation),
      ]);
      const record = {
        turn: input.turn,
        policyVersion: action.version,
        status: summary.status,
        action: { ref: actionRef, tool: summary.tool, tokenIdsRef, logprobsRef, tokens: summary.actionTokens },
        observation: { ref: observationRef, tokens: summary.observationTokens, exitCode: summary.exitCode, timedOut: summary.timedOut, truncated: summary.truncated },
        durationMs: Date.now() - started,
        ...(model ? { model } : {}),
      };
      await store.writeNamed(`episodes/${episodeKey(input.episodeId)}/turns/${String(input.turn).padStart(6, '0')}.json`, JSON.stringify(record));
      await atomicWrite(path, JSON.stringify({ phase: 'done', summary, ...(usedNonce ? { nonce: usedNonce } : {}) } satisfies JournalEntry));
      return summary;
    },
  };

  async function readTurnRecord(episodeId: string, turn: number): Promise<{ model?: ModelRecord } | null> {
    const raw = await store.readNamed(`episodes/${episodeKey(episodeId)}/turns/${String(turn).padStart(6, '0')}.json`);
    return raw ? (JSON.parse(raw.toString('utf8')) as { model?: ModelRecord }) : null;
  }

  /**
   * Samples a token-level policy's action after the context so far; the context with the action is
   * stored before the tool call, so a retried turn finds the same action in the journal.
   */
  async function sampleTokenAction(input: TakeTurnInput, snapshot: TokenPolicySnapshot, previous: ModelRecord | null): Promise<PolicyAction | { tokenLimit: string }> {
    let context: ModelContext;
    if (previous) {
      context = JSON.parse((await store.getBlob(previous.contextRef)).toString('utf8')) as ModelContext;
    } else {
      if (input.turn > 0) throw new PolicyError(`turn ${input.turn}: the model context of turn ${input.turn - 1} is missing`);
      if (!input.promptRef) throw new PolicyError('a token-level policy needs the task prompt');
      context = emptyContext();
      appendGiven(context, promptIds((await store.getBlob(input.promptRef)).toString('utf8'), policyTokenizer, snapshot.sampling.maxPromptTokens));
    }
    const memory = previous?.memory ?? { sourceLines: [], actions: [] };
    // room for the longest allowed action (or the action budget) and an empty observation
    const room = snapshot.sampling.constrained ? longestAction(memory) : snapshot.sampling.maxActionTokens;
    const needed = context.ids.length + 1 + room + 2;
    if (needed > snapshot.window) {
      return { tokenLimit: `the context holds ${context.ids.length} tokens; the next action needs up to ${room + 3} more, beyond the window of ${snapshot.window}` };
    }
    appendGiven(context, [actId]);
    const sampled = await sampleAction(snapshot, context, memory, [snapshot.sampling.seed, input.episodeId, input.turn], input.maxTurns ?? Number.MAX_SAFE_INTEGER);
    return { text: sampled.text, tokenIds: sampled.tokenIds, logprobs: sampled.logprobs, version: sampled.version, contextRef: await store.putJson(context) };
  }

  /** Nonces of the latest earlier call whose result is journaled: its spool files can go. */
  async function previousNonces(input: TakeTurnInput): Promise<string[]> {
    for (let turn = input.turn - 1; turn >= Math.max(0, input.turn - 16); turn--) {
      const entry = await readJournal(journalPath(input.episodeId, turn));
      if (entry?.phase === 'done' && entry.nonce) return [entry.nonce];
    }
    return [];
  }

}

/** A token-level policy's state after a turn: its whole context (ids, masks, log-probs) and memory. */
export interface ModelRecord {
  contextRef: string;
  memory: PolicyMemory;
  tokens: number;
  /** time spent sampling the action (0 when a retry found it in the journal) */
  inferenceMs: number;
}

/** The observation without the `[exit code N]` line that describeResult appends. */
function withoutFooter(observation: string): string {
  return observation.replace(/\n?\[(exit code|killed|timed out|output truncated)[^\n]*\]\s*$/, '');
}

function emptySummary(turn: number, status: TurnStatus, detail: string | null): TurnSummary {
  return { turn, tool: null, status, exitCode: null, timedOut: false, truncated: false, actionTokens: 0, observationTokens: 0, detail };
}

/** Formats a runner result as the agent's observation and the workflow's summary. */
function describeResult(turn: number, call: Exclude<ToolCall, { tool: 'submit' }>, result: RunnerResult): { observation: string; summary: TurnSummary } {
  const summary = { ...emptySummary(turn, 'ok', null), tool: call.tool };
  if (result.oomKilled) {
    return { observation: `${result.output ?? ''}\n[killed: out of memory]`, summary: { ...summary, status: 'agent_crash', exitCode: result.exitCode ?? null, detail: 'a tool call ran the sandbox out of memory' } };
  }
  if (result.error !== undefined) {
    return { observation: `error: ${result.error}`, summary: { ...summary, status: 'tool_error', detail: result.error } };
  }
  if (call.tool === 'write_file') {
    return { observation: `wrote ${result.written ?? 0} bytes to ${call.path}`, summary };
  }
  const output = result.output ?? '';
  const notes: string[] = [];
  if (result.timedOut) notes.push('[timed out: the process group was killed]');
  else notes.push(result.exitCode === null || result.exitCode === undefined ? `[killed by signal ${result.signal}]` : `[exit code ${result.exitCode}]`);
  if (result.truncated) notes.push(`[output truncated: ${result.outputBytes} bytes in all]`);
  const observation = `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${notes.join(' ')}`;
  return {
    observation,
    summary: { ...summary, exitCode: result.exitCode ?? null, timedOut: Boolean(result.timedOut), truncated: Boolean(result.truncated) },
  };
}

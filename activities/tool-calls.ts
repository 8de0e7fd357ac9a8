import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { Context } from '@temporalio/activity';
import type { PolicySummary, SandboxHandle } from '../shared/episode';
import { parseToolCall, type ToolCall } from '../shared/tool-call';
import { countByteTokens } from '../shared/tokenizer';
import { atomicWrite, episodeKey, type ArtifactStore } from './artifact-store';
import { ArchiveTooLargeError, buildTar, execCollect, isNotFound, readContainerFile } from './docker-util';
import { nextAction, PolicyError, type PolicyAction } from './policies';
import { spoolPath } from './sandbox-lifecycle';

export type TurnStatus = 'ok' | 'tool_error' | 'submitted' | 'agent_crash' | 'sandbox_crash' | 'policy_error';

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
}

/** Kept small: it is written into the workflow history on every turn. */
export interface TakeTurnInput {
  /** the workflow id with its first run id: a reused workflow id starts a new journal */
  episodeId: string;
  turn: number;
  /** the sandbox's container name */
  container: string;
  policy: Pick<PolicySummary, 'ref' | 'version'>;
  toolTimeoutMs: number;
  maxObservationBytes: number;
}

/** The result the in-sandbox runner writes for one call. */
interface RunnerResult {
  exitCode?: number | null;
  signal?: number | null;
  timedOut?: boolean;
  output?: string;
  outputBytes?: number;
  truncated?: boolean;
  written?: number;
  error?: string;
  oomKilled?: boolean;
}

type Crash = { crash: 'agent_crash' | 'sandbox_crash'; detail: string };

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

/** Requests up to this size go in the exec's environment (far below the kernel's 128 KiB per string). */
const inlineRequestBytes = 64 * 1024;

/** The turn activity: asks the policy, runs the tool call exactly once, records both. */
export function createToolCallActivities(deps: ToolCallDeps) {
  const { docker, store } = deps;
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
      if (entry) {
        action = entry.action;
      } else {
        try {
          action = await nextAction(input.policy, input.turn, store);
        } catch (error) {
          if (!(error instanceof PolicyError)) throw error;
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
      summary.actionTokens = action.tokenIds.length;
      summary.observationTokens = countByteTokens(observation);
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
      };
      await store.writeNamed(`episodes/${episodeKey(input.episodeId)}/turns/${String(input.turn).padStart(6, '0')}.json`, JSON.stringify(record));
      await atomicWrite(path, JSON.stringify({ phase: 'done', summary, ...(usedNonce ? { nonce: usedNonce } : {}) } satisfies JournalEntry));
      return summary;
    },
  };

  /** Runs a call through the in-sandbox runner; on a retry, finds the call already started instead of running it again. */
  /** Nonces of the latest earlier call whose result is journaled: its spool files can go. */
  async function previousNonces(input: TakeTurnInput): Promise<string[]> {
    for (let turn = input.turn - 1; turn >= Math.max(0, input.turn - 16); turn--) {
      const entry = await readJournal(journalPath(input.episodeId, turn));
      if (entry?.phase === 'done' && entry.nonce) return [entry.nonce];
    }
    return [];
  }

  async function runInSandbox(
    input: Pick<TakeTurnInput, 'container' | 'toolTimeoutMs' | 'maxObservationBytes'>,
    call: Exclude<ToolCall, { tool: 'submit' }>,
    nonce: string,
    recovering: boolean,
    cleanup: string[],
  ): Promise<RunnerResult | Crash> {
    const container = docker.getContainer(input.container);
    const heartbeat = setInterval(() => Context.current().heartbeat({ nonce }), 1000);
    try {
      if (recovering) {
        const crash = await crashOf(container);
        if (crash) return crash;
        const recorded = await readSpoolResult(container, nonce, input.maxObservationBytes);
        if (recorded) return recorded;
        if ((await readContainerFile(container, `${spoolPath}/${nonce}.started`)) !== null) return await waitForResult(container, nonce, input.toolTimeoutMs, input.maxObservationBytes);
      }
      const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
      const env = [
        `AGENTRL_TOOL=${call.tool}`,
        `AGENTRL_ARG1=${base64(call.tool === 'bash' ? call.command : call.path)}`,
        `AGENTRL_ARG2=${base64(call.tool === 'write_file' ? call.content : '')}`,
        `AGENTRL_TIMEOUT_MS=${input.toolTimeoutMs}`,
        `AGENTRL_MAX_OUTPUT=${input.maxObservationBytes}`,
        `AGENTRL_CLEANUP=${cleanup.join(',')}`,
      ];
      // small requests travel in the exec's environment: one Docker round trip fewer per call
      if (env.some((variable) => variable.length > inlineRequestBytes)) {
        env.length = 0;
        const request = Buffer.from(JSON.stringify({ ...call, timeoutMs: input.toolTimeoutMs, maxOutputBytes: input.maxObservationBytes, cleanup }));
        // owned by the agent's uid so the runner can delete it once read; its random name cannot be listed
        await container.putArchive(await buildTar([{ path: `${nonce}.req.json`, content: request, mode: 0o400 }], { uid: deps.uid, gid: deps.uid }), { path: spoolPath });
      }
      let exec;
      try {
        exec = await execCollect(docker, container, ['python3', '-I', '-S', `${spoolPath}/run-tool.py`, nonce], { user: `${deps.uid}:${deps.uid}`, workingDir: '/work', env, inspect: false, maxBytes: input.maxObservationBytes * 8 + 65_536 });
      } catch (error) {
        const crashed = await crashOf(container);
        if (crashed) return crashed;
        throw error;
      }
      const line = exec.stdout.trim().split('\n').pop() ?? '';
      try {
        const result = JSON.parse(line) as RunnerResult & { alreadyStarted?: boolean };
        if (result.alreadyStarted) return await waitForResult(container, nonce, input.toolTimeoutMs, input.maxObservationBytes);
        return result;
      } catch {
        exec.exitCode = await exec.inspectExitCode();
        const recorded = await readSpoolResult(container, nonce, input.maxObservationBytes);
        if (recorded) return recorded;
        // the runner died without a result: an outside kill of the container shows up as stopped within moments
        for (let attempt = 0; attempt < 20; attempt++) {
          const crashed = await crashOf(container);
          if (crashed) return crashed;
          await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
        }
        const info = await container.inspect();
        if (exec.exitCode === 137 && (await hostOomKills(info.Id)) > 0) {
          return { crash: 'agent_crash', detail: 'the tool-call runner was killed by the out-of-memory killer' };
        }
        // the agent's own processes can kill the runner (same uid): its call is over, with no result
        if (exec.exitCode === 137) return { error: 'the tool call killed its own runner' };
        throw new Error(`tool-call runner failed (exit ${exec.exitCode}): ${exec.stderr.slice(-500)}`);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** The recorded result of a call; one the agent's processes garbled becomes a tool error, not a retry loop. */
  async function readSpoolResult(container: Dockerode.Container, nonce: string, maxObservationBytes: number): Promise<RunnerResult | null> {
    let data: Buffer | null;
    try {
      data = await readContainerFile(container, `${spoolPath}/${nonce}.json`, maxObservationBytes * 8 + 65_536);
    } catch (error) {
      if (error instanceof ArchiveTooLargeError) return { error: 'the tool call left an oversized result' };
      throw error;
    }
    if (!data) return null;
    try {
      return JSON.parse(data.toString('utf8')) as RunnerResult;
    } catch {
      return { error: 'the tool call left an unreadable result' };
    }
  }

  /** Polls the spool for the result of a call that an earlier attempt started. */
  async function waitForResult(container: Dockerode.Container, nonce: string, toolTimeoutMs: number, maxObservationBytes: number): Promise<RunnerResult | Crash> {
    // the runner enforces the tool timeout itself; the margin covers its start-up and clean-up
    const deadline = Date.now() + toolTimeoutMs + 30_000;
    while (Date.now() < deadline) {
      const result = await readSpoolResult(container, nonce, maxObservationBytes);
      if (result) return result;
      const crash = await crashOf(container);
      if (crash) return crash;
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 200));
    }
    return { error: 'the tool call was interrupted and left no result' };
  }
}

/** Null while the container runs; else whether the agent (out of memory) or something outside killed it. */
async function crashOf(container: Dockerode.Container): Promise<Crash | null> {
  try {
    const info = await container.inspect();
    if (info.State.Running) return null;
    if (info.State.OOMKilled) return { crash: 'agent_crash', detail: 'the sandbox ran out of memory' };
    return { crash: 'sandbox_crash', detail: `the sandbox stopped from outside (status ${info.State.Status}, exit ${info.State.ExitCode})` };
  } catch (error) {
    if (isNotFound(error)) return { crash: 'sandbox_crash', detail: 'the sandbox container no longer exists' };
    throw error;
  }
}

/** OOM kills in a container's memory cgroup, read on the host (cgroup v1 or v2); 0 when unknown. */
async function hostOomKills(containerId: string): Promise<number> {
  const candidates: [string, string][] = [
    [`/sys/fs/cgroup/memory/docker/${containerId}/memory.oom_control`, 'oom_kill'],
    [`/sys/fs/cgroup/system.slice/docker-${containerId}.scope/memory.events`, 'oom_kill'],
    [`/sys/fs/cgroup/docker/${containerId}/memory.events`, 'oom_kill'],
  ];
  for (const [path, key] of candidates) {
    try {
      const line = (await readFile(path, 'utf8')).split('\n').find((entry) => entry.startsWith(`${key} `));
      if (line) return Number(line.split(' ')[1]);
    } catch {
      // not this cgroup layout
    }
  }
  return 0;
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

import { readFile } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { Context, log } from '@temporalio/activity';
import { z } from 'zod';
import type { ToolCall } from '../../shared/contracts/tool-call';
import type { SandboxExecutor } from '../../shared/contracts/config';
import { ArchiveTooLargeError, buildTar, execCollect, isNotFound, readContainerFile } from './docker';
import { spoolPath } from './container';
import { createExecutorClient, SpoolFileTooLarge, type ExecutorChannel } from './executor';

/** The result the in-sandbox runner (sandbox/run-tool.py) writes for one call. */
export const RunnerResult = z.object({
  exitCode: z.number().int().nullable().optional(),
  signal: z.number().int().nullable().optional(),
  timedOut: z.boolean().optional(),
  output: z.string().optional(),
  outputBytes: z.number().int().optional(),
  truncated: z.boolean().optional(),
  written: z.number().int().optional(),
  error: z.string().optional(),
  oomKilled: z.boolean().optional(),
});
export type RunnerResult = z.infer<typeof RunnerResult>;
/** What the runner prints: its result, or that an earlier attempt already started the call. */
const RunnerLine = RunnerResult.extend({ alreadyStarted: z.boolean().optional() });

/** Parses runner JSON with its schema; null when it is not JSON or not the runner's shape. */
function parseRunner<S extends z.ZodType>(schema: S, text: string): z.infer<S> | null {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type Crash = { crash: 'agent_crash' | 'sandbox_crash'; detail: string };

/** Requests up to this size go in the exec's environment (far below the kernel's 128 KiB per string). */
const inlineRequestBytes = 64 * 1024;

/** Where and how one call runs. */
export interface RunTarget {
  /** the sandbox's container name */
  container: string;
  toolTimeoutMs: number;
  maxObservationBytes: number;
}

/** How the runner reaches sandboxes: its mode and the executor client it shares with the lifecycle activities. */
export interface RunnerDeps {
  docker: Dockerode;
  uid: number;
  /** @default 'exec' */
  executor?: SandboxExecutor;
  executorClient?: ReturnType<typeof createExecutorClient>;
}

/**
 * The protocol with sandbox/run-tool.py: a request in, a result in the spool, exactly once per nonce; through the
 * sandbox's executor (executor.ts) or one `docker exec` per call.
 */
export function createSandboxRunner(deps: RunnerDeps) {
  const { docker } = deps;
  const server = deps.executor === 'server';
  const executor = deps.executorClient ?? createExecutorClient(docker, deps.uid);
  return { runInSandbox };

  /**
   * Runs a call through the in-sandbox runner; on a retry, finds the call already started instead of running it again.
   */
  async function runInSandbox(
    input: RunTarget,
    call: Exclude<ToolCall, { tool: 'submit' }>,
    nonce: string,
    recovering: boolean,
    cleanup: string[],
  ): Promise<RunnerResult | Crash> {
    const container = docker.getContainer(input.container);
    const heartbeat = setInterval(() => Context.current().heartbeat({ nonce }), 1000);
    try {
      const channel = server ? await executor.channelOf(input.container) : null;
      const spool = spoolOf(container, channel);
      if (recovering) {
        const crash = await crashOf(container);
        if (crash) return crash;
        const recorded = await readSpoolResult(spool, nonce, input.maxObservationBytes);
        if (recorded) return recorded;
        if ((await spool.read(`${nonce}.started`, 1024)) !== null)
          return await waitForResult(container, spool, nonce, input.toolTimeoutMs, input.maxObservationBytes);
      }
      if (channel) {
        const served = await throughExecutor(container, channel, input, call, nonce, cleanup);
        if (served !== 'unreachable') return served;
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
        const request = Buffer.from(
          JSON.stringify({
            ...call,
            timeoutMs: input.toolTimeoutMs,
            maxOutputBytes: input.maxObservationBytes,
            cleanup,
          }),
        );
        // owned by the agent's uid so the runner can delete it once read; its random name cannot be listed
        try {
          await container.putArchive(
            await buildTar([{ path: `${nonce}.req.json`, content: request, mode: 0o400 }], {
              uid: deps.uid,
              gid: deps.uid,
            }),
            { path: spoolPath },
          );
        } catch (error) {
          // the agent can fill the spool (it writes there): the call cannot start, and nothing of it ran
          if (!/no space left on device/i.test((error as Error).message)) throw error;
          return { error: 'the call could not start: no space left in the sandbox for its request' };
        }
      }
      let exec;
      try {
        exec = await execCollect(docker, container, ['python3', '-I', '-S', `${spoolPath}/run-tool.py`, nonce], {
          user: `${deps.uid}:${deps.uid}`,
          // not the repository: its modes are the agent's to change; the runner enters it and says when it cannot
          workingDir: '/',
          env,
          inspect: false,
          maxBytes: input.maxObservationBytes * 8 + 65_536,
        });
      } catch (error) {
        const crashed = await crashOf(container);
        if (crashed) return crashed;
        throw error;
      }
      const line = exec.stdout.trim().split('\n').pop() ?? '';
      const printed = parseRunner(RunnerLine, line);
      if (printed) {
        const { alreadyStarted, ...result } = printed;
        if (alreadyStarted)
          return await waitForResult(container, spool, nonce, input.toolTimeoutMs, input.maxObservationBytes);
        return result;
      }
      // no result printed: look for one in the spool, then for the reason
      exec.exitCode = await exec.inspectExitCode();
      const recorded = await readSpoolResult(spool, nonce, input.maxObservationBytes);
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
      // the agent's own processes can kill or signal the runner (same uid) once it has claimed the call: its call is
      // over, with no result
      if (exec.exitCode === 137 || (await spool.read(`${nonce}.started`, 1024)) !== null)
        return { error: 'the tool call killed its own runner' };
      throw new Error(`tool-call runner failed (exit ${exec.exitCode}): ${exec.stderr.slice(-500)}`);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * One call through the sandbox's executor; 'unreachable' when nothing listens and starting it again fails (the
   * caller then uses `docker exec`). The call's nonce makes a second send harmless: its child finds the claim.
   */
  async function throughExecutor(
    container: Dockerode.Container,
    channel: ExecutorChannel,
    input: RunTarget,
    call: Exclude<ToolCall, { tool: 'submit' }>,
    nonce: string,
    cleanup: string[],
  ): Promise<RunnerResult | Crash | 'unreachable'> {
    const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    const request = {
      nonce,
      tool: call.tool,
      arg1: base64(call.tool === 'bash' ? call.command : call.path),
      arg2: base64(call.tool === 'write_file' ? call.content : ''),
      timeoutMs: input.toolTimeoutMs,
      maxOutput: input.maxObservationBytes,
      cleanup,
    };
    // the child enforces the call's timeout; the margin covers its start and clean-up
    const waitMs = input.toolTimeoutMs + 30_000;
    /** The executor started again (it is gone: the container restarted, or its process was killed), once per call. */
    let restarted = false;
    const restart = async (): Promise<ExecutorChannel | Crash | 'unreachable'> => {
      restarted = true;
      const crash = await crashOf(container);
      if (crash) return crash;
      executor.forget(input.container);
      const started = await executor.start(input.container);
      if (started.channel) return started.channel;
      log.warn('sandbox executor unavailable; tool calls use docker exec', {
        container: input.container,
        reason: started.reason,
      });
      return 'unreachable';
    };
    let reply = await executor.call(channel, request, waitMs);
    if ('unreachable' in reply) {
      const again = await restart();
      if (typeof again === 'string' || 'crash' in again) return again;
      reply = await executor.call(again, request, waitMs);
      if ('unreachable' in reply) return 'unreachable';
    }
    const spool = spoolOf(container, channel);
    if ('ended' in reply && !restarted && (await spool.read(`${nonce}.started`, 1024)) === null) {
      // closed before the call was claimed, in a running container: nothing of it ran, so an executor that died
      // meanwhile is started again and the call sent once more (its nonce keeps it once)
      const crash = await crashOf(container);
      if (crash) return crash;
      if (!(await executor.ping(input.container))) {
        const again = await restart();
        if (typeof again === 'string' || 'crash' in again) return again;
        reply = await executor.call(again, request, waitMs);
        if ('unreachable' in reply) return 'unreachable';
      }
    }
    if ('line' in reply) {
      const printed = parseRunner(RunnerLine, reply.line);
      if (printed) {
        const { alreadyStarted, ...result } = printed;
        if (alreadyStarted)
          return await waitForResult(container, spool, nonce, input.toolTimeoutMs, input.maxObservationBytes);
        return result;
      }
    }
    // no answer: the result may still be in the spool, else the call's child died (the agent killed it, or the OOM
    // killer), or the whole sandbox stopped
    const recorded = await readSpoolResult(spool, nonce, input.maxObservationBytes);
    if (recorded) return recorded;
    for (let attempt = 0; attempt < 20; attempt++) {
      const crashed = await crashOf(container);
      if (crashed) return crashed;
      if (attempt === 0 && (await spool.read(`${nonce}.started`, 1024)) === null) break;
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
    }
    const info = await container.inspect();
    if ((await hostOomKills(info.Id)) > 0)
      return { crash: 'agent_crash', detail: 'the tool-call runner was killed by the out-of-memory killer' };
    if ((await spool.read(`${nonce}.started`, 1024)) === null) {
      // the container runs and its executor answers: what ended the call is inside the sandbox, whose every writable
      // place and process limit is the agent's (a lost sandbox is a stopped or missing container, above)
      const reason = 'ended' in reply ? reply.ended : 'an unreadable answer';
      log.warn('the sandbox executor ended a call before starting it', { container: input.container, reason });
      return { error: `the sandbox could not start the tool call (${reason})` };
    }
    return { error: 'the tool call killed its own runner' };
  }

  /** The sandbox's spool: read on this host through the executor's channel, else through the archive API. */
  function spoolOf(container: Dockerode.Container, channel: ExecutorChannel | null): SpoolReader {
    return {
      read: async (name, maxBytes) => {
        try {
          return channel
            ? await executor.readSpool(channel, name, maxBytes)
            : await readContainerFile(container, `${spoolPath}/${name}`, maxBytes);
        } catch (error) {
          if (error instanceof SpoolFileTooLarge) throw new ArchiveTooLargeError(error.message);
          throw error;
        }
      },
    };
  }

  /** The recorded result of a call; one the agent's processes garbled becomes a tool error, not a retry loop. */
  async function readSpoolResult(
    spool: SpoolReader,
    nonce: string,
    maxObservationBytes: number,
  ): Promise<RunnerResult | null> {
    let data: Buffer | null;
    try {
      data = await spool.read(`${nonce}.json`, maxObservationBytes * 8 + 65_536);
    } catch (error) {
      if (error instanceof ArchiveTooLargeError) return { error: 'the tool call left an oversized result' };
      throw error;
    }
    if (!data) return null;
    return parseRunner(RunnerResult, data.toString('utf8')) ?? { error: 'the tool call left an unreadable result' };
  }

  /** Polls the spool for the result of a call that an earlier attempt started. */
  async function waitForResult(
    container: Dockerode.Container,
    spool: SpoolReader,
    nonce: string,
    toolTimeoutMs: number,
    maxObservationBytes: number,
  ): Promise<RunnerResult | Crash> {
    // the runner enforces the tool timeout itself; the margin covers its start-up and clean-up
    const deadline = Date.now() + toolTimeoutMs + 30_000;
    while (Date.now() < deadline) {
      const result = await readSpoolResult(spool, nonce, maxObservationBytes);
      if (result) return result;
      const crash = await crashOf(container);
      if (crash) return crash;
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 200));
    }
    return { error: 'the tool call was interrupted and left no result' };
  }
}

/** Reads a file of the sandbox's spool by name (null when absent). */
interface SpoolReader {
  read(name: string, maxBytes: number): Promise<Buffer | null>;
}

/** Null while the container runs; else whether the agent (out of memory) or something outside killed it. */
async function crashOf(container: Dockerode.Container): Promise<Crash | null> {
  try {
    const info = await container.inspect();
    if (info.State.Running) return null;
    if (info.State.OOMKilled) return { crash: 'agent_crash', detail: 'the sandbox ran out of memory' };
    return {
      crash: 'sandbox_crash',
      detail: `the sandbox stopped from outside (status ${info.State.Status}, exit ${info.State.ExitCode})`,
    };
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

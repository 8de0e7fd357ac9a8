import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type Dockerode from 'dockerode';
import { z } from 'zod';
import { emptyMemory } from '../../shared/compact-actions';
import type { SandboxHandle } from '../../shared/contracts/episode';
import { appendGenerated, appendGiven, emptyContext, type ModelContext } from '../../shared/contracts/model-context';
import { ErrorTypes } from '../../shared/names/errors';
import { chatTokenizerOf, fixedReply } from '../policies/chat/chat-policy';
import { generateWithServer, type Generated } from '../policies/chat/generation-clients';
import { PolicyError } from '../policies/policy-action';
import { drawSeed, TokenPolicySnapshot } from '../policies/token-policy';
import { execCollect, readContainerFile } from '../sandbox/docker';
import { sweepAgentProcesses } from '../sandbox/sweep';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords, type TurnRecord } from '../store/episode-records';
import { waitingForPolicy } from '../tools/take-turn';
import {
  CallRecord,
  GatewayRequestSchema,
  promptIdsOf,
  readReply,
  type PreviousCall,
  type SegmentStart,
} from './calls';
import { gatewayMountPath, gatewaySocketName, harnessMountPath, harnessRoot } from './mounts';

/**
 * The activities of a harness episode: one model call's generation (the durable step the gateway's update runs), the
 * harness's run in its sandbox, and the turn records made from the calls when the harness is done.
 */

export interface GenerateCallInput {
  episodeId: string;
  launch: number;
  /** the call's place in the trajectory */
  index: number;
  requestRef: string;
  /** the call this one may extend (the trajectory's last), null for the first */
  previousCallRef: string | null;
  policyRef: string;
  /** the weight version to sample (a resume or a run's switch), else the policy's */
  version: string;
}

export type GenerateCallResult =
  | {
      callRef: string;
      promptTokens: number;
      generatedTokens: number;
      segmentStart: SegmentStart | null;
      version: string;
      inferenceMs: number;
    }
  | { tokenLimit: string };

export interface RunHarnessInput {
  sandbox: SandboxHandle;
  episodeId: string;
  workflowId: string;
  session: string;
  key: string;
  harness: string;
  promptRef: string;
  /** the harness is stopped after this long (the episode's deadline) */
  timeLimitMs: number;
  /** a harness that neither calls the model nor exits for this long is stopped as hung */
  idleLimitMs: number;
  /** the model name the harness is told */
  model: string;
}

export interface HarnessRun {
  exitCode: number | null;
  /** the signal that ended the harness (SIGKILL: killed from outside) */
  signal: string | null;
  /** stopped at the time limit, or as hung */
  stopped: 'time' | 'idle' | null;
  durationMs: number;
  /** the harness's output (stdout and stderr), in the store */
  logRef: string;
  /** the output's last lines (at most 600 characters), for the episode's detail when the harness failed */
  tail: string;
}

/** The model gateway of this host's worker (serving/gateway/server.ts), as the harness's run uses it. */
export interface HarnessGateway {
  open(session: { id: string; key: string; workflowId: string; model: string; dir: string }): Promise<void>;
  close(id: string): Promise<void>;
  lastActivity(id: string): number | null;
  counts(id: string): { requests: number; refused: number } | null;
}

export interface HarnessDeps {
  docker: Dockerode;
  store: ArtifactStore;
  uid: number;
  gateway?: HarnessGateway;
}

/** A stored conversation as the chat template takes it. */
const ChatConversation = z.array(
  z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() }),
);

/** The least time a harness has to make its first request before it counts as hung. */
const startupMs = 120_000;

const taskFile = '/tmp/agentrl-task.md';
const statusFile = '/tmp/agentrl-harness-status.json';

export function createHarnessActivities(deps: HarnessDeps) {
  const { store } = deps;
  const records = createEpisodeRecords(store);

  async function previousOf(ref: string | null): Promise<PreviousCall | null> {
    if (!ref) return null;
    const record = await store.getJson(ref, CallRecord);
    const request = await store.getJson(record.requestRef, GatewayRequestSchema);
    const conversation = record.conversationRef
      ? await store.getJson(record.conversationRef, ChatConversation)
      : undefined;
    return { record, request, ...(conversation ? { conversation } : {}) };
  }

  return {
    /** One model call: the prompt ids (extending the previous call where the request does), generated, recorded. */
    generateCall: async (input: GenerateCallInput): Promise<GenerateCallResult> => {
      const snapshot = await store.getJson(input.policyRef, TokenPolicySnapshot);
      if (snapshot.interface !== 'chat-tools')
        throw ApplicationFailure.nonRetryable(
          `a harness needs a chat policy (vllm:, sglang:, replies: or tokens:), not ${snapshot.kind}:`,
          ErrorTypes.invalidPolicy,
        );
      const tokenizer = chatTokenizerOf(snapshot);
      const request = await store.getJson(input.requestRef, GatewayRequestSchema);
      const previous = await previousOf(input.previousCallRef);
      const prompt = promptIdsOf(tokenizer, request, previous);
      const room = snapshot.window - prompt.ids.length - 1;
      if (room < 1)
        return {
          tokenLimit:
            `the call's prompt holds ${prompt.ids.length} tokens; the window of ${snapshot.window} has no room ` +
            'for an answer',
        };
      const maxTokens = Math.min(request.maxTokens ?? snapshot.sampling.chat.maxActionTokens, room);
      const started = performance.now();
      let generated: Generated;
      if (snapshot.kind === 'replies') {
        generated = fixedReply(tokenizer, snapshot, input.index, maxTokens, input.version);
      } else if (snapshot.kind === 'tokens') {
        const fixed = snapshot.fixedTurns?.[input.index];
        if (!fixed) throw new PolicyError(`tokens: policy has no ids for call ${input.index + 1}`);
        const ids = fixed.ids.slice(0, maxTokens);
        generated = {
          ids,
          logprobs: (fixed.logprobs ?? ids.map(() => 0)).slice(0, ids.length),
          finishReason: ids.length < fixed.ids.length ? 'length' : 'stop',
          version: input.version,
        };
      } else if (snapshot.kind === 'vllm' || snapshot.kind === 'sglang') {
        // a served model's answer can take longer than the heartbeat timeout: beat while it generates
        const context = Context.current();
        const beat = setInterval(() => context.heartbeat({ call: input.index }), 2000);
        try {
          generated = await waitingForPolicy(() =>
            generateWithServer(snapshot, {
              promptIds: prompt.ids,
              maxTokens,
              temperature: request.temperature ?? snapshot.sampling.temperature,
              seed: drawSeed(snapshot.sampling.seed, input.episodeId, 'call', input.index),
              stopIds: tokenizer.stopIds,
              version: input.version,
            }),
          );
        } finally {
          clearInterval(beat);
        }
      } else {
        throw ApplicationFailure.nonRetryable(
          `${snapshot.kind}: cannot answer a harness's calls (it writes the built-in loop's tools only)`,
          ErrorTypes.invalidPolicy,
        );
      }
      const inferenceMs = Math.round(performance.now() - started);
      const cut = cutAtStop(tokenizer, generated, request.stop);
      const ended = cut.ids.length > 0 && tokenizer.stopIds.includes(cut.ids.at(-1)!);
      const text = tokenizer.decode(ended ? cut.ids.slice(0, -1) : cut.ids);
      const conversationRef = prompt.conversation ? await store.putJson(prompt.conversation) : null;
      const record: CallRecord = {
        episodeId: input.episodeId,
        launch: input.launch,
        index: input.index,
        requestRef: input.requestRef,
        promptIds: prompt.ids,
        segmentStart: prompt.segmentStart,
        ...(conversationRef ? { conversationRef } : {}),
        generatedIds: cut.ids,
        logprobs: cut.logprobs,
        versions: cut.ids.map((_, position) => generated.versions?.[position] ?? generated.version),
        version: generated.version,
        finishReason: cut.finishReason,
        inferenceMs,
        reply: readReply(text, request, `${input.episodeId}\u0000${input.index}\u0000${cut.ids.join(',')}`),
      };
      const callRef = await store.putJson(CallRecord.parse(record));
      return {
        callRef,
        promptTokens: prompt.ids.length,
        generatedTokens: cut.ids.length,
        segmentStart: prompt.segmentStart,
        version: generated.version,
        inferenceMs,
      };
    },

    /** Runs the harness in its sandbox until it exits, is stopped at a limit, or the workflow cancels it. */
    runHarness: async (input: RunHarnessInput): Promise<HarnessRun> => {
      const gateway = deps.gateway;
      if (!gateway) throw ApplicationFailure.nonRetryable('this worker runs no model gateway', ErrorTypes.sandboxCrash);
      if (!existsSync(join(harnessRoot(), 'launch.py')))
        throw ApplicationFailure.nonRetryable(
          `no harnesses are installed on this host (${harnessRoot()}); run bash scripts/setup.sh`,
          ErrorTypes.sandboxCrash,
        );
      const container = deps.docker.getContainer(input.sandbox.containerName);
      const info = await container.inspect();
      const dir = info.Mounts?.find((mount) => mount.Destination === gatewayMountPath)?.Source;
      if (!dir)
        throw ApplicationFailure.nonRetryable(
          `the sandbox ${input.sandbox.containerName} was made without the gateway's folder`,
          ErrorTypes.sandboxCrash,
        );
      const prompt = (await store.getBlob(input.promptRef)).toString('utf8');
      await gateway.open({ id: input.session, key: input.key, workflowId: input.workflowId, model: input.model, dir });
      const sweep = () => sweepAgentProcesses(deps.docker, input.sandbox.containerName, deps.uid, 'docker');
      const started = Date.now();
      try {
        await execCollect(
          deps.docker,
          container,
          ['python3', '-c', writeTaskScript, taskFile, Buffer.from(prompt).toString('base64')],
          { user: `${deps.uid}:${deps.uid}` },
        );
        const output: Buffer[] = [];
        const run = execCollect(
          deps.docker,
          container,
          [
            'python3',
            `${harnessMountPath}/launch.py`,
            '--harness',
            input.harness,
            '--task-file',
            taskFile,
            '--status',
            statusFile,
          ],
          {
            user: `${deps.uid}:${deps.uid}`,
            env: [
              'HOME=/tmp/agentrl-home',
              `AGENTRL_GATEWAY_KEY=${input.key}`,
              `AGENTRL_GATEWAY_MODEL=${input.model}`,
              `AGENTRL_GATEWAY_SOCKET=${gatewayMountPath}/${gatewaySocketName}`,
            ],
            maxBytes: 1024 * 1024,
          },
        ).then((result) => {
          output.push(Buffer.from(result.stdout), Buffer.from(result.stderr));
          return result;
        });
        const context = Context.current();
        let stopped: HarnessRun['stopped'] = null;
        let done = false;
        void run.finally(() => (done = true)).catch(() => undefined);
        while (!done) {
          await Promise.race([run.catch(() => undefined), context.sleep(2000)]);
          context.heartbeat({ session: input.session });
          if (done) break;
          const idle = Date.now() - (gateway.lastActivity(input.session) ?? started);
          // before its first request a harness is starting (importing litellm alone takes seconds on a busy host)
          const limit = gateway.counts(input.session)?.requests
            ? input.idleLimitMs
            : Math.max(input.idleLimitMs, startupMs);
          if (Date.now() - started > input.timeLimitMs) stopped = 'time';
          else if (idle > limit) stopped = 'idle';
          if (stopped) {
            log.info('stopping the harness', { session: input.session, stopped });
            await sweep();
            break;
          }
        }
        const result = await run;
        const status = await readStatus(container);
        const printed = Buffer.concat(output);
        const logRef = await store.putBlob(printed);
        return {
          exitCode: status?.exitCode ?? result.exitCode,
          signal: status?.signal ?? null,
          stopped,
          durationMs: Date.now() - started,
          logRef,
          tail: printed.subarray(Math.max(0, printed.length - 600)).toString('utf8'),
        };
      } catch (error) {
        // cancelled by the workflow (a limit, the episode's end): the harness's processes go with the activity
        if (context().cancellationDetails?.cancelRequested) await sweep().catch(() => undefined);
        throw error;
      } finally {
        await gateway.close(input.session);
      }
    },

    /**
     * The turn records of a harness episode, one per call of its trajectory: each call's generated ids are the turn's
     * action, what the harness sent after it (tool results) the observation, and the model's context is the call's
     * segment so far. Consecutive calls whose prompt extends the previous prompt and generation form one sample; the
     * others close it and start the next. Nothing is re-tokenized: the ids are the records'.
     */
    recordHarnessTurns: async (input: { episodeId: string; callRefs: string[] }): Promise<{ segments: number }> => {
      let context: ModelContext | null = null;
      const samples: string[] = [];
      let previousEnd: number[] | null = null;
      for (const [turn, ref] of input.callRefs.entries()) {
        const record = await store.getJson(ref, CallRecord);
        const extends_ =
          context !== null &&
          previousEnd !== null &&
          record.promptIds.length >= previousEnd.length &&
          previousEnd.every((id, position) => record.promptIds[position] === id);
        let observationIds: number[] = [];
        if (context && extends_) {
          observationIds = record.promptIds.slice(previousEnd!.length);
          appendGiven(context, observationIds);
        } else {
          if (context) samples.push(await records.putContext(context));
          context = emptyContext();
          appendGiven(context, record.promptIds);
        }
        record.generatedIds.forEach((id, position) =>
          appendGenerated(
            context!,
            id,
            record.logprobs[position] ?? 0,
            record.versions[position] ?? record.version,
            null,
          ),
        );
        previousEnd = [...context.ids];
        const [contextRef, actionRef, idsRef, logprobsRef, observationRef] = await Promise.all([
          records.putContext(context),
          store.putBlob(
            Buffer.from(
              record.reply.text + record.reply.toolCalls.map((call) => `\n${call.name} ${call.arguments}`).join(''),
            ),
          ),
          store.putJson(record.generatedIds),
          store.putJson(record.logprobs),
          store.putBlob(Buffer.from(record.segmentStart ? `(${record.segmentStart})` : '')),
        ]);
        const turnRecord: TurnRecord = {
          turn,
          policyVersion: record.version,
          status: 'ok',
          action: {
            ref: actionRef,
            tool: record.reply.toolCalls[0]?.name ?? null,
            tokenIdsRef: idsRef,
            logprobsRef,
            tokens: record.generatedIds.length,
          },
          observation: {
            ref: observationRef,
            tokens: observationIds.length,
            exitCode: null,
            timedOut: false,
            truncated: false,
          },
          durationMs: record.inferenceMs,
          model: {
            contextRef,
            memory: emptyMemory(),
            tokens: context.ids.length,
            // this call's, as a built-in turn's is its own generation's
            inferenceMs: record.inferenceMs,
            chat: { messagesRef: record.requestRef, samples: [...samples] },
          },
        };
        await records.writeTurn(input.episodeId, turnRecord);
      }
      return { segments: input.callRefs.length === 0 ? 0 : samples.length + 1 };
    },
  };
}

function context() {
  return Context.current();
}

/** Writes the task text where the launcher reads it (the rootfs is read-only; /tmp is the container's own tmpfs). */
const writeTaskScript =
  'import base64, os, sys\n' +
  'os.makedirs("/tmp/agentrl-home", exist_ok=True)\n' +
  'open(sys.argv[1], "wb").write(base64.b64decode(sys.argv[2]))\n';

async function readStatus(
  container: Dockerode.Container,
): Promise<{ exitCode: number | null; signal: string | null } | null> {
  const raw = await readContainerFile(container, statusFile).catch(() => null);
  if (!raw) return null;
  try {
    const value = JSON.parse(raw.toString('utf8')) as { exitCode?: unknown; signal?: unknown };
    return {
      exitCode: typeof value.exitCode === 'number' ? value.exitCode : null,
      signal: typeof value.signal === 'string' ? value.signal : null,
    };
  } catch {
    return null;
  }
}

/** The generation cut after the first stop string the request names (its ids up to the token that completes it). */
function cutAtStop(
  tokenizer: { decode(ids: readonly number[]): string },
  generated: Generated,
  stop: readonly string[],
): { ids: number[]; logprobs: number[]; finishReason: 'stop' | 'length' } {
  const whole = { ids: generated.ids, logprobs: generated.logprobs, finishReason: generated.finishReason };
  if (stop.length === 0 || !stop.some((text) => tokenizer.decode(generated.ids).includes(text))) return whole;
  for (let end = 1; end <= generated.ids.length; end++) {
    const text = tokenizer.decode(generated.ids.slice(0, end));
    if (stop.some((value) => text.includes(value)))
      return { ids: generated.ids.slice(0, end), logprobs: generated.logprobs.slice(0, end), finishReason: 'stop' };
  }
  return whole;
}

import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AgentInterfaceNames } from '../../shared/contracts/agent-interface';
import {
  actId,
  ActionTrie,
  compactActions,
  allowedActions,
  demoAction,
  emptyMemory,
  endActId,
  longestAction,
  rememberTurn,
  type PolicyMemory,
} from '../../shared/compact-actions';
import { SamplingOptions } from '../../shared/contracts/episode-input';
import { appendGenerated, appendGiven, emptyContext, type ModelContext } from '../../shared/contracts/model-context';
import { seededRandom } from '../../shared/math/random';
import { policyTokenizer } from '../../shared/math/tokenizer';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords, type ModelRecord } from '../store/episode-records';
import { complete } from './completions-client';
import { PolicyError, type PolicyAction } from './policy-action';

/** One turn of a `tokens:` policy: the ids it generates (the end-of-turn id included or not) and their log-probs. */
export const FixedTurn = z.object({
  ids: z.array(z.number().int().min(0)).min(1),
  logprobs: z.array(z.number().max(0)).optional(),
});
export type FixedTurn = z.infer<typeof FixedTurn>;

/** The snapshot of a token-level policy, stored in the artifact store at preparation. */
export const TokenPolicySnapshot = z.object({
  kind: z.enum(['completions', 'demo', 'random', 'vllm', 'sglang', 'tokens', 'replies']),
  /** the server's base URL (completions only) */
  url: z.string().nullable(),
  /** the model's context window in tokens */
  window: z.number().int().min(1),
  /** completions: the model (version) every request names; the server refuses another (absent in older snapshots) */
  model: z.string().optional(),
  sampling: SamplingOptions,
  /** vllm: the served model name every request carries (the weight version is checked apart from it) */
  servedModel: z.string().optional(),
  /** tokens: the ids of each turn */
  fixedTurns: z.array(FixedTurn).optional(),
  /** replies: the assistant's text of each call (or turn) */
  fixedReplies: z.array(z.string()).optional(),
  /** a chat demonstrator: `tools` (the call format, no fix; absent in older snapshots) or `solve` (the task's fix) */
  demo: z.enum(['tools', 'solve']).optional(),
  /** chat policies: the fingerprint of the tokenizer the policy was prepared with (every host must load the same) */
  tokenizerFingerprint: z.string().optional(),
  /** how the policy and the sandbox talk (shared/contracts/agent-interface.ts) */
  interface: z.enum(AgentInterfaceNames).default('compact-actions'),
});
export type TokenPolicySnapshot = z.infer<typeof TokenPolicySnapshot>;

/** A 32-bit seed from the parts that identify one draw. */
export function drawSeed(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0);
}

export interface SampledAction {
  text: string;
  /** generated ids, the closing </act> included */
  tokenIds: number[];
  logprobs: number[];
  version: string;
}

/**
 * Samples one action into `context` (which already ends with <act>): token by token within the
 * action trie when constrained, else in one request that stops at </act>.
 */
export async function sampleAction(
  policy: TokenPolicySnapshot,
  context: ModelContext,
  memory: PolicyMemory,
  seedParts: (string | number)[],
  maxTurns: number,
): Promise<SampledAction> {
  const start = context.ids.length;
  const request = (fields: {
    prompt: number[];
    max_tokens: number;
    seed: number;
    stop_token_ids?: number[];
    allowed_token_ids?: number[];
  }) =>
    complete(policy.url ?? '', {
      ...fields,
      temperature: policy.sampling.temperature,
      ...(policy.model ? { model: policy.model } : {}),
    });
  if (policy.kind === 'demo') {
    const trie = new ActionTrie(allowedActions(memory), policyTokenizer, endActId);
    const target = [
      ...policyTokenizer.encode(demoAction(memory, seededRandom(drawSeed(...seedParts, 'demo')), maxTurns)),
      endActId,
    ];
    for (const id of target)
      appendGenerated(
        context,
        id,
        0,
        'demo',
        policy.sampling.constrained ? trie.allowedAfter(context.ids.slice(start)) : null,
      );
    return finish(context, start, 'demo');
  }
  if (!policy.sampling.constrained) {
    if (policy.kind !== 'completions') throw new Error('random: needs the constrained action space');
    const choice = await request({
      prompt: context.ids,
      max_tokens: policy.sampling.maxActionTokens,
      stop_token_ids: [endActId],
      seed: drawSeed(...seedParts),
    });
    choice.ids.forEach((id, index) => appendGenerated(context, id, choice.logprobs[index]!, choice.version, null));
    return finish(context, start, choice.version);
  }
  const trie = new ActionTrie(allowedActions(memory), policyTokenizer, endActId);
  const random = seededRandom(drawSeed(...seedParts, 'uniform'));
  let version = policy.kind === 'random' ? 'random' : '';
  for (let step = 0; ; step++) {
    const allowed = trie.allowedAfter(context.ids.slice(start));
    if (allowed.length === 0) break;
    if (allowed.length === 1) {
      // a forced token has probability 1 under the constrained distribution; no model call is needed
      appendGenerated(context, allowed[0]!, 0, version, allowed);
    } else if (policy.kind === 'random') {
      appendGenerated(
        context,
        allowed[Math.floor(random() * allowed.length)]!,
        -Math.log(allowed.length),
        version,
        allowed,
      );
    } else {
      const choice = await request({
        prompt: context.ids,
        max_tokens: 1,
        allowed_token_ids: allowed,
        seed: drawSeed(...seedParts, step),
      });
      version = choice.version;
      appendGenerated(context, choice.ids[0]!, choice.logprobs[0]!, version, allowed);
    }
    if (context.ids.at(-1) === endActId) break;
  }
  // tokens forced before the first model call carry the version of the call that followed
  for (let index = start; index < context.ids.length; index++)
    if (context.versions[index] === '') context.versions[index] = version;
  return finish(context, start, version);
}

function finish(context: ModelContext, start: number, version: string): SampledAction {
  const tokenIds = context.ids.slice(start);
  const body = tokenIds.at(-1) === endActId ? tokenIds.slice(0, -1) : tokenIds;
  let text: string;
  try {
    text = policyTokenizer.decode(body);
  } catch {
    // a special token inside an action: the agent reads a tool error
    text = body.map((id) => (id < 256 ? String.fromCharCode(id) : `<|${id}|>`)).join('');
  }
  return { text, tokenIds, logprobs: context.logprobs.slice(start), version };
}

/** What a token-level policy needs to act at a turn. */
export interface TokenTurn {
  episodeId: string;
  turn: number;
  /** the task's prompt (read at the first turn) */
  promptRef?: string;
  /** the episode's turn budget (the format demonstrator submits before it) */
  maxTurns?: number;
  /** demo:solve only: the files the task's reference fix changes (SolvedFile[], from prepareEpisode) */
  solutionRef?: string;
  /**
   * completions: the version this turn samples (every request of the turn names it, so a turn never
   * mixes versions); @default the version the policy was prepared with
   */
  version?: string;
}

/**
 * A token-level policy at one turn: `act` samples the action after the context so far (the context
 * with the action is stored before the tool call, so a retried turn finds the same action in the
 * journal); `observe` appends the observation and records the model's state of the turn.
 */
export function createTokenPolicy(store: ArtifactStore) {
  const records = createEpisodeRecords(store);
  return {
    /** The snapshot of a prepared token-level policy. */
    snapshot: (ref: string) => store.getJson(ref, TokenPolicySnapshot),

    /** The model's state after the previous turn (null at the first turn). */
    async previous(turn: TokenTurn): Promise<ModelRecord | null> {
      return turn.turn > 0 ? ((await records.readTurn(turn.episodeId, turn.turn - 1))?.model ?? null) : null;
    },

    /** The next action, or the token limit when the window cannot hold it. */
    async act(
      turn: TokenTurn,
      snapshot: TokenPolicySnapshot,
      previous: ModelRecord | null,
    ): Promise<PolicyAction | { tokenLimit: string }> {
      const agent = compactActions;
      let context: ModelContext;
      if (previous) {
        context = await records.readContext(previous.contextRef);
      } else {
        if (turn.turn > 0)
          throw new PolicyError(`turn ${turn.turn}: the model context of turn ${turn.turn - 1} is missing`);
        if (!turn.promptRef) throw new PolicyError('a token-level policy needs the task prompt');
        context = emptyContext();
        appendGiven(
          context,
          agent.promptIds((await store.getBlob(turn.promptRef)).toString('utf8'), {
            maxPromptTokens: snapshot.sampling.maxPromptTokens,
          }),
        );
      }
      const memory = previous?.memory ?? emptyMemory();
      // room for the longest allowed action (or the action budget) and an empty observation
      const room = snapshot.sampling.constrained
        ? longestAction(memory, agent.tokenizer)
        : snapshot.sampling.maxActionTokens;
      if (context.ids.length + 1 + room + 2 > snapshot.window) {
        return {
          tokenLimit:
            `the context holds ${context.ids.length} tokens; the next action needs up to ${room + 3} ` +
            `more, beyond the window of ${snapshot.window}`,
        };
      }
      appendGiven(context, [actId]);
      const policy = snapshot.kind === 'completions' && turn.version ? { ...snapshot, model: turn.version } : snapshot;
      const sampled = await sampleAction(
        policy,
        context,
        memory,
        [snapshot.sampling.seed, turn.episodeId, turn.turn],
        turn.maxTurns ?? Number.MAX_SAFE_INTEGER,
      );
      return {
        text: sampled.text,
        tokenIds: sampled.tokenIds,
        logprobs: sampled.logprobs,
        version: sampled.version,
        contextRef: await records.putContext(context),
      };
    },

    /**
     * The model's state after the turn: the observation appended to the action's context, and the
     * memory updated with `output` (the observation without its exit-status footer).
     */
    async observe(
      snapshot: TokenPolicySnapshot,
      previous: ModelRecord | null,
      action: PolicyAction & { contextRef: string },
      observation: string,
      output: string,
      exitCode: number | null,
      inferenceMs: number,
    ): Promise<{ model: ModelRecord; observationTokens: number }> {
      const agent = compactActions;
      const context = await records.readContext(action.contextRef);
      const seen = agent.observationIds(observation, {
        mode: snapshot.sampling.observations,
        maxTokens: snapshot.sampling.maxObservationTokens,
      });
      appendGiven(context, seen);
      const memory = rememberTurn(
        previous?.memory ?? emptyMemory(),
        action.text,
        output,
        exitCode,
        snapshot.sampling.observations,
      );
      return {
        model: { contextRef: await records.putContext(context), memory, tokens: context.ids.length, inferenceMs },
        observationTokens: seen.length,
      };
    },
  };
}

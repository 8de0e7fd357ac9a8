import { z } from 'zod';
import { parseChatToolCall, type ChatMessage } from '../../../shared/chat/tool-format';
import { emptyMemory } from '../../../shared/compact-actions';
import type { ParsedToolCall } from '../../../shared/contracts/tool-call';
import type { ArtifactStore } from '../../store/artifact-store';
import { createEpisodeRecords, type ModelRecord } from '../../store/episode-records';
import { PolicyError, type PolicyAction } from '../policy-action';
import { drawSeed, type TokenPolicySnapshot, type TokenTurn } from '../token-policy';
import { appendTurn, initialChatContext, observeChat } from './chat-context';
import { demoToolCall, SolvedFile, solvedToolCall } from './chat-demo';
import { loadChatTokenizer } from './chat-tokenizer';
import { generateWithServer, type Generated } from './generation-clients';

/**
 * The chat agent interface's policies: `tokens:` (fixed token ids per turn, a test policy),
 * `demo:tools` (the format demonstrator, chat-demo.ts), `vllm:URL` and `sglang:URL`. Every turn's ids are the ids the
 * policy generated, kept verbatim;
 * contexts are built by chat-context.ts; the tool call is read from the turn's text in the family's
 * format (shared/chat/tool-format.ts).
 */

/** The messages of a chat context so far, stored next to it. */
const Messages = z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() }));

export function createChatPolicy(store: ArtifactStore) {
  const records = createEpisodeRecords(store);
  return {
    /** The next turn's action, or the token limit when the window has no room for one more token. */
    async act(
      turn: TokenTurn,
      snapshot: TokenPolicySnapshot,
      previous: ModelRecord | null,
    ): Promise<PolicyAction | { tokenLimit: string }> {
      const tokenizer = chatTokenizerOf(snapshot);
      let context;
      let messages: ChatMessage[];
      if (previous) {
        if (!previous.chat) throw new PolicyError(`turn ${turn.turn}: the previous turn holds no chat context`);
        context = await records.readContext(previous.contextRef);
        messages = await store.getJson(previous.chat.messagesRef, Messages);
      } else {
        if (turn.turn > 0)
          throw new PolicyError(`turn ${turn.turn}: the model context of turn ${turn.turn - 1} is missing`);
        if (!turn.promptRef) throw new PolicyError('a chat policy needs the task prompt');
        ({ context, messages } = initialChatContext(
          tokenizer,
          snapshot.sampling.chat.systemPrompt,
          (await store.getBlob(turn.promptRef)).toString('utf8'),
        ));
      }
      // one place is kept for the end-of-turn token a turn cut by the limit is closed with
      const room = snapshot.window - context.ids.length - 1;
      if (room < 1)
        return {
          tokenLimit:
            `the context holds ${context.ids.length} tokens, the window of ${snapshot.window} has no ` +
            `room for an action`,
        };
      const maxTokens = Math.min(snapshot.sampling.chat.maxActionTokens, room);
      const version = turn.version ?? snapshot.model ?? '';
      let generated: Generated;
      if (snapshot.kind === 'tokens') {
        const fixed = snapshot.fixedTurns?.[turn.turn];
        if (!fixed)
          throw new PolicyError(
            `tokens: policy has no ids for turn ${turn.turn + 1} (it has ${snapshot.fixedTurns?.length ?? 0})`,
          );
        const cut = fixed.ids.length > maxTokens;
        const ids = fixed.ids.slice(0, maxTokens);
        generated = {
          ids,
          logprobs: (fixed.logprobs ?? ids.map(() => 0)).slice(0, ids.length),
          finishReason: cut ? 'length' : 'stop',
          version,
        };
      } else if (snapshot.kind === 'replies') {
        generated = fixedReply(tokenizer, snapshot, turn.turn, maxTokens, version);
      } else if (snapshot.kind === 'demo') {
        // the call's text encoded as the model would write it, closed by the end-of-turn token
        const maxTurns = turn.maxTurns ?? Number.MAX_SAFE_INTEGER;
        let text;
        if (snapshot.demo === 'solve') {
          if (!turn.solutionRef) throw new PolicyError("demo:solve: the episode carries no task's reference fix");
          text = solvedToolCall(await store.getJson(turn.solutionRef, z.array(SolvedFile)), turn.turn, maxTurns);
        } else
          text = demoToolCall(
            messages,
            turn.turn,
            maxTurns,
            drawSeed(snapshot.sampling.seed, turn.episodeId, turn.turn, 'demo'),
          );
        const ids = [...tokenizer.encodeText(text), tokenizer.stopIds[0]!];
        if (ids.length > maxTokens)
          throw new PolicyError(
            `demo:${snapshot.demo ?? 'tools'}: the call takes ${ids.length} tokens, more than the ${maxTokens} this ` +
              `turn may generate; raise sampling.chat.maxActionTokens or the window`,
          );
        generated = { ids, logprobs: ids.map(() => 0), finishReason: 'stop', version };
      } else {
        generated = await generateWithServer(snapshot, {
          promptIds: context.ids,
          maxTokens,
          temperature: snapshot.sampling.temperature,
          seed: drawSeed(snapshot.sampling.seed, turn.episodeId, turn.turn),
          stopIds: tokenizer.stopIds,
          version,
        });
      }
      const start = context.ids.length;
      const content = appendTurn(tokenizer, context, generated.ids, generated.logprobs, generated.version);
      if (generated.versions)
        generated.versions.forEach((tokenVersion, index) => (context.versions[start + index] = tokenVersion));
      messages.push({ role: 'assistant', content });
      const [contextRef, messagesRef] = await Promise.all([records.putContext(context), store.putJson(messages)]);
      return {
        text: content,
        tokenIds: generated.ids,
        logprobs: generated.logprobs,
        version: generated.version,
        contextRef,
        messagesRef,
        finishReason: generated.finishReason,
      };
    },

    /** The model's state after the observation; `split`: the template broke the prefix and a new sample started. */
    async observe(
      snapshot: TokenPolicySnapshot,
      previous: ModelRecord | null,
      action: PolicyAction & { contextRef: string },
      observation: string,
      inferenceMs: number,
    ): Promise<{ model: ModelRecord; observationTokens: number; split: boolean }> {
      const tokenizer = chatTokenizerOf(snapshot);
      if (!action.messagesRef) throw new PolicyError('a chat action holds no conversation');
      const context = await records.readContext(action.contextRef);
      const messages = await store.getJson(action.messagesRef, Messages);
      const content = snapshot.sampling.observations === 'blank' ? '' : observation;
      messages.push({ role: 'tool', content });
      const observed = observeChat(tokenizer, context, messages, content);
      const samples = [
        ...(previous?.chat?.samples ?? []),
        ...(observed.closed ? [await records.putContext(observed.closed)] : []),
      ];
      const [contextRef, messagesRef] = await Promise.all([
        records.putContext(observed.context),
        store.putJson(messages),
      ]);
      return {
        model: {
          contextRef,
          memory: emptyMemory(),
          tokens: observed.context.ids.length,
          inferenceMs,
          chat: { messagesRef, samples },
        },
        observationTokens: observed.observationTokens,
        split: observed.closed !== null,
      };
    },
  };
}

/** A `replies:` backend's text for a call or turn, encoded and closed by the end-of-turn id, cut to `maxTokens`. */
export function fixedReply(
  tokenizer: ReturnType<typeof loadChatTokenizer>,
  snapshot: TokenPolicySnapshot,
  index: number,
  maxTokens: number,
  version: string,
): Generated {
  const text = snapshot.fixedReplies?.[index];
  if (text === undefined)
    throw new PolicyError(
      `replies: policy has no reply for call ${index + 1} (it has ${snapshot.fixedReplies?.length ?? 0})`,
    );
  const all = [...tokenizer.encodeText(text), tokenizer.stopIds[0]!];
  const ids = all.slice(0, maxTokens);
  return { ids, logprobs: ids.map(() => 0), finishReason: ids.length < all.length ? 'length' : 'stop', version };
}

/** The snapshot's tokenizer, as this host loads it: one that differs from the prepared one is a policy error. */
export function chatTokenizerOf(snapshot: TokenPolicySnapshot) {
  const tokenizer = loadChatTokenizer(snapshot.sampling.chat.tokenizer);
  if (snapshot.tokenizerFingerprint && snapshot.tokenizerFingerprint !== tokenizer.fingerprint) {
    throw new PolicyError(
      `the tokenizer ${tokenizer.name} on this host (${tokenizer.fingerprint}) is not the one the policy was ` +
        `prepared with (${snapshot.tokenizerFingerprint}); prepare the model cache alike on every host`,
    );
  }
  return tokenizer;
}

/** The tool call of a chat turn: a turn cut by the length limit says so. */
export function chatToolCall(action: Pick<PolicyAction, 'text' | 'finishReason'>): ParsedToolCall {
  return parseChatToolCall(action.text, { cutByLength: action.finishReason === 'length' });
}

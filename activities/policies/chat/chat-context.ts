import { chatTools, hermesToolPrompt, type ChatMessage } from '../../../shared/chat/tool-format';
import { appendGenerated, appendGiven, emptyContext, type ModelContext } from '../../../shared/contracts/model-context';
import type { ChatTokenizer } from './chat-tokenizer';

/**
 * Token-in/token-out contexts under a chat template. A context is never re-encoded:
 *
 * - the first context is the template's rendering of [system, user] with the generation prompt;
 * - each turn's generated ids are appended verbatim (mask 1, with log-probs and version); a turn
 *   that did not end with an end-of-turn id (cut by the length limit) gets one, given (mask 0),
 *   as the template would close the message;
 * - each observation is rendered as a `tool` message and tokenized as the delta against a fixed
 *   base conversation (the approach of SkyRL's generator and verl's agent loop): the base rendered,
 *   cut right after its last end-of-turn token, is a prefix of the base plus the observation
 *   rendered with the generation prompt, and the rest is the delta (the newline after the model's
 *   end-of-turn, which the model never generates, travels with it).
 *
 * After each observation the context is checked against the template: its text must be the
 * template's rendering of the conversation so far. Where a template renders history differently
 * (some strip earlier reasoning), the context so far is closed as a training sample, a new one
 * starts from the template's rendering (all given), and the split is counted; nothing is patched.
 */

const fixedBase: readonly ChatMessage[] = [
  { role: 'system', content: 'base' },
  { role: 'user', content: 'base' },
];

/** The system message of a chat agent: the prompt, and the tools for templates without `tools`. */
export function systemMessage(tokenizer: ChatTokenizer, systemPrompt: string): ChatMessage {
  return {
    role: 'system',
    content: tokenizer.toolFormat === 'hermes-system' ? `${systemPrompt}\n\n${hermesToolPrompt()}` : systemPrompt,
  };
}

/** The tools the template renders itself (none for hermes-system families). */
export function templateTools(tokenizer: ChatTokenizer) {
  return tokenizer.toolFormat === 'template' ? chatTools : undefined;
}

/** The first context of an episode and its conversation. */
export function initialChatContext(
  tokenizer: ChatTokenizer,
  systemPrompt: string,
  prompt: string,
): { context: ModelContext; messages: ChatMessage[] } {
  const messages: ChatMessage[] = [systemMessage(tokenizer, systemPrompt), { role: 'user', content: prompt }];
  const context = emptyContext();
  appendGiven(context, tokenizer.renderIds(messages, { tools: templateTools(tokenizer), addGenerationPrompt: true }));
  return { context, messages };
}

/** The ids of the fixed base cut after its last end-of-turn token, once per tokenizer. */
const baseCuts = new WeakMap<ChatTokenizer, number[]>();
function baseCutIds(tokenizer: ChatTokenizer): number[] {
  let ids = baseCuts.get(tokenizer);
  if (!ids) {
    const baseText = tokenizer.render(fixedBase);
    const cutAt = baseText.lastIndexOf(tokenizer.endOfTurn);
    if (cutAt < 0)
      throw new Error(`chat template of ${tokenizer.name}: the base conversation renders no ${tokenizer.endOfTurn}`);
    ids = tokenizer.encodeMarkup(baseText.slice(0, cutAt + tokenizer.endOfTurn.length));
    baseCuts.set(tokenizer, ids);
  }
  return ids;
}

/** The ids of one observation (a `tool` message) after an assistant turn, by the fixed-base delta. */
export function observationDelta(tokenizer: ChatTokenizer, observation: string): number[] {
  const cutIds = baseCutIds(tokenizer);
  const full = tokenizer.renderIds([...fixedBase, { role: 'tool', content: observation }], {
    addGenerationPrompt: true,
  });
  // the base's content is plain ASCII: its markup and text encodings agree, so the ids of the cut are a prefix
  if (!cutIds.every((id, index) => full[index] === id)) {
    throw new Error(
      `chat template of ${tokenizer.name}: the base conversation is not a prefix of the base with an observation`,
    );
  }
  return full.slice(cutIds.length);
}

/** Appends one generated turn verbatim; returns the assistant message's content (the end-of-turn id left out). */
export function appendTurn(
  tokenizer: ChatTokenizer,
  context: ModelContext,
  ids: readonly number[],
  logprobs: readonly number[],
  version: string,
): string {
  ids.forEach((id, index) => appendGenerated(context, id, logprobs[index] ?? 0, version, null));
  const ended = ids.length > 0 && tokenizer.stopIds.includes(ids.at(-1)!);
  if (!ended) appendGiven(context, [tokenizer.stopIds[0]!]);
  return tokenizer.decode(ended ? ids.slice(0, -1) : ids);
}

export interface ObservedContext {
  context: ModelContext;
  /** the sample closed by a break of the extension property (the context before the observation) */
  closed: ModelContext | null;
  /** the observation's own tokens (its delta), what the episode's token budget counts either way */
  observationTokens: number;
}

/**
 * The context after an observation: the delta appended, or, where the template renders the
 * conversation differently from the context's text, a new sample from the template's rendering.
 * `messages` is the conversation with this turn's assistant message and observation.
 */
export function observeChat(
  tokenizer: ChatTokenizer,
  context: ModelContext,
  messages: readonly ChatMessage[],
  observation: string,
): ObservedContext {
  const extended: ModelContext = {
    ids: [...context.ids],
    lossMask: [...context.lossMask],
    logprobs: [...context.logprobs],
    versions: [...context.versions],
    allowed: [...context.allowed],
  };
  const delta = observationDelta(tokenizer, observation);
  appendGiven(extended, delta);
  const options = { tools: templateTools(tokenizer), addGenerationPrompt: true };
  if (tokenizer.normalize(tokenizer.decode(extended.ids)) === tokenizer.normalize(tokenizer.render(messages, options)))
    return { context: extended, closed: null, observationTokens: delta.length };
  const fresh = emptyContext();
  appendGiven(fresh, tokenizer.renderIds(messages, options));
  return { context: fresh, closed: context, observationTokens: delta.length };
}

/** Whether `before` is an exact prefix of `after` (ids, mask, log-probs and versions alike). */
export function isPrefixContext(before: ModelContext, after: ModelContext): boolean {
  if (before.ids.length > after.ids.length) return false;
  return before.ids.every(
    (id, index) =>
      id === after.ids[index] &&
      before.lossMask[index] === after.lossMask[index] &&
      before.logprobs[index] === after.logprobs[index] &&
      before.versions[index] === after.versions[index],
  );
}

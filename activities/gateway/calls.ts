import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  hermesToolPrompt,
  toolCallClose,
  toolCallOpen,
  type ChatMessage,
  type ChatTool,
} from '../../shared/chat/tool-format';
import {
  GatewayApis,
  type GatewayMessage,
  type GatewayReply,
  type GatewayRequest,
  type GatewayTool,
  type GatewayToolCall,
} from '../../shared/contracts/gateway';
import type { ChatTokenizer } from '../policies/chat/chat-tokenizer';

/**
 * The model calls of a harness episode, and their one owner: a call's record, how a request becomes prompt ids, and
 * how generated ids become the API's reply.
 *
 * Token-in/token-out: a request that repeats the previous call's conversation and the reply it got, and adds only
 * messages the model did not write (tool results, a user turn), is given the previous prompt ids, the previous
 * generated ids verbatim and the new messages' ids (the fixed-base delta of chat-context.ts); nothing the model
 * generated is ever re-tokenized. A request that does not (the harness rewrote or summarised its history, changed its
 * tools, or the template renders the history differently from what was generated) is rendered afresh by the chat
 * template and starts a new segment; the reason is recorded.
 */

const ToolCallFields = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/** A stored request (the one request form, shared/contracts/gateway.ts), as the gateway wrote it. */
export const GatewayRequestSchema = z.object({
  api: z.enum(GatewayApis),
  model: z.string(),
  messages: z.array(
    z.object({
      role: z.enum(['system', 'user', 'assistant', 'tool']),
      content: z.string(),
      toolCalls: z.array(ToolCallFields).optional(),
      toolCallId: z.string().optional(),
    }),
  ),
  prompt: z.string().optional(),
  tools: z.array(
    z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
  ),
  maxTokens: z.number().int().nullable(),
  temperature: z.number().nullable(),
  stop: z.array(z.string()),
  stream: z.boolean(),
  streamUsage: z.boolean().optional(),
}) satisfies z.ZodType<GatewayRequest>;

/** Why a call's prompt does not extend the previous call's prompt and generation. */
export const SegmentStarts = ['first', 'history', 'tools', 'template', 'prompt'] as const;
export type SegmentStart = (typeof SegmentStarts)[number];

export const CallRecord = z.object({
  episodeId: z.string(),
  /** the harness launch that made the call (0 first; a relaunch after a crash is 1, …) */
  launch: z.number().int().min(0),
  /** the call's place in the episode's trajectory */
  index: z.number().int().min(0),
  /** the normalized request (GatewayRequest) in the store */
  requestRef: z.string(),
  promptIds: z.array(z.number().int().min(0)),
  /** null: the prompt extends the previous call's prompt and generation; else why a new segment starts */
  segmentStart: z.enum(SegmentStarts).nullable(),
  /**
   * the conversation the prompt ids are the rendering of (the model's own texts in its assistant messages, as it
   * generated them), in the store; what the next call's template check extends
   */
  conversationRef: z.string().optional(),
  generatedIds: z.array(z.number().int().min(0)),
  /** the behaviour log-prob of each generated id */
  logprobs: z.array(z.number()),
  /** the policy version that generated each id (one unless the weights changed mid-generation) */
  versions: z.array(z.string()),
  version: z.string(),
  /** `length`: cut by the token limit (the end-of-turn id is not among the generated ids) */
  finishReason: z.enum(['stop', 'length']),
  inferenceMs: z.number().min(0),
  reply: z.object({
    text: z.string(),
    reasoning: z.string(),
    toolCalls: z.array(ToolCallFields),
  }),
});
export type CallRecord = z.infer<typeof CallRecord>;

/** The digest replay compares: two requests with the same digest get the same answer. */
export function requestDigest(request: GatewayRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

/** JSON with sorted keys, so that equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The assistant message a harness sends back for a reply it got. */
export function echoOf(reply: CallRecord['reply']): GatewayMessage {
  return { role: 'assistant', content: reply.text, ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}) };
}

function sameArguments(a: string, b: string): boolean {
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return a === b;
  }
}

function sameMessage(a: GatewayMessage, b: GatewayMessage): boolean {
  const callsA = a.toolCalls ?? [];
  const callsB = b.toolCalls ?? [];
  return (
    a.role === b.role &&
    a.content.trim() === b.content.trim() &&
    (a.toolCallId ?? null) === (b.toolCallId ?? null) &&
    callsA.length === callsB.length &&
    callsA.every(
      (call, index) =>
        call.id === callsB[index]!.id &&
        call.name === callsB[index]!.name &&
        sameArguments(call.arguments, callsB[index]!.arguments),
    )
  );
}

/** A harness's tools as a chat template takes them. */
function chatToolsOf(tools: readonly GatewayTool[]): ChatTool[] {
  return tools.map(
    (tool) =>
      ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }) as ChatTool,
  );
}

/** A tool call as the family writes it (shared/chat/tool-format.ts). */
function writtenCall(call: GatewayToolCall): string {
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // arguments that are not JSON are written as the string they are
  }
  return `${toolCallOpen}\n${JSON.stringify({ name: call.name, arguments: args })}\n${toolCallClose}`;
}

/** A request's conversation as the family's chat template takes it: tools in the system prompt where it has none. */
export function templateMessages(tokenizer: ChatTokenizer, request: GatewayRequest): ChatMessage[] {
  const messages: ChatMessage[] = request.messages.map((message) => ({
    role: message.role,
    content:
      message.role === 'assistant' && message.toolCalls?.length
        ? [message.content, ...message.toolCalls.map(writtenCall)].filter((part) => part !== '').join('\n')
        : message.content,
  }));
  if (tokenizer.toolFormat === 'hermes-system' && request.tools.length > 0) {
    const toolPrompt = hermesToolPrompt(chatToolsOf(request.tools));
    if (messages[0]?.role === 'system')
      messages[0] = { role: 'system', content: `${messages[0].content}\n\n${toolPrompt}` };
    else messages.unshift({ role: 'system', content: toolPrompt });
  }
  return messages;
}

function templateOptions(tokenizer: ChatTokenizer, request: GatewayRequest) {
  return {
    tools: tokenizer.toolFormat === 'template' && request.tools.length ? chatToolsOf(request.tools) : undefined,
    addGenerationPrompt: true,
  };
}

const fixedBase: readonly ChatMessage[] = [
  { role: 'system', content: 'base' },
  { role: 'user', content: 'base' },
];

/** The ids of messages after an assistant turn: the base with them rendered, less the base cut after its last turn. */
export function messagesDelta(tokenizer: ChatTokenizer, added: readonly ChatMessage[]): number[] {
  const baseText = tokenizer.render(fixedBase);
  const cutIds = tokenizer.encodeMarkup(
    baseText.slice(0, baseText.lastIndexOf(tokenizer.endOfTurn) + tokenizer.endOfTurn.length),
  );
  const full = tokenizer.renderIds([...fixedBase, ...added], { addGenerationPrompt: true });
  if (!cutIds.every((id, index) => full[index] === id))
    throw new Error(`chat template of ${tokenizer.name}: the base conversation is not a prefix of the base with more`);
  return full.slice(cutIds.length);
}

/** The previous call as the next one may extend it: its request, its record and the conversation it rendered. */
export interface PreviousCall {
  request: GatewayRequest;
  record: CallRecord;
  /** absent: unknown (the next call starts a segment of its own if the template check needs it) */
  conversation?: ChatMessage[];
}

export interface PromptIds {
  ids: number[];
  segmentStart: SegmentStart | null;
  /** chat APIs: the conversation `ids` render */
  conversation: ChatMessage[] | null;
}

/** The model's text of a call, as the template shows it in the history: its generated ids, the end-of-turn left out. */
export function generatedText(tokenizer: ChatTokenizer, generatedIds: readonly number[]): string {
  const ended = generatedIds.length > 0 && tokenizer.stopIds.includes(generatedIds.at(-1)!);
  return tokenizer.decode(ended ? generatedIds.slice(0, -1) : generatedIds);
}

/** The ids the previous call's context ends with: its prompt, its generation, closed by an end-of-turn id. */
function extendedIds(tokenizer: ChatTokenizer, previous: CallRecord): number[] {
  const ids = [...previous.promptIds, ...previous.generatedIds];
  const ended = previous.generatedIds.length > 0 && tokenizer.stopIds.includes(previous.generatedIds.at(-1)!);
  return ended ? ids : [...ids, tokenizer.stopIds[0]!];
}

/** A request's prompt ids, extending the previous call where the request extends it. */
export function promptIdsOf(
  tokenizer: ChatTokenizer,
  request: GatewayRequest,
  previous: PreviousCall | null,
): PromptIds {
  if (request.api === 'completions') {
    const prompt = request.prompt ?? '';
    if (previous && previous.request.api === 'completions') {
      const before = (previous.request.prompt ?? '') + tokenizer.decode(previous.record.generatedIds);
      if (prompt.startsWith(before))
        return {
          ids: [
            ...previous.record.promptIds,
            ...previous.record.generatedIds,
            ...tokenizer.encodeMarkup(prompt.slice(before.length)),
          ],
          segmentStart: null,
          conversation: null,
        };
    }
    return { ids: tokenizer.encodeMarkup(prompt), segmentStart: previous ? 'prompt' : 'first', conversation: null };
  }
  const fresh = (segmentStart: SegmentStart): PromptIds => {
    const conversation = templateMessages(tokenizer, request);
    return { ids: tokenizer.renderIds(conversation, templateOptions(tokenizer, request)), segmentStart, conversation };
  };
  if (!previous || previous.request.api === 'completions') return fresh(previous ? 'history' : 'first');
  if (canonicalJson(previous.request.tools) !== canonicalJson(request.tools)) return fresh('tools');
  const before = previous.request.messages;
  const echo = echoOf(previous.record.reply);
  const repeats =
    request.messages.length > before.length + 1 &&
    before.every((message, index) => sameMessage(message, request.messages[index]!)) &&
    sameMessage(echo, request.messages[before.length]!);
  const added = request.messages.slice(before.length + 1);
  if (!repeats || added.some((message) => message.role === 'assistant')) return fresh('history');
  if (!previous.conversation) return fresh('template');
  const addedChat = templateMessages(tokenizer, { ...request, messages: added, tools: [] });
  const ids = [...extendedIds(tokenizer, previous.record), ...messagesDelta(tokenizer, addedChat)];
  // the template must agree: the extended ids read as the template's rendering of the conversation with the model's
  // own texts (a template that renders history otherwise, e.g. without earlier reasoning, starts a new segment)
  const conversation: ChatMessage[] = [
    ...previous.conversation,
    { role: 'assistant', content: generatedText(tokenizer, previous.record.generatedIds) },
    ...addedChat,
  ];
  const rendered = tokenizer.render(conversation, templateOptions(tokenizer, request));
  if (tokenizer.normalize(tokenizer.decode(ids)) !== tokenizer.normalize(rendered)) return fresh('template');
  return { ids, segmentStart: null, conversation };
}

/** A tool call's id: fixed by the episode, the call and the generated ids, so a replayed reply is the same reply. */
function toolCallId(seed: string, position: number): string {
  return `call_${createHash('sha256').update(`${seed}\u0000${position}`).digest('hex').slice(0, 24)}`;
}

/**
 * The reply in a call's generated text: reasoning between <think> tags, every well-formed <tool_call> block as a tool
 * call (when the request offers tools), the rest as text. A block that is not a JSON object with a string `name` stays
 * text: the harness shows the model its own malformed call, as it would from any model.
 */
export function readReply(text: string, request: GatewayRequest, seed: string): CallRecord['reply'] {
  let rest = text;
  let reasoning = '';
  const thought = rest.indexOf('</think>');
  if (thought >= 0) {
    reasoning = rest
      .slice(0, thought)
      .replace(/^\s*<think>/, '')
      .trim();
    rest = rest.slice(thought + '</think>'.length);
  }
  const toolCalls: GatewayToolCall[] = [];
  if (request.api !== 'completions' && request.tools.length > 0) {
    const kept: string[] = [];
    let cursor = 0;
    for (;;) {
      const open = rest.indexOf(toolCallOpen, cursor);
      const close = open < 0 ? -1 : rest.indexOf(toolCallClose, open);
      if (open < 0 || close < 0) break;
      const call = parseCall(rest.slice(open + toolCallOpen.length, close));
      kept.push(rest.slice(cursor, open));
      if (call) toolCalls.push({ id: toolCallId(seed, toolCalls.length), ...call });
      else kept.push(rest.slice(open, close + toolCallClose.length));
      cursor = close + toolCallClose.length;
    }
    kept.push(rest.slice(cursor));
    rest = kept.join('');
  }
  return { text: request.api === 'completions' ? text : rest.trim(), reasoning, toolCalls };
}

function parseCall(body: string): { name: string; arguments: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(body.trim());
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { name, arguments: args } = value as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '') return null;
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
}

/** The API-independent reply of a recorded call. */
export function gatewayReply(record: CallRecord, request: GatewayRequest, created: number): GatewayReply {
  return {
    id: createHash('sha256')
      .update(`${record.episodeId}\u0000${record.index}\u0000${record.launch}`)
      .digest('hex')
      .slice(0, 24),
    model: request.model,
    created,
    text: record.reply.text,
    reasoning: record.reply.reasoning,
    toolCalls: record.reply.toolCalls,
    finishReason:
      record.finishReason === 'length' ? 'length' : record.reply.toolCalls.length > 0 ? 'tool_calls' : 'stop',
    promptTokens: record.promptIds.length,
    completionTokens: record.generatedIds.length,
  };
}

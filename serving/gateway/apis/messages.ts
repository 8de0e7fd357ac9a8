/**
 * Anthropic Messages (POST /v1/messages), as Claude Code sends it: `system` as text blocks (with `cache_control`),
 * messages of text, tool_use, tool_result and thinking blocks, tools with `input_schema`, `max_tokens`, `metadata`,
 * `stream: true`, sometimes `thinking` and `tool_choice`. `tool_choice`, `thinking`, `top_p`, `top_k` and `metadata`
 * are not honoured: the run's policy samples with the run's settings and thinks where its chat template lets it.
 * Also POST /v1/messages/count_tokens, which Claude Code calls to size its context: the same body without
 * `max_tokens`, answered with the prompt's token count.
 */
import type {
  GatewayApiAdapter,
  GatewayError,
  GatewayMessage,
  GatewayReply,
  GatewayRequest,
  GatewayTool,
  GatewayToolCall,
} from '../../../shared/contracts/gateway';
import {
  array,
  type Fields,
  functionTool,
  isObject,
  modelName,
  object,
  optionalBoolean,
  optionalNumber,
  optionalTokenCount,
  type ParseResult,
  parseRequest,
  partSeparator,
  refuse,
  stopStrings,
  string,
  textContent,
} from './fields';
import { eventFrame, textPieces } from './sse';

const blockType = (block: Fields, path: string) => string(block.type, `${path}.type`);

/** A tool_result's text; Claude Code writes an error into the text (`<tool_use_error>`), so `is_error` adds nothing. */
function toolResult(block: Fields, path: string): GatewayMessage {
  const content = block.content === undefined ? '' : textContent(block.content, `${path}.content`, ['text']);
  return { role: 'tool', content, toolCallId: string(block.tool_use_id, `${path}.tool_use_id`) };
}

/** A user turn: its tool results as tool messages, then the rest of its text as a user message. */
function userTurn(content: unknown, path: string): GatewayMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const blocks = array(content, path);
  const results: GatewayMessage[] = [];
  const texts: string[] = [];
  blocks.forEach((entry, index) => {
    const block = object(entry, `${path}[${index}]`);
    const type = blockType(block, `${path}[${index}]`);
    if (type === 'tool_result') results.push(toolResult(block, `${path}[${index}]`));
    else if (type === 'text') texts.push(string(block.text, `${path}[${index}].text`));
    else refuse(`${path}[${index}]: ${type} blocks are not accepted in a user turn; expected text or tool_result`);
  });
  return texts.length > 0 || results.length === 0
    ? [...results, { role: 'user', content: texts.join(partSeparator) }]
    : results;
}

function assistantTurn(content: unknown, path: string): GatewayMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const toolCalls: GatewayToolCall[] = [];
  array(content, path).forEach((entry, index) => {
    const at = `${path}[${index}]`;
    const block = object(entry, at);
    const type = blockType(block, at);
    if (type === 'text') texts.push(string(block.text, `${at}.text`));
    else if (type === 'tool_use')
      toolCalls.push({
        id: string(block.id, `${at}.id`),
        name: string(block.name, `${at}.name`),
        arguments: JSON.stringify(object(block.input, `${at}.input`)),
      });
    else if (type === 'thinking' || type === 'redacted_thinking') {
      // skipped: earlier turns' reasoning is not shown to the model again (the chat templates the gateway renders drop
      // it), and a redacted block holds only ciphertext
    } else refuse(`${at}: ${type} blocks are not accepted in an assistant turn; expected text, tool_use or thinking`);
  });
  const message: GatewayMessage = { role: 'assistant', content: texts.join(partSeparator) };
  return toolCalls.length > 0 ? { ...message, toolCalls } : message;
}

function parseTools(value: unknown): GatewayTool[] {
  if (value === undefined || value === null) return [];
  return array(value, 'tools').map((entry, index) => {
    const tool = object(entry, `tools[${index}]`);
    // Anthropic's server tools (web_search_20250305, code_execution_…) run on Anthropic's side; refusing says so to the
    // harness, which reports the tool as failed, rather than letting the model answer as if it had searched
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom')
      refuse(`tools[${index}]: server tool ${JSON.stringify(tool.type)} is not available: the gateway runs no tools`);
    return functionTool(tool.name, tool.description, tool.input_schema, `tools[${index}]`);
  });
}

function systemText(value: unknown): GatewayMessage[] {
  if (value === undefined || value === null) return [];
  return [{ role: 'system', content: textContent(value, 'system', ['text']) }];
}

function parseBody(body: Fields, requireMaxTokens: boolean): GatewayRequest {
  const model = modelName(body);
  if (requireMaxTokens && (body.max_tokens === undefined || body.max_tokens === null))
    refuse('max_tokens: required (the most tokens to generate)');
  const messages = systemText(body.system);
  array(body.messages, 'messages').forEach((entry, index) => {
    const path = `messages[${index}]`;
    const message = object(entry, path);
    const role = string(message.role, `${path}.role`);
    if (role === 'user') messages.push(...userTurn(message.content, `${path}.content`));
    else if (role === 'assistant') messages.push(assistantTurn(message.content, `${path}.content`));
    else refuse(`${path}.role: expected "user" or "assistant", got "${role}" (a system prompt goes in "system")`);
  });
  if (messages.length === 0) refuse('messages: expected at least one message');
  return {
    api: 'messages',
    model,
    messages,
    tools: parseTools(body.tools),
    maxTokens: optionalTokenCount(body.max_tokens, 'max_tokens') ?? null,
    temperature: optionalNumber(body.temperature, 'temperature', 0, 1) ?? null,
    stop: stopStrings(body.stop_sequences, 'stop_sequences'),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
  };
}

/** The request of POST /v1/messages/count_tokens: a Messages body without `max_tokens`, whose prompt is counted. */
export function parseCountTokens(body: unknown): ParseResult {
  return parseRequest(body, (fields) => ({ ...parseBody(fields, false), stream: false }));
}

/** The answer of POST /v1/messages/count_tokens. */
export function countTokensResponse(inputTokens: number): unknown {
  return { input_tokens: inputTokens };
}

type Block = Record<string, unknown> & { type: string };

/**
 * The reply as content blocks. A tool_use block carries its input as an object, so a call whose arguments are not a
 * JSON object (the model wrote a list or a bare string) cannot be one: it is answered as text, `{"name": …,
 * "arguments": …}`, which the harness shows the model as its own words instead of running a tool with made-up input.
 */
function contentBlocks(reply: GatewayReply): Block[] {
  const blocks: Block[] = [];
  if (reply.reasoning !== '') blocks.push({ type: 'thinking', thinking: reply.reasoning, signature: '' });
  if (reply.text !== '') blocks.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls) {
    const input = parseJson(call.arguments);
    if (isObject(input)) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
    else blocks.push({ type: 'text', text: JSON.stringify({ name: call.name, arguments: input ?? call.arguments }) });
  }
  return blocks;
}

/** The value of a JSON text; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stopReason(reply: GatewayReply, blocks: Block[]): { stop_reason: string; stop_sequence: string | null } {
  if (reply.finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (blocks.some((block) => block.type === 'tool_use')) return { stop_reason: 'tool_use', stop_sequence: null };
  if (reply.stopSequence !== undefined) return { stop_reason: 'stop_sequence', stop_sequence: reply.stopSequence };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

function respond(reply: GatewayReply): unknown {
  const content = contentBlocks(reply);
  return {
    id: `msg_${reply.id}`,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content,
    ...stopReason(reply, content),
    usage: { input_tokens: reply.promptTokens, output_tokens: reply.completionTokens },
  };
}

/** Each block's start (its empty form) and the deltas that fill it. */
function blockEvents(block: Block): { start: Block; deltas: Fields[] } {
  if (block.type === 'thinking')
    return {
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: textPieces(block.thinking as string).map((thinking) => ({ type: 'thinking_delta', thinking })),
    };
  if (block.type === 'text')
    return {
      start: { type: 'text', text: '' },
      deltas: textPieces(block.text as string).map((text) => ({ type: 'text_delta', text })),
    };
  return {
    start: { ...block, input: {} },
    deltas: textPieces(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
  };
}

function stream(reply: GatewayReply): string[] {
  const frames: string[] = [];
  const emit = (type: string, fields: Fields) => frames.push(eventFrame(type, { type, ...fields }));
  const content = contentBlocks(reply);
  emit('message_start', {
    message: {
      id: `msg_${reply.id}`,
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: reply.promptTokens, output_tokens: 0 },
    },
  });
  content.forEach((block, index) => {
    const { start, deltas } = blockEvents(block);
    emit('content_block_start', { index, content_block: start });
    for (const delta of deltas) emit('content_block_delta', { index, delta });
    emit('content_block_stop', { index });
  });
  emit('message_delta', { delta: stopReason(reply, content), usage: { output_tokens: reply.completionTokens } });
  emit('message_stop', {});
  return frames;
}

/** Anthropic's error body. */
function error(failure: GatewayError): unknown {
  return { type: 'error', error: { type: failure.type, message: failure.message } };
}

export const messagesAdapter: GatewayApiAdapter = {
  api: 'messages',
  parse: (body) => parseRequest(body, (fields) => parseBody(fields, true)),
  respond,
  stream,
  error,
};

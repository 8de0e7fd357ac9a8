/**
 * OpenAI Chat Completions (POST /v1/chat/completions), as litellm's OpenAI provider sends it for mini-swe-agent: the
 * messages go out as the harness keeps them (an assistant turn is `message.model_dump()`, with `function_call: null`
 * and other null extras beside `tool_calls`), so unknown fields are ignored and only wrong values of known ones are
 * refused.
 * `tool_choice`, `logprobs`, `top_p`, `seed` and the other sampling options are not honoured: the run's policy samples
 * with the run's settings.
 */
import type {
  GatewayApiAdapter,
  GatewayMessage,
  GatewayReply,
  GatewayRequest,
  GatewayToolCall,
} from '../../../shared/contracts/gateway';
import {
  array,
  type Fields,
  functionTool,
  modelName,
  object,
  oneChoice,
  optionalBoolean,
  optionalNumber,
  optionalObject,
  optionalTokenCount,
  parseRequest,
  refuse,
  stopStrings,
  string,
  textContent,
  textFormatOnly,
} from './fields';
import { openAiError, openAiUsage } from './openai-shapes';
import { dataFrame, doneFrame, textPieces } from './sse';

const roles = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant', tool: 'tool' } as const;

function parseToolCall(value: unknown, path: string): GatewayToolCall {
  const call = object(value, path);
  if (call.type !== undefined && call.type !== 'function')
    refuse(`${path}.type: only function tool calls are accepted, got ${JSON.stringify(call.type)}`);
  const fn = object(call.function, `${path}.function`);
  return {
    id: string(call.id, `${path}.id`),
    name: string(fn.name, `${path}.function.name`),
    arguments: string(fn.arguments, `${path}.function.arguments`),
  };
}

function parseMessage(value: unknown, path: string): GatewayMessage {
  const message = object(value, path);
  const roleName = string(message.role, `${path}.role`);
  if (!Object.hasOwn(roles, roleName))
    refuse(`${path}.role: unknown role "${roleName}"; expected one of ${Object.keys(roles).join(', ')}`);
  const role = roles[roleName as keyof typeof roles];
  // an assistant turn that only called tools carries `content: null`
  const content =
    role === 'assistant' && (message.content === null || message.content === undefined)
      ? ''
      : textContent(message.content, `${path}.content`, ['text']);
  if (role === 'tool') {
    if (message.tool_call_id === undefined || message.tool_call_id === null)
      refuse(`${path}.tool_call_id: a tool message needs the id of the call it answers`);
    return { role, content, toolCallId: string(message.tool_call_id, `${path}.tool_call_id`) };
  }
  if (role !== 'assistant') return { role, content };
  if (message.function_call !== undefined && message.function_call !== null)
    refuse(`${path}.function_call: legacy function calls are not accepted; send tool_calls`);
  if (message.tool_calls === undefined || message.tool_calls === null) return { role, content };
  const toolCalls = array(message.tool_calls, `${path}.tool_calls`).map((call, index) =>
    parseToolCall(call, `${path}.tool_calls[${index}]`),
  );
  return toolCalls.length > 0 ? { role, content, toolCalls } : { role, content };
}

function parseTools(value: unknown): GatewayRequest['tools'] {
  if (value === undefined || value === null) return [];
  return array(value, 'tools').map((entry, index) => {
    const tool = object(entry, `tools[${index}]`);
    if (tool.type !== 'function')
      refuse(`tools[${index}].type: only function tools are accepted, got ${JSON.stringify(tool.type)}`);
    const fn = object(tool.function, `tools[${index}].function`);
    return functionTool(fn.name, fn.description, fn.parameters, `tools[${index}].function`);
  });
}

function parseBody(body: Fields): GatewayRequest {
  const model = modelName(body);
  const messages = array(body.messages, 'messages').map((message, index) =>
    parseMessage(message, `messages[${index}]`),
  );
  if (messages.length === 0) refuse('messages: expected at least one message');
  oneChoice(body.n);
  if (body.functions !== undefined && body.functions !== null)
    refuse('functions: legacy function calling is not accepted; send tools');
  textFormatOnly(body.response_format, 'response_format');
  const stream = optionalBoolean(body.stream, 'stream') ?? false;
  const options = optionalObject(body.stream_options, 'stream_options') ?? {};
  const includeUsage = optionalBoolean(options.include_usage, 'stream_options.include_usage') ?? false;
  // max_completion_tokens is the newer name of max_tokens, and wins where a client sends both
  const maxTokens = optionalTokenCount(body.max_tokens, 'max_tokens');
  const maxCompletionTokens = optionalTokenCount(body.max_completion_tokens, 'max_completion_tokens');
  return {
    api: 'chat-completions',
    model,
    messages,
    tools: parseTools(body.tools),
    maxTokens: maxCompletionTokens ?? maxTokens ?? null,
    temperature: optionalNumber(body.temperature, 'temperature', 0, 2) ?? null,
    stop: stopStrings(body.stop, 'stop'),
    stream,
    streamUsage: stream && includeUsage,
  };
}

function respond(reply: GatewayReply): unknown {
  const toolCalls = reply.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: `chatcmpl-${reply.id}`,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // null, as OpenAI answers, when the turn is tool calls only
          content: reply.text === '' && toolCalls.length > 0 ? null : reply.text,
          // vLLM's field for the reasoning a reasoning parser split off, which litellm reads
          ...(reply.reasoning === '' ? {} : { reasoning_content: reply.reasoning }),
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: openAiUsage(reply),
  };
}

function stream(reply: GatewayReply, request: GatewayRequest): string[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    dataFrame({
      id: `chatcmpl-${reply.id}`,
      object: 'chat.completion.chunk',
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  const frames = [chunk({ role: 'assistant', content: '' })];
  for (const piece of textPieces(reply.reasoning)) frames.push(chunk({ reasoning_content: piece }));
  for (const piece of textPieces(reply.text)) frames.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    frames.push(chunk({ tool_calls: [head] }));
    for (const piece of textPieces(call.arguments))
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, reply.finishReason));
  if (request.streamUsage)
    frames.push(
      dataFrame({
        id: `chatcmpl-${reply.id}`,
        object: 'chat.completion.chunk',
        created: reply.created,
        model: reply.model,
        choices: [],
        usage: openAiUsage(reply),
      }),
    );
  frames.push(doneFrame);
  return frames;
}

export const chatCompletionsAdapter: GatewayApiAdapter = {
  api: 'chat-completions',
  parse: (body) => parseRequest(body, parseBody),
  respond,
  stream,
  error: openAiError,
};

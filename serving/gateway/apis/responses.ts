/**
 * OpenAI Responses (POST /v1/responses), as Codex CLI sends it through a custom model provider with
 * `wire_api = "responses"`: `instructions` (its base prompt), `input` items (developer and user messages, the
 * assistant's earlier messages, function_call and function_call_output items, reasoning items), function tools plus
 * the hosted `web_search` tool it adds by default, `tool_choice: "auto"`, `parallel_tool_calls`, `store: false`,
 * `stream: true`, `include`, `prompt_cache_key` and `reasoning`. The gateway keeps no conversation, so a request
 * carries the whole input (`previous_response_id` is refused). `tool_choice`, `reasoning`, `include`, `store` and
 * the sampling options besides temperature are not honoured: the run's policy samples with the run's settings.
 */
import type {
  GatewayApiAdapter,
  GatewayMessage,
  GatewayReply,
  GatewayRequest,
  GatewayTool,
} from '../../../shared/contracts/gateway';
import {
  array,
  type Fields,
  functionTool,
  modelName,
  object,
  optionalBoolean,
  optionalNumber,
  optionalObject,
  optionalString,
  optionalTokenCount,
  parseRequest,
  refuse,
  string,
  textContent,
  textFormatOnly,
} from './fields';
import { openAiError } from './openai-shapes';
import { eventFrame, textPieces } from './sse';

const messageRoles = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' } as const;
const textPartTypes = ['input_text', 'output_text'];
/**
 * Tools the policy cannot be offered and the harness works without, left out of what the policy sees rather than
 * failing every request: those the Responses API runs on its own servers (Codex adds `web_search` to every request
 * unless configured with `web_search = "disabled"`), and the groups Codex 0.171 adds for any model (`namespace`: its
 * MCP servers' tools, `tool_search` over them, `image_generation`). A harness whose work needs a freeform or
 * local_shell tool is refused instead: the policy could not call it.
 */
const hostedTools = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'namespace',
  'tool_search',
  'image_generation',
]);
const functionToolsOnly =
  'the gateway offers function tools only (run Codex with a model it gives no freeform or local_shell tool)';

function messageItem(item: Fields, path: string): GatewayMessage {
  const roleName = string(item.role, `${path}.role`);
  if (!Object.hasOwn(messageRoles, roleName))
    refuse(`${path}.role: unknown role "${roleName}"; expected one of ${Object.keys(messageRoles).join(', ')}`);
  const role = messageRoles[roleName as keyof typeof messageRoles];
  return { role, content: textContent(item.content, `${path}.content`, textPartTypes) };
}

/** The input items as messages; a function_call joins the assistant message just before it. */
function parseInput(value: unknown, messages: GatewayMessage[]): void {
  if (typeof value === 'string') {
    messages.push({ role: 'user', content: value });
    return;
  }
  if (!Array.isArray(value)) refuse(`input: expected a string or an array of items, got a ${typeof value}`);
  value.forEach((entry, index) => {
    const path = `input[${index}]`;
    const item = object(entry, path);
    // a message may come bare, as {role, content}
    const type = item.type === undefined && item.role !== undefined ? 'message' : item.type;
    if (type === 'message') messages.push(messageItem(item, path));
    else if (type === 'function_call') {
      const call = {
        id: string(item.call_id, `${path}.call_id`),
        name: string(item.name, `${path}.name`),
        arguments: string(item.arguments, `${path}.arguments`),
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
      else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
    } else if (type === 'function_call_output') {
      const content = textContent(item.output, `${path}.output`, textPartTypes);
      messages.push({ role: 'tool', content, toolCallId: string(item.call_id, `${path}.call_id`) });
    } else if (type === 'reasoning') {
      // skipped: its summary and encrypted content are not text the model wrote into its context, and the chat
      // templates the gateway renders drop earlier turns' reasoning anyway
    } else if (type === 'custom_tool_call' || type === 'local_shell_call')
      refuse(`${path}: ${type} items are not accepted: ${functionToolsOnly}`);
    else
      refuse(
        `${path}.type: items of type ${JSON.stringify(type)} are not accepted; expected message, function_call, ` +
          'function_call_output or reasoning',
      );
  });
}

function parseTools(value: unknown): GatewayTool[] {
  if (value === undefined || value === null) return [];
  return array(value, 'tools').flatMap((entry, index) => {
    const tool = object(entry, `tools[${index}]`);
    if (tool.type === 'function')
      return [functionTool(tool.name, tool.description, tool.parameters, `tools[${index}]`)];
    if (typeof tool.type === 'string' && hostedTools.has(tool.type)) return [];
    return refuse(`tools[${index}].type: ${JSON.stringify(tool.type)} tools are not available: ${functionToolsOnly}`);
  });
}

function parseBody(body: Fields): GatewayRequest {
  const model = modelName(body);
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    refuse('previous_response_id: the gateway keeps no conversation on its side; send the whole input');
  if (body.conversation !== undefined && body.conversation !== null)
    refuse('conversation: the gateway keeps no conversation on its side; send the whole input');
  textFormatOnly(optionalObject(body.text, 'text')?.format, 'text.format');
  const messages: GatewayMessage[] = [];
  const instructions = optionalString(body.instructions, 'instructions');
  if (instructions !== undefined) messages.push({ role: 'system', content: instructions });
  parseInput(body.input, messages);
  if (messages.length === 0) refuse('input: expected at least one item');
  return {
    api: 'responses',
    model,
    messages,
    tools: parseTools(body.tools),
    maxTokens: optionalTokenCount(body.max_output_tokens, 'max_output_tokens') ?? null,
    temperature: optionalNumber(body.temperature, 'temperature', 0, 2) ?? null,
    stop: [],
    stream: optionalBoolean(body.stream, 'stream') ?? false,
  };
}

type Item = Record<string, unknown> & { type: string; id: string };

/** The output items, in the order the model wrote them: reasoning, then the message, then the calls. */
function outputItems(reply: GatewayReply): Item[] {
  const items: Item[] = [];
  if (reply.reasoning !== '')
    items.push({
      type: 'reasoning',
      id: `rs_${reply.id}`,
      summary: [],
      content: [{ type: 'reasoning_text', text: reply.reasoning }],
    });
  if (reply.text !== '')
    items.push({
      type: 'message',
      id: `msg_${reply.id}`,
      status: reply.finishReason === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  reply.toolCalls.forEach((call, index) =>
    items.push({
      type: 'function_call',
      id: `fc_${reply.id}_${index}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    }),
  );
  return items;
}

function responseObject(reply: GatewayReply, status: string, output: Item[], withUsage: boolean): unknown {
  return {
    id: `resp_${reply.id}`,
    object: 'response',
    created_at: reply.created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: reply.model,
    output,
    usage: withUsage
      ? {
          input_tokens: reply.promptTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: reply.completionTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: reply.promptTokens + reply.completionTokens,
        }
      : null,
  };
}

const finalStatus = (reply: GatewayReply) => (reply.finishReason === 'length' ? 'incomplete' : 'completed');

function respond(reply: GatewayReply): unknown {
  return responseObject(reply, finalStatus(reply), outputItems(reply), true);
}

/** The events of one output item, from `output_item.added` to `output_item.done`. */
function itemEvents(item: Item, outputIndex: number, emit: (type: string, fields: Fields) => void): void {
  const at = { item_id: item.id, output_index: outputIndex };
  if (item.type === 'function_call') {
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    const args = item.arguments as string;
    for (const delta of textPieces(args)) emit('response.function_call_arguments.delta', { ...at, delta });
    emit('response.function_call_arguments.done', { ...at, name: item.name, arguments: args });
  } else {
    const reasoning = item.type === 'reasoning';
    const part = (item.content as Fields[])[0] as Fields & { text: string };
    const empty = reasoning ? { content: [] } : { content: [], status: 'in_progress' };
    emit('response.output_item.added', { output_index: outputIndex, item: { ...item, ...empty } });
    const partAt = { ...at, content_index: 0 };
    emit('response.content_part.added', { ...partAt, part: { ...part, text: '' } });
    const textEvent = reasoning ? 'response.reasoning_text' : 'response.output_text';
    const logprobs = reasoning ? {} : { logprobs: [] };
    for (const delta of textPieces(part.text)) emit(`${textEvent}.delta`, { ...partAt, delta, ...logprobs });
    emit(`${textEvent}.done`, { ...partAt, text: part.text, ...logprobs });
    emit('response.content_part.done', { ...partAt, part });
  }
  emit('response.output_item.done', { output_index: outputIndex, item });
}

function stream(reply: GatewayReply): string[] {
  const frames: string[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Fields) =>
    frames.push(eventFrame(type, { type, sequence_number: sequence++, ...fields }));
  const started = responseObject(reply, 'in_progress', [], false);
  emit('response.created', { response: started });
  emit('response.in_progress', { response: started });
  const items = outputItems(reply);
  items.forEach((item, outputIndex) => itemEvents(item, outputIndex, emit));
  const status = finalStatus(reply);
  emit(`response.${status}`, { response: responseObject(reply, status, items, true) });
  return frames;
}

export const responsesAdapter: GatewayApiAdapter = {
  api: 'responses',
  parse: (body) => parseRequest(body, parseBody),
  respond,
  stream,
  error: openAiError,
};

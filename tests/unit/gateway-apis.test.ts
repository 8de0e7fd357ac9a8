// The model gateway's API adapters (serving/gateway/apis/): each harness's request, as it sends it
// (tests/fixtures/gateway/README.md), becomes the one request form; a reply goes back in each API's shape; a streamed
// reply, read back the way a client reads it, holds the same text, reasoning and tool calls as the reply answered
// whole; and the official SDKs (openai, @anthropic-ai/sdk) read both from a local HTTP server serving the frames.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  countTokensResponse,
  gatewayAdapterForPath,
  gatewayApiAdapters,
  gatewayError,
  isCountTokensPath,
  isModelListPath,
  modelList,
  parseCountTokens,
} from '../../serving/gateway/apis';
import type { GatewayApiAdapter, GatewayReply, GatewayRequest } from '../../shared/contracts/gateway';
import { projectRoot } from '../../workers/config';

const chat = gatewayApiAdapters['chat-completions'];
const { responses, messages, completions } = gatewayApiAdapters;

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(projectRoot, 'tests', 'fixtures', 'gateway', name), 'utf8')) as {
    request: Record<string, unknown>;
    expect: GatewayRequest;
  };

/** A body as a client receives it: through JSON text (its value, untyped, is what the assertions check). */
const wire = (body: unknown) => JSON.parse(JSON.stringify(body));

function parsed(adapter: GatewayApiAdapter, body: unknown): GatewayRequest {
  const result = adapter.parse(body);
  assert.ok(result.ok, result.ok ? '' : `refused: ${result.error.message}`);
  return result.request;
}

function refused(adapter: GatewayApiAdapter, body: unknown): string {
  const result = adapter.parse(body);
  assert.equal(result.ok, false, `accepted ${JSON.stringify(body)}`);
  if (result.ok) return '';
  assert.equal(result.error.status, 400);
  assert.equal(result.error.type, 'invalid_request_error');
  return result.error.message;
}

/** A reply with every part: reasoning, text past one delta with pairs of UTF-16 units across a cut, two tool calls. */
const toolReply: GatewayReply = {
  id: 'f3a9c1',
  model: 'agentrl-policy',
  created: 1765100000,
  text: 'range(a, b) leaves b out, so the sum stops one short — fixing it to include b ✅🚀🚀🚀🚀🚀🚀🚀🚀🚀 and testing.',
  reasoning: 'range_sum(1, 3) should be 1 + 2 + 3 = 6, but range(1, 3) yields only 1 and 2.',
  toolCalls: [
    {
      id: 'call_g1',
      name: 'bash',
      arguments: JSON.stringify({ command: "sed -i 's/range(a, b)/range(a, b + 1)/' src/ranges.py && pytest -q" }),
    },
    { id: 'call_g2', name: 'bash', arguments: '{"command": "git diff --stat"}' },
  ],
  finishReason: 'tool_calls',
  promptTokens: 412,
  completionTokens: 96,
};
const textReply: GatewayReply = {
  ...toolReply,
  text: 'All tests pass now.',
  reasoning: '',
  toolCalls: [],
  finishReason: 'stop',
};
const cutReply: GatewayReply = { ...textReply, text: 'The fix is to change range(a, b) to', finishReason: 'length' };

interface SseEvent {
  event?: string;
  data: string;
}

/** The events of a stream, as an SSE client splits them; every frame must be whole (ending in a blank line). */
function sseEvents(frames: string[]): SseEvent[] {
  for (const frame of frames) assert.match(frame, /^(event: [a-z_.]+\n)?data: .*\n\n$/, `malformed frame ${frame}`);
  // JSON.stringify writes half a surrogate pair as an escape, which strict parsers (serde_json in Codex) refuse
  for (const frame of frames) assert.doesNotMatch(frame, /\\u[dD][89a-fA-F]/, `half a surrogate pair in ${frame}`);
  return frames.map((frame) => {
    const lines = frame.trimEnd().split('\n');
    const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '';
    return event === undefined ? { data } : { event, data };
  });
}

/** A Chat Completions stream read back the way litellm's and the SDK's accumulators do. */
function readChatStream(frames: string[]) {
  const events = sseEvents(frames);
  assert.equal(events.at(-1)?.data, '[DONE]');
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
  assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0].id));
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  let content = '';
  let reasoning = '';
  let finishReason: string | null = null;
  let usage: unknown = null;
  const calls: { id: string; type: string; function: { name: string; arguments: string } }[] = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      content += choice.delta.content ?? '';
      reasoning += choice.delta.reasoning_content ?? '';
      finishReason = choice.finish_reason ?? finishReason;
      for (const call of choice.delta.tool_calls ?? []) {
        calls[call.index] ??= { id: call.id, type: call.type, function: { name: call.function.name, arguments: '' } };
        calls[call.index]!.function.arguments += call.function.arguments ?? '';
      }
    }
  }
  return { content, reasoning, calls, finishReason, usage, chunks };
}

/** A Responses stream read back from its added items and deltas, checked against each item's done event. */
function readResponsesStream(frames: string[]) {
  const events = sseEvents(frames).map((event) => {
    const data = JSON.parse(event.data);
    assert.equal(data.type, event.event, 'the event line names the data type');
    return data;
  });
  events.forEach((event, index) => assert.equal(event.sequence_number, index));
  assert.deepEqual(
    events.slice(0, 2).map((event) => event.type),
    ['response.created', 'response.in_progress'],
  );
  const built = JSON.parse('[]');
  const done: Record<string, unknown>[] = [];
  for (const event of events.slice(2, -1)) {
    const item = built[event.output_index];
    if (event.type === 'response.output_item.added') built[event.output_index] = structuredClone(event.item);
    else if (event.type === 'response.content_part.added') item.content[event.content_index] = event.part;
    else if (event.type === 'response.output_text.delta' || event.type === 'response.reasoning_text.delta')
      item.content[event.content_index].text += event.delta;
    else if (event.type === 'response.function_call_arguments.delta') item.arguments += event.delta;
    else if (event.type === 'response.output_item.done') done[event.output_index] = event.item;
  }
  const final = events.at(-1);
  // what was built from deltas is what each done event says, but for the item's own status
  for (const [index, item] of built.entries())
    assert.deepEqual({ ...item, status: undefined }, { ...done[index], status: undefined });
  return { built, done, final, events };
}

/** A Messages stream read back the way the Anthropic SDK accumulates it. */
function readMessagesStream(frames: string[]) {
  const events = sseEvents(frames).map((event) => {
    const data = JSON.parse(event.data);
    assert.equal(data.type, event.event, 'the event line names the data type');
    return data;
  });
  assert.equal(events[0].type, 'message_start');
  assert.equal(events.at(-1).type, 'message_stop');
  const message = structuredClone(events[0].message);
  const json: string[] = [];
  for (const event of events.slice(1, -1)) {
    if (event.type === 'content_block_start') message.content[event.index] = structuredClone(event.content_block);
    const block = message.content[event.index];
    if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') block.text += event.delta.text;
      else if (event.delta.type === 'thinking_delta') block.thinking += event.delta.thinking;
      else if (event.delta.type === 'input_json_delta')
        json[event.index] = (json[event.index] ?? '') + event.delta.partial_json;
    }
    if (event.type === 'content_block_stop' && block.type === 'tool_use')
      block.input = JSON.parse(json[event.index] ?? '{}');
    if (event.type === 'message_delta') {
      Object.assign(message, event.delta);
      message.usage.output_tokens = event.usage.output_tokens;
    }
  }
  return message;
}

/**
 * What Codex reads of a Responses stream (codex-rs/codex-api/src/sse/responses.rs): every item of
 * `response.output_item.done` must deserialize as its ResponseItem (message: role and output_text parts; function_call:
 * name, arguments and call_id as strings; reasoning: a summary array), and the stream must end with
 * `response.completed` whose response has a string id and integer token counts.
 */
function codexReads(frames: string[]) {
  const events = sseEvents(frames).map((event) => JSON.parse(event.data));
  assert.ok(events[0].type === 'response.created' && typeof events[0].response === 'object');
  const items = events.filter((event) => event.type === 'response.output_item.done').map((event) => event.item);
  for (const item of items) {
    if (item.type === 'message') {
      assert.equal(item.role, 'assistant');
      assert.ok(
        item.content.every(
          (part: { type: string; text: unknown }) => part.type === 'output_text' && typeof part.text === 'string',
        ),
      );
    } else if (item.type === 'function_call')
      assert.ok([item.name, item.arguments, item.call_id].every((field) => typeof field === 'string'));
    else if (item.type === 'reasoning') assert.ok(Array.isArray(item.summary));
    else assert.fail(`an item Codex cannot read: ${item.type}`);
  }
  const last = events.at(-1);
  if (last.type !== 'response.completed') return { items, completed: false };
  assert.equal(typeof last.response.id, 'string');
  const usage = last.response.usage;
  assert.ok(['input_tokens', 'output_tokens', 'total_tokens'].every((key) => Number.isInteger(usage[key])));
  return { items, completed: true };
}

describe('Chat Completions', () => {
  test("litellm's request for mini-swe-agent: tool calls and their results, content null and in parts", () => {
    const { request, expect } = fixture('litellm-chat-completions.json');
    assert.deepEqual(parsed(chat, request), expect);
  });

  test('the reply: content, reasoning, tool calls with their ids, finish reason and usage', () => {
    const request = parsed(chat, { model: 'agentrl-policy', messages: [{ role: 'user', content: 'fix it' }] });
    const body = wire(chat.respond(toolReply, request));
    assert.equal(body.id, 'chatcmpl-f3a9c1');
    assert.equal(body.object, 'chat.completion');
    assert.deepEqual(body.choices[0].message, {
      role: 'assistant',
      content: toolReply.text,
      reasoning_content: toolReply.reasoning,
      tool_calls: toolReply.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    });
    assert.equal(body.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(body.usage, { prompt_tokens: 412, completion_tokens: 96, total_tokens: 508 });
    const callsOnly = wire(chat.respond({ ...toolReply, text: '', reasoning: '' }, request));
    assert.equal(callsOnly.choices[0].message.content, null, 'a turn of tool calls only has content null');
    assert.equal(wire(chat.respond(cutReply, request)).choices[0].finish_reason, 'length');
  });

  test('the stream, reassembled, is the reply; a usage chunk only when asked', () => {
    const ask = { model: 'agentrl-policy', messages: [{ role: 'user', content: 'fix it' }], stream: true };
    for (const reply of [toolReply, textReply, cutReply]) {
      const request = parsed(chat, { ...ask, stream_options: { include_usage: true } });
      const whole = wire(chat.respond(reply, request)).choices[0];
      const streamed = readChatStream(chat.stream(reply, request));
      assert.equal(streamed.content, whole.message.content ?? '');
      assert.equal(streamed.reasoning, whole.message.reasoning_content ?? '');
      assert.deepEqual(streamed.calls, whole.message.tool_calls ?? []);
      assert.equal(streamed.finishReason, whole.finish_reason);
      assert.deepEqual(streamed.usage, { prompt_tokens: 412, completion_tokens: 96, total_tokens: 508 });
      assert.deepEqual(streamed.chunks.at(-1).choices, [], 'the usage chunk has no choice');
    }
    const plain = readChatStream(chat.stream(toolReply, parsed(chat, ask)));
    assert.equal(plain.usage, null);
    assert.ok(plain.chunks.length > 6, 'text and arguments arrive in several deltas');
  });

  test('refusals name the field', () => {
    const user = { role: 'user', content: 'hi' };
    const ask = (fields: Record<string, unknown>) => refused(chat, { model: 'm', messages: [user], ...fields });
    assert.equal(
      ask({
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,' } }] }],
      }),
      'messages[0].content[0]: only text parts are accepted (type "text"), got "image_url"',
    );
    assert.equal(
      ask({ messages: [user, { role: 'user', content: 42 }] }),
      'messages[1].content: expected a string or an array of text parts, got a number',
    );
    assert.equal(
      ask({ messages: [{ role: 'function', name: 'f', content: 'x' }] }),
      'messages[0].role: unknown role "function"; expected one of system, developer, user, assistant, tool',
    );
    assert.equal(
      ask({ messages: [user, { role: 'tool', content: 'out' }] }),
      'messages[1].tool_call_id: a tool message needs the id of the call it answers',
    );
    assert.equal(
      ask({
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: {} }] }],
      }),
      'messages[0].tool_calls[0].function.name: expected a string, got nothing',
    );
    assert.equal(ask({ n: 2 }), 'n: only one choice is generated per request (n = 1), got 2');
    assert.equal(ask({ max_tokens: 0 }), 'max_tokens: expected a number from 1, got 0');
    assert.equal(ask({ temperature: '0.7' }), 'temperature: expected a number, got a string');
    assert.equal(ask({ messages: [] }), 'messages: expected at least one message');
    assert.equal(
      ask({ tools: [{ type: 'custom', custom: { name: 'x' } }] }),
      'tools[0].type: only function tools are accepted, got "custom"',
    );
    assert.match(
      ask({ response_format: { type: 'json_schema', json_schema: {} } }),
      /^response_format: structured output/,
    );
    assert.equal(refused(chat, { messages: [user] }), 'model: expected a string, got nothing');
    assert.equal(refused(chat, []), 'request body: expected an object, got an array');
    // asked-for log-probabilities are not an error, only not given
    assert.equal(parsed(chat, { model: 'm', messages: [user], logprobs: true, top_logprobs: 5, n: 1 }).model, 'm');
    assert.deepEqual(chat.error({ status: 400, type: 'invalid_request_error', message: 'bad' }), {
      error: { message: 'bad', type: 'invalid_request_error', param: null, code: null },
    });
  });
});

describe('Responses', () => {
  test("Codex's request: instructions and developer messages as system, calls merged into their assistant turn", () => {
    const { request, expect } = fixture('codex-responses.json');
    assert.deepEqual(parsed(responses, request), expect);
    assert.deepEqual(parsed(responses, { model: 'm', input: 'hello' }).messages, [{ role: 'user', content: 'hello' }]);
    assert.deepEqual(parsed(responses, { model: 'm', input: [{ role: 'user', content: 'bare' }] }).messages, [
      { role: 'user', content: 'bare' },
    ]);
  });

  test('the reply: a reasoning item, the message, one function_call item per call', () => {
    const request = parsed(responses, { model: 'm', input: 'fix it' });
    const body = wire(responses.respond(toolReply, request));
    assert.equal(body.id, 'resp_f3a9c1');
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.output, [
      {
        type: 'reasoning',
        id: 'rs_f3a9c1',
        summary: [],
        content: [{ type: 'reasoning_text', text: toolReply.reasoning }],
      },
      {
        type: 'message',
        id: 'msg_f3a9c1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: toolReply.text, annotations: [] }],
      },
      ...toolReply.toolCalls.map((call, index) => ({
        type: 'function_call',
        id: `fc_f3a9c1_${index}`,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status: 'completed',
      })),
    ]);
    assert.deepEqual(body.usage, {
      input_tokens: 412,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 96,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 508,
    });
    const cut = wire(responses.respond(cutReply, request));
    assert.equal(cut.status, 'incomplete');
    assert.deepEqual(cut.incomplete_details, { reason: 'max_output_tokens' });
    const callsOnly = wire(responses.respond({ ...toolReply, text: '', reasoning: '' }, request));
    assert.deepEqual(
      callsOnly.output.map((item: { type: string }) => item.type),
      ['function_call', 'function_call'],
      'no empty message item',
    );
  });

  test('the stream, reassembled, is the reply, and Codex can read it', () => {
    const request = parsed(responses, { model: 'm', input: 'fix it', stream: true });
    for (const reply of [toolReply, textReply]) {
      const whole = wire(responses.respond(reply, request));
      const streamed = readResponsesStream(responses.stream(reply, request));
      assert.deepEqual(streamed.done, whole.output);
      assert.equal(streamed.final.type, 'response.completed');
      assert.deepEqual(streamed.final.response, whole);
      assert.deepEqual(codexReads(responses.stream(reply, request)), { items: whole.output, completed: true });
    }
    const cut = readResponsesStream(responses.stream(cutReply, request));
    assert.equal(cut.final.type, 'response.incomplete');
    assert.deepEqual(cut.final.response, responses.respond(cutReply, request));
  });

  test('refusals name the field; the hosted web_search tool is left out', () => {
    const ask = (fields: Record<string, unknown>) => refused(responses, { model: 'm', input: 'hi', ...fields });
    assert.equal(
      ask({ previous_response_id: 'resp_1' }),
      'previous_response_id: the gateway keeps no conversation on its side; send the whole input',
    );
    assert.equal(parsed(responses, { model: 'm', input: 'hi', previous_response_id: null }).messages.length, 1);
    assert.match(
      ask({ input: [{ type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin Patch' }] }),
      /^input\[0\]: custom_tool_call items are not accepted: the gateway offers function tools only/,
    );
    assert.equal(
      ask({ input: [{ type: 'item_reference', id: 'msg_1' }] }),
      'input[0].type: items of type "item_reference" are not accepted; expected message, function_call, ' +
        'function_call_output or reasoning',
    );
    assert.equal(
      ask({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:' }] }] }),
      'input[0].content[0]: only text parts are accepted (type "input_text" or "output_text"), got "input_image"',
    );
    assert.equal(
      ask({ input: [{ type: 'function_call_output', output: 'x' }] }),
      'input[0].call_id: expected a string, got nothing',
    );
    assert.equal(
      ask({ input: [{ role: 'tool', content: 'x' }] }),
      'input[0].role: unknown role "tool"; expected one of system, developer, user, assistant',
    );
    assert.match(
      ask({ tools: [{ type: 'custom', name: 'apply_patch' }] }),
      /^tools\[0\]\.type: "custom" tools are not available/,
    );
    assert.match(ask({ tools: [{ type: 'local_shell' }] }), /^tools\[0\]\.type: "local_shell" tools are not available/);
    assert.match(ask({ text: { format: { type: 'json_schema', schema: {} } } }), /^text\.format: structured output/);
    assert.equal(ask({ input: 7 }), 'input: expected a string or an array of items, got a number');
    assert.equal(ask({ max_output_tokens: 2.5 }), 'max_output_tokens: expected a whole number, got 2.5');
    const tools = parsed(responses, { model: 'm', input: 'hi', tools: [{ type: 'web_search_preview' }] }).tools;
    assert.deepEqual(tools, []);
  });
});

describe('Messages', () => {
  test("Claude Code's request: system blocks, thinking skipped, tool results before the text beside them", () => {
    const { request, expect } = fixture('claude-code-messages.json');
    assert.deepEqual(parsed(messages, request), expect);
  });

  test('the reply: thinking, text and tool_use blocks with parsed input; stop reasons', () => {
    const request = parsed(messages, { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'fix it' }] });
    const body = wire(messages.respond(toolReply, request));
    assert.deepEqual(body, {
      id: 'msg_f3a9c1',
      type: 'message',
      role: 'assistant',
      model: 'agentrl-policy',
      content: [
        { type: 'thinking', thinking: toolReply.reasoning, signature: '' },
        { type: 'text', text: toolReply.text },
        ...toolReply.toolCalls.map((call) => ({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: JSON.parse(call.arguments),
        })),
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 412, output_tokens: 96 },
    });
    const reason = (reply: GatewayReply) => {
      const { stop_reason, stop_sequence } = wire(messages.respond(reply, request));
      return [stop_reason, stop_sequence];
    };
    assert.deepEqual(reason(textReply), ['end_turn', null]);
    assert.deepEqual(reason(cutReply), ['max_tokens', null]);
    assert.deepEqual(reason({ ...textReply, stopSequence: '\nObservation:' }), ['stop_sequence', '\nObservation:']);
    // arguments that are no JSON object cannot be a tool_use input: the call comes back as the model's text
    const listArgs = {
      ...toolReply,
      text: '',
      reasoning: '',
      toolCalls: [{ id: 't', name: 'bash', arguments: '["ls"]' }],
    };
    const odd = wire(messages.respond(listArgs, request));
    assert.deepEqual(odd.content, [{ type: 'text', text: '{"name":"bash","arguments":["ls"]}' }]);
    assert.equal(odd.stop_reason, 'end_turn');
  });

  test('the stream, reassembled, is the reply', () => {
    const request = parsed(messages, {
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    for (const reply of [toolReply, textReply, cutReply, { ...textReply, stopSequence: 'END' }])
      assert.deepEqual(readMessagesStream(messages.stream(reply, request)), messages.respond(reply, request));
  });

  test('refusals name the field; count_tokens needs no max_tokens', () => {
    const user = { role: 'user', content: 'hi' };
    const ask = (fields: Record<string, unknown>) =>
      refused(messages, { model: 'm', max_tokens: 10, messages: [user], ...fields });
    assert.equal(
      refused(messages, { model: 'm', messages: [user] }),
      'max_tokens: required (the most tokens to generate)',
    );
    assert.equal(
      ask({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: {} },
            ],
          },
        ],
      }),
      'messages[0].content[1]: image blocks are not accepted in a user turn; expected text or tool_result',
    );
    assert.equal(
      ask({ messages: [{ role: 'system', content: 'x' }] }),
      'messages[0].role: expected "user" or "assistant", got "system" (a system prompt goes in "system")',
    );
    assert.equal(
      ask({
        messages: [user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: 'ls' }] }],
      }),
      'messages[1].content[0].input: expected an object, got a string',
    );
    assert.equal(
      ask({ messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }),
      'messages[0].content[0].tool_use_id: expected a string, got nothing',
    );
    assert.equal(
      ask({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] }),
      'tools[0]: server tool "web_search_20250305" is not available: the gateway runs no tools',
    );
    assert.equal(ask({ temperature: 1.5 }), 'temperature: expected a number from 0 to 1, got 1.5');
    assert.equal(
      ask({ system: [{ type: 'image' }] }),
      'system[0]: only text parts are accepted (type "text"), got "image"',
    );
    const counted = parseCountTokens({ model: 'm', messages: [user], system: 'Be brief.' });
    assert.ok(counted.ok);
    assert.deepEqual(counted.request.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    assert.deepEqual(messages.error({ status: 400, type: 'invalid_request_error', message: 'bad' }), {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'bad' },
    });
  });
});

describe('completions', () => {
  test('a prompt in, the generated text out; max_tokens defaults to 16', () => {
    const request = parsed(completions, { model: 'm', prompt: ['def f():'], stop: '\n\n' });
    assert.deepEqual(request, {
      api: 'completions',
      model: 'm',
      messages: [],
      prompt: 'def f():',
      tools: [],
      maxTokens: 16,
      temperature: null,
      stop: ['\n\n'],
      stream: false,
      streamUsage: false,
    });
    const body = wire(completions.respond(toolReply, request));
    assert.deepEqual(body.choices, [{ text: toolReply.text, index: 0, logprobs: null, finish_reason: 'stop' }]);
    assert.equal(body.id, 'cmpl-f3a9c1');
    assert.equal(wire(completions.respond(cutReply, request)).choices[0].finish_reason, 'length');
  });

  test('the stream, reassembled, is the reply', () => {
    const request = parsed(completions, {
      model: 'm',
      prompt: 'x',
      stream: true,
      stream_options: { include_usage: true },
    });
    for (const reply of [toolReply, cutReply]) {
      const events = sseEvents(completions.stream(reply, request));
      assert.equal(events.at(-1)?.data, '[DONE]');
      const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
      const text = chunks.flatMap((chunk) => chunk.choices.map((choice: { text: string }) => choice.text)).join('');
      const whole = wire(completions.respond(reply, request)).choices[0];
      assert.equal(text, whole.text);
      assert.equal(chunks.at(-2).choices[0].finish_reason, whole.finish_reason);
      assert.deepEqual(chunks.at(-1).usage, { prompt_tokens: 412, completion_tokens: 96, total_tokens: 508 });
    }
  });

  test('refusals name the field', () => {
    const ask = (fields: Record<string, unknown>) => refused(completions, { model: 'm', prompt: 'x', ...fields });
    const tokenIds = 'prompt: token-id prompts are not accepted; send the prompt as text (the gateway tokenizes it)';
    assert.equal(ask({ prompt: [1, 2, 3] }), tokenIds);
    assert.equal(ask({ prompt: [[1, 2]] }), tokenIds);
    assert.equal(
      ask({ prompt: ['a', 'b'] }),
      'prompt: expected a string or an array of one string, got an array of 2 entries',
    );
    assert.equal(ask({ prompt: undefined }), 'prompt: expected a string, got nothing');
    assert.equal(ask({ echo: true }), 'echo: the prompt is not echoed back; the text is the generation only');
    assert.equal(ask({ best_of: 3 }), 'best_of: only one completion is generated per request, got 3');
  });
});

describe('gateway paths and shapes', () => {
  test('paths with and without /v1 reach their API; errors come in that API shape', () => {
    for (const [path, api] of [
      ['/v1/chat/completions', 'chat-completions'],
      ['/chat/completions', 'chat-completions'],
      ['/v1/responses', 'responses'],
      ['/responses/', 'responses'],
      ['/v1/messages?beta=true', 'messages'],
      ['/messages', 'messages'],
      ['/v1/completions', 'completions'],
    ] as const)
      assert.equal(gatewayAdapterForPath(path)?.api, api, path);
    assert.equal(gatewayAdapterForPath('/v1/embeddings'), undefined);
    assert.equal(gatewayAdapterForPath('/v2/chat/completions'), undefined);
    assert.ok(isCountTokensPath('/v1/messages/count_tokens?beta=true') && !isCountTokensPath('/v1/messages'));
    assert.ok(isModelListPath('/v1/models') && isModelListPath('/models') && !isModelListPath('/v1/models/x'));
    const failure = { status: 429, type: 'rate_limit_error', message: 'the gateway is busy' };
    assert.deepEqual(gatewayError('messages', failure), {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'the gateway is busy' },
    });
    assert.deepEqual(gatewayError('responses', failure), {
      error: { message: 'the gateway is busy', type: 'rate_limit_error', param: null, code: null },
    });
  });

  test('no malformed request throws: every field of each harness request, replaced by any JSON value, is refused or read', () => {
    const replacements = [undefined, null, 7, -1, 'x', '', true, [], [{}], {}];
    const bodies: [GatewayApiAdapter, Record<string, unknown>][] = [
      [chat, fixture('litellm-chat-completions.json').request],
      [responses, fixture('codex-responses.json').request],
      [messages, fixture('claude-code-messages.json').request],
      [completions, { model: 'm', prompt: ['x'], max_tokens: 5, stop: ['a'], stream: true, stream_options: {} }],
    ];
    let refusals = 0;
    for (const [adapter, body] of bodies)
      for (const path of leafPaths(body))
        for (const value of replacements) {
          const result = adapter.parse(replaced(body, path, value));
          if (!result.ok) {
            refusals += 1;
            assert.equal(result.error.status, 400);
            assert.ok(result.error.message.length > 0);
          }
        }
    assert.ok(refusals > 500, `${refusals} refusals`);
  });
});

/** Every path into a JSON value (object keys and array indexes), the value itself first. */
function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const inner = Array.isArray(value)
    ? value.flatMap((entry, index) => leafPaths(entry, [...path, index]))
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, entry]) => leafPaths(entry, [...path, key]))
      : [];
  return path.length === 0 ? inner : [path, ...inner];
}

/** A copy of a JSON value with the value at a path replaced (removed where the replacement is undefined). */
function replaced(value: Record<string, unknown>, path: (string | number)[], replacement: unknown): unknown {
  const copy = wire(value);
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path.at(-1)!;
  if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

describe('the official SDKs read the answers', () => {
  let server: Server;
  let base = '';
  let reply: GatewayReply = toolReply;
  let seen: GatewayRequest | undefined;

  before(async () => {
    server = createServer((request, response) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const path = request.url ?? '';
        const send = (status: number, body: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        if (request.method === 'GET' && isModelListPath(path))
          return send(200, modelList('agentrl-policy', 1765000000));
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (isCountTokensPath(path)) {
          const counted = parseCountTokens(body);
          return counted.ok ? send(200, countTokensResponse(57)) : send(400, messages.error(counted.error));
        }
        const adapter = gatewayAdapterForPath(path);
        if (adapter === undefined) return send(404, { error: { message: `no API at ${path}` } });
        const parsedBody = adapter.parse(body);
        if (!parsedBody.ok) return send(parsedBody.error.status, adapter.error(parsedBody.error));
        seen = parsedBody.request;
        if (!seen.stream) return send(200, adapter.respond(reply, seen));
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const frame of adapter.stream(reply, seen)) response.write(frame);
        response.end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const openai = () => new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: base, apiKey: 'unused', maxRetries: 0 });
  const bash = {
    type: 'function' as const,
    function: { name: 'bash', description: 'Run a command', parameters: { type: 'object', properties: {} } },
  };

  test('openai: chat.completions.stream() accumulates the stream into the completion create() returns', async () => {
    reply = toolReply;
    const ask = { model: 'agentrl-policy', messages: [{ role: 'user' as const, content: 'fix it' }], tools: [bash] };
    const whole = await openai().chat.completions.create(ask);
    const streamed = await openai()
      .chat.completions.stream({ ...ask, stream_options: { include_usage: true } })
      .finalChatCompletion();
    assert.equal(seen?.streamUsage, true);
    assert.equal(streamed.choices[0]?.message.content, toolReply.text);
    assert.deepEqual(streamed.choices[0]?.message.tool_calls, whole.choices[0]?.message.tool_calls);
    assert.equal(streamed.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(streamed.usage, whole.usage);
    const models = [];
    for await (const model of openai().models.list()) models.push(model.id);
    assert.deepEqual(models, ['agentrl-policy']);
  });

  test('openai: responses.stream() reaches the response create() returns', async () => {
    reply = toolReply;
    const whole = await openai().responses.create({ model: 'agentrl-policy', input: 'fix it' });
    const stream = openai().responses.stream({ model: 'agentrl-policy', input: 'fix it' });
    let deltas = '';
    stream.on('response.output_text.delta', (event) => (deltas += event.delta));
    const streamed = await stream.finalResponse();
    assert.equal(deltas, toolReply.text);
    assert.equal(streamed.output_text, toolReply.text);
    assert.equal(whole.output_text, toolReply.text);
    // finalResponse() adds its own `parsed` fields (null without a schema) to what the events built
    const unparsed = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (key, entry: unknown) => (key.startsWith('parsed') ? undefined : entry)));
    assert.deepEqual(unparsed(streamed.output), whole.output);
    reply = cutReply;
    const cut = await openai().responses.stream({ model: 'agentrl-policy', input: 'fix it' }).finalResponse();
    assert.equal(cut.status, 'incomplete');
  });

  test('openai: completions stream text and usage', async () => {
    reply = toolReply;
    const chunks = await openai().completions.create({
      model: 'agentrl-policy',
      prompt: 'def f():',
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage;
    for await (const chunk of chunks) {
      text += chunk.choices[0]?.text ?? '';
      usage = chunk.usage ?? usage;
    }
    assert.equal(text, toolReply.text);
    assert.deepEqual(usage, { prompt_tokens: 412, completion_tokens: 96, total_tokens: 508 });
  });

  test('anthropic: messages.stream() accumulates the message create() returns; count_tokens answers', async () => {
    reply = toolReply;
    const ask = { model: 'agentrl-policy', max_tokens: 512, messages: [{ role: 'user' as const, content: 'fix it' }] };
    const whole = await anthropic().messages.create(ask);
    const streamed = await anthropic().messages.stream(ask).finalMessage();
    assert.deepEqual(streamed, whole);
    assert.deepEqual(
      whole.content.map((block) => block.type),
      ['thinking', 'text', 'tool_use', 'tool_use'],
    );
    assert.equal(whole.stop_reason, 'tool_use');
    const counted = await anthropic().messages.countTokens({ model: 'agentrl-policy', messages: ask.messages });
    assert.equal(counted.input_tokens, 57);
  });

  test("refusals reach the SDKs as 400 errors with the gateway's message", async () => {
    await assert.rejects(
      openai().chat.completions.create({
        model: 'agentrl-policy',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,' } }] }],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError &&
        error.status === 400 &&
        /messages\[0\]\.content\[0\]: only text parts are accepted/.test(error.message),
    );
    await assert.rejects(
      openai().responses.create({ model: 'agentrl-policy', input: 'hi', previous_response_id: 'resp_1' }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && /keeps no conversation/.test(error.message),
    );
    await assert.rejects(
      anthropic().messages.create({
        model: 'agentrl-policy',
        max_tokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }] },
        ],
      }),
      (error: unknown) =>
        error instanceof Anthropic.BadRequestError &&
        /image blocks are not accepted in a user turn/.test(error.message),
    );
  });
});

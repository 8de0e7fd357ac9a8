// How a harness's requests become prompt ids and its model's ids become replies (activities/gateway/calls.ts): a
// request that repeats the previous conversation and reply extends the previous ids verbatim; any other starts a new
// segment and says why; replies read the family's tool calls; equal requests have equal digests.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  echoOf,
  promptIdsOf,
  readReply,
  requestDigest,
  templateMessages,
  type CallRecord,
  type PreviousCall,
} from '../../activities/gateway/calls';
import { loadChatTokenizer } from '../../activities/policies/chat/chat-tokenizer';
import type { GatewayRequest } from '../../shared/contracts/gateway';

const tools = [
  {
    name: 'bash',
    description: 'Run a command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];
const request = (messages: GatewayRequest['messages'], extra: Partial<GatewayRequest> = {}): GatewayRequest => ({
  api: 'chat-completions',
  model: 'm',
  messages,
  tools,
  maxTokens: null,
  temperature: null,
  stop: [],
  stream: false,
  ...extra,
});

for (const family of ['smollm2-135m-instruct', 'qwen3']) {
  describe(`gateway calls (${family})`, () => {
    const tokenizer = loadChatTokenizer(family);
    const first = request([
      { role: 'system', content: 'You fix bugs.' },
      { role: 'user', content: 'Fix it.' },
    ]);
    // what the model generated: a call as the family writes it, ids not those a re-encoding would give
    const text = 'Looking.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>';
    const generated = [...tokenizer.encodeText(text), tokenizer.stopIds[0]!];
    const start = promptIdsOf(tokenizer, first, null);
    const reply = readReply(text, first, 'seed');
    const previous: PreviousCall = {
      request: first,
      record: {
        promptIds: start.ids,
        generatedIds: generated,
        reply,
      } as CallRecord,
      conversation: start.conversation!,
    };
    const next = request([
      ...first.messages,
      echoOf(reply),
      { role: 'tool', content: 'intervals\ntests', toolCallId: reply.toolCalls[0]!.id },
    ]);

    test('the first call is the template rendering, tools offered in the family way', () => {
      assert.equal(start.segmentStart, 'first');
      const rendered = tokenizer.decode(start.ids);
      assert.match(rendered, /"name":\s*"bash"/);
      assert.equal(
        rendered,
        tokenizer.render(templateMessages(tokenizer, first), {
          tools: tokenizer.toolFormat === 'template' ? (templateOptionsTools(first) as never) : undefined,
          addGenerationPrompt: true,
        }),
      );
    });

    test('a request that repeats the conversation and the reply extends the ids verbatim', () => {
      const extended = promptIdsOf(tokenizer, next, previous);
      assert.equal(extended.segmentStart, null);
      assert.deepEqual(extended.ids.slice(0, start.ids.length + generated.length), [...start.ids, ...generated]);
      assert.match(tokenizer.decode(extended.ids.slice(start.ids.length + generated.length)), /intervals\ntests/);
    });

    test('a rewritten history, changed tools, or an assistant message the model never wrote start a new segment', () => {
      const rewritten = request([
        first.messages[0]!,
        { role: 'user', content: 'Summary: fix it.' },
        ...next.messages.slice(2),
      ]);
      assert.equal(promptIdsOf(tokenizer, rewritten, previous).segmentStart, 'history');
      assert.equal(promptIdsOf(tokenizer, { ...next, tools: [] }, previous).segmentStart, 'tools');
      const forged = request([
        ...first.messages,
        { role: 'assistant', content: 'I did something else.' },
        { role: 'tool', content: 'x', toolCallId: 'c' },
      ]);
      assert.equal(promptIdsOf(tokenizer, forged, previous).segmentStart, 'history');
    });
  });
}

function templateOptionsTools(value: GatewayRequest) {
  return value.tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

describe('gateway replies and digests', () => {
  const chat = request([{ role: 'user', content: 'go' }]);

  test('tool calls in the family format become the API tool calls; a malformed one stays text the model sees', () => {
    const reply = readReply(
      '<think>plan</think>Running.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>' +
        '\n<tool_call>\n{not json}\n</tool_call>',
      chat,
      'seed',
    );
    assert.equal(reply.reasoning, 'plan');
    assert.equal(reply.toolCalls.length, 1);
    assert.equal(reply.toolCalls[0]!.name, 'bash');
    assert.deepEqual(JSON.parse(reply.toolCalls[0]!.arguments), { command: 'ls -la' });
    assert.match(reply.text, /^Running\.\n\n<tool_call>\n\{not json\}/);
    // the same generation gives the same call ids (a replayed reply is the same reply)
    assert.equal(
      readReply('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', chat, 's').toolCalls[0]!.id,
      readReply('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', chat, 's').toolCalls[0]!.id,
    );
  });

  test('without tools offered, and for completions, the text is the reply', () => {
    const text = '<tool_call>{"name": "bash", "arguments": {}}</tool_call>';
    assert.equal(readReply(text, { ...chat, tools: [] }, 's').toolCalls.length, 0);
    assert.equal(readReply(text, { ...chat, api: 'completions', prompt: 'x', messages: [] }, 's').text, text);
  });

  test('completions extend the previous prompt and generation when the new prompt starts with them', () => {
    const tokenizer = loadChatTokenizer('smollm2-135m-instruct');
    const first: GatewayRequest = { ...chat, api: 'completions', messages: [], tools: [], prompt: 'def f():' };
    const start = promptIdsOf(tokenizer, first, null);
    const generated = tokenizer.encodeText('\n    return 1');
    const previous = { request: first, record: { promptIds: start.ids, generatedIds: generated } as CallRecord };
    const more = promptIdsOf(tokenizer, { ...first, prompt: 'def f():\n    return 1\n\ndef g():' }, previous);
    assert.equal(more.segmentStart, null);
    assert.deepEqual(more.ids.slice(0, start.ids.length + generated.length), [...start.ids, ...generated]);
    assert.equal(promptIdsOf(tokenizer, { ...first, prompt: 'other' }, previous).segmentStart, 'prompt');
  });

  test('equal requests have equal digests whatever their key order; any change changes it', () => {
    const reordered = Object.fromEntries(Object.entries(chat).reverse()) as unknown as GatewayRequest;
    assert.equal(requestDigest(reordered), requestDigest(chat));
    assert.notEqual(requestDigest({ ...chat, temperature: 0.5 }), requestDigest(chat));
  });
});

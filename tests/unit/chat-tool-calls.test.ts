// Native tool calls of chat models (shared/chat/tool-format.ts): a well-formed call becomes the tool
// call; every malformed one is a tool error whose message says what was wrong.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoToolCall, pythonFiles, solvedToolCall } from '../../activities/policies/chat/chat-demo';
import { chatActionKind, chatTools, hermesToolPrompt, parseChatToolCall } from '../../shared/chat/tool-format';

const call = (json: string) => `<tool_call>\n${json}\n</tool_call>`;
const error = (text: string, options = {}) => {
  const parsed = parseChatToolCall(text, options);
  assert.equal(parsed.ok, false, `expected a tool error for ${JSON.stringify(text)}`);
  return (parsed as { error: string }).error;
};

describe('chat tool calls', () => {
  test('well-formed calls of each tool, reasoning before the call allowed, arguments as a JSON string too', () => {
    assert.deepEqual(
      parseChatToolCall(`Let me look.\n${call('{"name": "bash", "arguments": {"command": "ls -la"}}')}`),
      { ok: true, call: { tool: 'bash', command: 'ls -la' } },
    );
    assert.deepEqual(
      parseChatToolCall(call('{"name": "write_file", "arguments": {"path": "src/a.py", "content": "x = 1\\n"}}')),
      { ok: true, call: { tool: 'write_file', path: 'src/a.py', content: 'x = 1\n' } },
    );
    assert.deepEqual(parseChatToolCall(call('{"name": "submit", "arguments": {}}')), {
      ok: true,
      call: { tool: 'submit' },
    });
    assert.deepEqual(parseChatToolCall(call('{"name": "submit"}')), { ok: true, call: { tool: 'submit' } });
    assert.deepEqual(parseChatToolCall(call('{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}')), {
      ok: true,
      call: { tool: 'bash', command: 'pwd' },
    });
  });
  test('a call mentioned while reasoning is not the call; a written file may hold </tool_call>', () => {
    assert.deepEqual(
      parseChatToolCall(
        `<think>maybe ${call('{"name": "submit"}')} later</think>\n${call('{"name": "bash", "arguments": {"command": "ls"}}')}`,
      ),
      { ok: true, call: { tool: 'bash', command: 'ls' } },
    );
    assert.match(
      error('<think>I could <tool_call>{"name": "submit"}</tool_call></think>\nNo call now.'),
      /no tool call/,
    );
    assert.deepEqual(
      parseChatToolCall(
        call('{"name": "write_file", "arguments": {"path": "doc.md", "content": "end with </tool_call> here"}}'),
      ),
      { ok: true, call: { tool: 'write_file', path: 'doc.md', content: 'end with </tool_call> here' } },
    );
  });

  test('malformed JSON says so and quotes the call', () => {
    assert.match(
      error(call('{"name": "bash", "arguments": {"command": "ls"')),
      /not valid JSON .*"\{\\"name\\": \\"bash\\"/,
    );
    assert.match(error(call('["bash"]')), /must be a JSON object/);
  });
  test('no call at all, an unclosed call, two calls', () => {
    assert.match(error('I will fix it now.'), /no tool call: write one as <tool_call>/);
    assert.match(error('<tool_call>\n{"name": "submit"}'), /not closed with <\/tool_call>/);
    assert.match(error(`${call('{"name": "submit"}')}${call('{"name": "submit"}')}`), /more than one tool call/);
  });
  test('an unknown tool lists the known ones', () => {
    assert.match(
      error(call('{"name": "python", "arguments": {"code": "1"}}')),
      /unknown tool "python"; known tools: bash, write_file, submit/,
    );
    assert.match(error(call('{"arguments": {}}')), /"name" must be a string naming a tool/);
  });
  test('arguments of the wrong type, missing or unknown name the field', () => {
    assert.match(
      error(call('{"name": "bash", "arguments": {"command": 42}}')),
      /bash: argument "command" must be a string, got a number/,
    );
    assert.match(
      error(call('{"name": "write_file", "arguments": {"path": ["a"], "content": ""}}')),
      /write_file: argument "path" must be a string, got an array/,
    );
    assert.match(
      error(call('{"name": "write_file", "arguments": {"path": "a.py"}}')),
      /write_file: missing argument "content"/,
    );
    assert.match(
      error(call('{"name": "bash", "arguments": {"command": "ls", "cwd": "/"}}')),
      /bash: unknown argument "cwd"; it takes command/,
    );
    assert.match(error(call('{"name": "bash", "arguments": [1]}')), /"arguments" must be a JSON object/);
    assert.match(
      error(call('{"name": "bash", "arguments": {"command": ""}}')),
      /bash: command: command must not be empty/,
    );
    assert.match(
      error(call('{"name": "write_file", "arguments": {"path": "../x", "content": ""}}')),
      /write_file: path: must not contain "\.\."/,
    );
  });
  test('a call split by the length limit says the limit cut it', () => {
    assert.match(
      error('<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "def f(', {
        cutByLength: true,
      }),
      /cut by the length limit before <\/tool_call>/,
    );
    assert.match(
      error('Thinking about the bug and', { cutByLength: true }),
      /cut by the length limit before any tool call/,
    );
    // a complete call before the cut still runs
    assert.equal(parseChatToolCall(`${call('{"name": "submit"}')} and then`, { cutByLength: true }).ok, true);
  });
  test('stop points: write_file changes, pytest through bash checks', () => {
    assert.equal(
      chatActionKind(call('{"name": "write_file", "arguments": {"path": "a.py", "content": ""}}')),
      'change',
    );
    assert.equal(chatActionKind(call('{"name": "bash", "arguments": {"command": "python -m pytest -q"}}')), 'check');
    assert.equal(chatActionKind(call('{"name": "bash", "arguments": {"command": "ls"}}')), null);
  });
  test('the Hermes prompt offers every tool with its schema and the call format', () => {
    const prompt = hermesToolPrompt();
    for (const tool of chatTools) assert.ok(prompt.includes(JSON.stringify(tool.function)), tool.function.name);
    assert.match(
      prompt,
      /<tool_call>\n\{"name": "<tool name>", "arguments": \{<arguments as a JSON object>\}\}\n<\/tool_call>/,
    );
  });
});

describe('the chat format demonstrator (demo:tools)', () => {
  test('every turn is a well-formed call the parser takes; it submits at the last turn and never writes a file', () => {
    for (let seed = 0; seed < 40; seed++) {
      const messages = [
        {
          role: 'tool' as const,
          content: '.:\npkg\ntests\n\n./pkg:\n__init__.py\ncore.py\n\n./tests:\ntest_core.py\n[exit code 0]',
        },
      ];
      for (let turn = 0; turn < 4; turn++) {
        const parsed = parseChatToolCall(demoToolCall(messages, turn, 4, seed * 10 + turn));
        assert.equal(parsed.ok, true, `seed ${seed} turn ${turn}`);
        const tool = (parsed as { call: { tool: string } }).call.tool;
        assert.equal(tool, turn === 3 ? 'submit' : 'bash');
      }
    }
  });
  test('it reads only Python files an observation named, with their folders from ls -R', () => {
    const listing =
      '.:\nbasiclinalg\ntests\n\n./basiclinalg:\n__init__.py\n\n./tests:\ntest_basiclinalg.py\n[exit code 0]';
    assert.deepEqual(pythonFiles(listing), ['basiclinalg/__init__.py', 'tests/test_basiclinalg.py']);
    assert.deepEqual(pythonFiles('  File "pkg/mod.py", line 3\nE   ./tests/test_x.py:4 /etc/passwd.py ../up/b.py'), [
      'pkg/mod.py',
      'tests/test_x.py',
    ]);
    const commands = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const parsed = parseChatToolCall(demoToolCall([{ role: 'tool', content: listing }], 1, 4, seed));
      commands.add((parsed as { call: { command: string } }).call.command);
    }
    assert.ok(
      commands.has('cat basiclinalg/__init__.py') && commands.has('cat tests/test_basiclinalg.py'),
      [...commands].join(' | '),
    );
    assert.ok(
      [...commands].every((command) => !command.startsWith('cat ') || pythonFiles(listing).includes(command.slice(4))),
    );
  });
  test('the solved demonstrator reads the changed files, writes them fixed, runs the tests and submits', () => {
    const files = [
      { path: 'pkg/core.py', content: 'def f(x):\n    return x <= 3  # "fixed"\n' },
      { path: 'pkg/util.py', content: 'A = 1\n' },
    ];
    const episode = (maxTurns: number) =>
      Array.from({ length: maxTurns }, (_, turn) => {
        const parsed = parseChatToolCall(solvedToolCall(files, turn, maxTurns));
        assert.equal(parsed.ok, true, `turn ${turn} of ${maxTurns}`);
        return (parsed as { call: Record<string, string> }).call;
      });
    // the whole plan, then submit at once (the content survives the call's JSON verbatim)
    assert.deepEqual(episode(8).slice(0, 6), [
      { tool: 'bash', command: 'cat pkg/core.py' },
      { tool: 'bash', command: 'cat pkg/util.py' },
      { tool: 'write_file', path: 'pkg/core.py', content: files[0]!.content },
      { tool: 'write_file', path: 'pkg/util.py', content: files[1]!.content },
      { tool: 'bash', command: 'python3 -m pytest -q' },
      { tool: 'submit' },
    ]);
    // fewer turns: the reads go first, then the test run; the last turn submits
    assert.deepEqual(
      episode(4).map((call) => call.tool),
      ['write_file', 'write_file', 'bash', 'submit'],
    );
    assert.deepEqual(
      episode(2).map((call) => call.tool),
      ['write_file', 'submit'],
    );
  });
});

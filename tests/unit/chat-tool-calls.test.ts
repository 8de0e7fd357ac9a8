// Native tool calls of chat models (shared/chat/tool-format.ts): a well-formed call becomes the tool
// call; every malformed one is a tool error whose message says what was wrong.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  test('the solved demonstrator reads the changed files, fixes them, runs the tests and submits', () => {
    const files = [
      // one line replaced: a line edit a small model can copy (quotes and a backslash survive sed and the shell)
      {
        path: 'pkg/core.py',
        before: 'def f(x):\n    return x < 3\n\nB = 2\n',
        content: 'def f(x):\n    return x <= 3  # "it\'s \\n fixed"\n\nB = 2\n',
      },
      // a new file is written whole
      { path: 'pkg/util.py', before: null, content: 'A = 1\n' },
      // two lines become three; lines inserted in the middle and at the top; a line deleted
      { path: 'pkg/two.py', before: 'a = 1\nb = 2\nc = 3\nd = 4\n', content: 'a = 1\n  x\n\ny\nd = 4\n' },
      { path: 'pkg/ins.py', before: 'a\nb\n', content: 'a\n    new\n\nb\n' },
      { path: 'pkg/top.py', before: 'x\n', content: '# top\nx\n' },
      { path: 'pkg/del.py', before: 'a\nb\nc\n', content: 'a\nc\n' },
      // an empty file is written whole
      { path: 'pkg/empty.py', before: '', content: 'E = 0\n' },
    ];
    const episode = (maxTurns: number) =>
      Array.from({ length: maxTurns }, (_, turn) => {
        const parsed = parseChatToolCall(solvedToolCall(files, turn, maxTurns));
        assert.equal(parsed.ok, true, `turn ${turn} of ${maxTurns}`);
        return (parsed as { call: Record<string, string> }).call;
      });
    const calls = episode(16);
    assert.deepEqual(
      calls.map((call) => call.command?.split(' ').slice(0, 2).join(' ') ?? call.tool),
      [
        ...['core', 'two', 'ins', 'top', 'del', 'empty'].map(() => 'cat -n'),
        'sed -i',
        'write_file',
        'sed -i',
        'sed -i',
        'sed -i',
        'sed -i',
        'write_file',
        'python3 -m',
        'submit',
        'submit',
      ],
    );
    assert.equal(calls[6]!.command, `sed -i '2c\\    return x <= 3  # "it'\\''s \\\\n fixed"' pkg/core.py`);
    // the edits, run by a real shell and GNU sed, leave every file as the reference fix does
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-solve-'));
    mkdirSync(join(dir, 'pkg'));
    for (const file of files) if (file.before !== null) writeFileSync(join(dir, file.path), file.before);
    for (const call of calls) {
      if (call.tool === 'write_file') writeFileSync(join(dir, call.path!), call.content!);
      else if (call.tool === 'bash' && call.command!.startsWith('sed '))
        execFileSync('bash', ['-c', call.command!], { cwd: dir });
    }
    for (const file of files) assert.equal(readFileSync(join(dir, file.path), 'utf8'), file.content, file.path);
    // fewer turns: the test run goes first, then the reads; the last turn submits
    assert.deepEqual(
      episode(14).map((call) => call.command?.split(' ')[0] ?? call.tool),
      [...Array<string>(6).fill('cat'), 'sed', 'write_file', 'sed', 'sed', 'sed', 'sed', 'write_file', 'submit'],
    );
    assert.deepEqual(
      episode(9).map((call) => call.command?.split(' ')[0] ?? call.tool),
      ['sed', 'write_file', 'sed', 'sed', 'sed', 'sed', 'write_file', 'submit', 'submit'],
    );
    assert.deepEqual(
      episode(3).map((call) => call.command?.split(' ')[0] ?? call.tool),
      ['sed', 'write_file', 'submit'],
    );
  });
});

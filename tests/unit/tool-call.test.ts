// Tool calls: JSON tool calls and the compact action language's commands, as the agent interface parses them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compactActions } from '../../shared/compact-actions';

const parseToolCall = (text: string) => compactActions.toToolCall(text);

describe('tool-call parsing', () => {
  test('accepts the three tools', () => {
    assert.deepEqual(parseToolCall('{"tool":"bash","command":"ls"}'), {
      ok: true,
      call: { tool: 'bash', command: 'ls' },
    });
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"a/b.py","content":""}'), {
      ok: true,
      call: { tool: 'write_file', path: 'a/b.py', content: '' },
    });
    assert.deepEqual(parseToolCall('{"tool":"submit"}'), { ok: true, call: { tool: 'submit' } });
  });
  test('rejects malformed calls with a message for the agent', () => {
    assert.deepEqual(parseToolCall('{not json'), { ok: false, error: 'tool call is not valid JSON: "{not json"' });
    assert.deepEqual(parseToolCall('not json'), {
      ok: false,
      error:
        'unknown command "not"; commands: run, show, locate, edit LINE OLD NEW, swap LINE A B, write_test, submit; "a quoted argument" may hold spaces',
    });
    assert.deepEqual(parseToolCall('[1]'), { ok: false, error: 'tool call must be a JSON object with a "tool" field' });
    assert.deepEqual(parseToolCall('{"tool":"teleport"}'), {
      ok: false,
      error: 'unknown tool "teleport"; known tools: bash, write_file, submit',
    });
    assert.match((parseToolCall('{"tool":"bash"}') as { error: string }).error, /^invalid bash call: command: /);
    assert.match(
      (parseToolCall('{"tool":"bash","command":"ls","extra":1}') as { error: string }).error,
      /^invalid bash call/,
    );
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"../etc/passwd","content":"x"}'), {
      ok: false,
      error: 'invalid write_file call: path: must not contain ".."',
    });
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"/etc/passwd","content":"x"}'), {
      ok: false,
      error: 'invalid write_file call: path: must be relative to the repository root',
    });
  });
});

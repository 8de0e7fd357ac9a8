// Pure pieces: parsing, globs, durations, configuration, task loading, the artifact store.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createArtifactStore, episodeKey } from '../activities/artifact-store';
import { loadTaskFolder } from '../activities/task-loader';
import { parseDurationMs } from '../shared/duration';
import { EpisodeInput } from '../shared/episode';
import { defaultProtectedPaths, protectedPathMatcher } from '../shared/protected-paths';
import { forgesPass, tamperKindList } from '../shared/tamper';
import { byteTokenizer } from '../shared/tokenizer';
import { parseToolCall } from '../shared/tool-call';
import { loadConfig, projectRoot } from '../workers/config';

describe('tool-call parsing', () => {
  test('accepts the three tools', () => {
    assert.deepEqual(parseToolCall('{"tool":"bash","command":"ls"}'), { ok: true, call: { tool: 'bash', command: 'ls' } });
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"a/b.py","content":""}'), { ok: true, call: { tool: 'write_file', path: 'a/b.py', content: '' } });
    assert.deepEqual(parseToolCall('{"tool":"submit"}'), { ok: true, call: { tool: 'submit' } });
  });
  test('rejects malformed calls with a message for the agent', () => {
    assert.deepEqual(parseToolCall('{not json'), { ok: false, error: 'tool call is not valid JSON: "{not json"' });
    assert.deepEqual(parseToolCall('not json'), { ok: false, error: 'unknown command "not"; commands: run, show, locate, edit LINE OLD NEW, swap LINE A B, write_test, submit; "a quoted argument" may hold spaces' });
    assert.deepEqual(parseToolCall('[1]'), { ok: false, error: 'tool call must be a JSON object with a "tool" field' });
    assert.deepEqual(parseToolCall('{"tool":"teleport"}'), { ok: false, error: 'unknown tool "teleport"; known tools: bash, write_file, submit' });
    assert.match((parseToolCall('{"tool":"bash"}') as { error: string }).error, /^invalid bash call: command: /);
    assert.match((parseToolCall('{"tool":"bash","command":"ls","extra":1}') as { error: string }).error, /^invalid bash call/);
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"../etc/passwd","content":"x"}'), { ok: false, error: 'invalid write_file call: path: must not contain ".."' });
    assert.deepEqual(parseToolCall('{"tool":"write_file","path":"/etc/passwd","content":"x"}'), { ok: false, error: 'invalid write_file call: path: must be relative to the repository root' });
  });
});

describe('protected paths', () => {
  const isProtected = protectedPathMatcher(defaultProtectedPaths);
  test('tests, test configuration, import hooks and git are protected', () => {
    for (const path of ['tests/test_a.py', 'test_top.py', 'pkg/a_test.py', 'pkg/tests/helpers.py', 'test/data.json', 'conftest.py', 'sub/conftest.py', 'pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'sitecustomize.py', 'lib/usercustomize.py', 'x.pth', '.git/config']) {
      assert.ok(isProtected(path), path);
    }
  });
  test('ordinary code is not', () => {
    for (const path of ['pkg/__init__.py', 'pkg/testing.py', 'contest.py', 'pytest.py', 'README.md', 'latest/x.py', 'gitignore']) assert.ok(!isProtected(path), path);
  });
  test('a task can name its own globs', () => {
    const custom = protectedPathMatcher(['spec/**', '*.lock']);
    assert.ok(custom('spec/a/b.py'));
    assert.ok(custom('poetry.lock'));
    assert.ok(!custom('src/poetry.lock'));
    assert.ok(!custom('tests/test_a.py'));
  });
});

describe('durations', () => {
  test('parse units and milliseconds', () => {
    assert.equal(parseDurationMs('60s'), 60_000);
    assert.equal(parseDurationMs('1.5m'), 90_000);
    assert.equal(parseDurationMs('250ms'), 250);
    assert.equal(parseDurationMs('2h'), 7_200_000);
    assert.equal(parseDurationMs(1234), 1234);
    assert.equal(parseDurationMs('soon'), null);
    assert.equal(parseDurationMs(-1), null);
  });
});

describe('episode input', () => {
  test('{} has a default for every field and runs a bundled example', () => {
    const input = EpisodeInput.parse({});
    assert.equal(input.task, 'tasks/wrong-comparison');
    assert.equal(input.checker, 'strict');
    assert.equal(input.budgets.deadlineMs, 600_000);
    assert.equal(input.timeouts.hostScheduleToStartMs, 60_000);
  });
  test('durations in the input accept strings', () => {
    assert.equal(EpisodeInput.parse({ budgets: { deadlineMs: '90s' } }).budgets.deadlineMs, 90_000);
    assert.equal(EpisodeInput.safeParse({ budgets: { deadlineMs: 'later' } }).success, false);
  });
});

describe('configuration', () => {
  test('temporal.yaml validates, and environment variables override it', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: '10.0.0.1:7233', AGENTRL_STATE_DIR: '/tmp/agentrl-x' });
    assert.equal(config.temporal.address, '10.0.0.1:7233');
    assert.equal(config.stateDir, '/tmp/agentrl-x');
    assert.equal(config.artifactsDir, '/tmp/agentrl-x/artifacts');
    assert.equal(config.sandbox.image, 'agentrl-base:latest');
  });
  test('an invalid field is named with its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-config-'));
    writeFileSync(join(dir, 'bad.yaml'), 'sandbox:\n  memoryMb: lots\n');
    assert.throws(() => loadConfig({ AGENTRL_CONFIG: join(dir, 'bad.yaml') }), /bad\.yaml: sandbox\.memoryMb: /);
    writeFileSync(join(dir, 'typo.yaml'), 'temporall: {}\n');
    assert.throws(() => loadConfig({ AGENTRL_CONFIG: join(dir, 'typo.yaml') }), /typo\.yaml: \(root\): Unrecognized key: "temporall"/);
    assert.throws(() => loadConfig({ AGENTRL_CONFIG: join(dir, 'missing.yaml') }), /AGENTRL_CONFIG points to .*missing\.yaml, which does not exist/);
  });
});

describe('task folders', () => {
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-task-'));
    cpSync(join(projectRoot, 'tasks', 'off-by-one-range'), dir, { recursive: true });
    return dir;
  };
  test('a bundled task loads with its snapshot', () => {
    const loaded = loadTaskFolder(join(projectRoot, 'tasks', 'off-by-one-range'), 'img');
    assert.equal(loaded.snapshot.spec.id, 'off-by-one-range');
    assert.equal(loaded.snapshot.spec.image, 'img');
    assert.equal(loaded.snapshot.spec.testCommand, 'python3 -m pytest -q');
    assert.ok(loaded.hasOracle);
    assert.ok(Object.keys(loaded.snapshot.repo).includes('tests/test_pager.py'));
    assert.ok(loaded.snapshot.expected.visible.length > 0);
  });
  test('errors name the file and the field', () => {
    const dir = copy();
    writeFileSync(join(dir, 'task.yaml'), 'id: off-by-one-range\nprompt: fix\nbudgets:\n  maxTurns: -3\n');
    assert.throws(() => loadTaskFolder(dir, 'img'), new RegExp(`${dir}/task\\.yaml: budgets\\.maxTurns: `));
    writeFileSync(join(dir, 'task.yaml'), 'id: off-by-one-range\nprompt: fix\nimgae: x\n');
    assert.throws(() => loadTaskFolder(dir, 'img'), /task\.yaml: \(root\): Unrecognized key: "imgae"/);
    writeFileSync(join(dir, 'task.yaml'), 'prompt: fix\n');
    assert.throws(() => loadTaskFolder(dir, 'img'), /task\.yaml: id: /);
    rmSync(join(dir, 'task.yaml'));
    assert.throws(() => loadTaskFolder(dir, 'img'), /task\.yaml: missing/);
  });
  test('a task without recorded test ids says how to record them', () => {
    const dir = copy();
    rmSync(join(dir, 'expected-tests.json'));
    assert.throws(() => loadTaskFolder(dir, 'img'), /expected-tests\.json: missing; run `npx agentrl task validate/);
  });
});

describe('tamper kinds', () => {
  test('exactly the kinds that can forge a pass zero the reward', () => {
    const forging = tamperKindList.filter((kind) => forgesPass(kind.kind)).map((kind) => kind.kind).sort();
    assert.deepEqual(forging, ['always_true_eq', 'compiled_module', 'dynamic_code', 'exit_at_import', 'runner_internals', 'shadowing_module', 'unanalysable']);
    assert.ok(!forgesPass('test_edit'));
    assert.ok(!forgesPass('no_such_kind'));
  });
});

describe('artifact store', () => {
  test('blobs are content-addressed and written atomically', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrl-store-'));
    const store = createArtifactStore(root);
    const ref = await store.putBlob('hello');
    assert.equal(ref, 'sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    assert.equal(await store.putBlob(Buffer.from('hello')), ref);
    assert.equal((await store.getBlob(ref)).toString(), 'hello');
    await store.writeNamed('episodes/e/turns/000000.json', '{}');
    assert.deepEqual(await store.listNamed('episodes/e/turns'), ['000000.json']);
    assert.deepEqual(readdirSync(join(root, 'episodes', 'e', 'turns')), ['000000.json'], 'no temporary file is left');
    await assert.rejects(store.writeNamed('../escape', 'x'), /invalid artifact name/);
    await assert.rejects(store.getBlob('sha1:abc'), /not an artifact reference/);
  });
  test('episode keys are safe folder names and distinct', () => {
    assert.match(episodeKey('a/b c'), /^a_b_c-[0-9a-f]{12}$/);
    assert.notEqual(episodeKey('a/b'), episodeKey('a_b'));
  });
});

describe('byte tokenizer', () => {
  test('round-trips text, one id per UTF-8 byte', () => {
    const ids = byteTokenizer.encode('héllo');
    assert.deepEqual(ids, [104, 195, 169, 108, 108, 111]);
    assert.equal(byteTokenizer.decode(ids), 'héllo');
  });
});

describe('grading rules', () => {
  const result = (exitCode: number | null, tests: [string, string][], timedOut = false) => ({
    exitCode, timedOut, output: '', outputTruncated: false, durationMs: 1,
    report: { tests: tests.map(([nodeid, outcome]) => ({ nodeid, outcome: outcome as 'passed' })), collectErrors: [] },
  });
  test('reward needs every expected id passed and a zero exit', async () => {
    const { allExpectedPassed } = await import('../activities/grading');
    assert.ok(allExpectedPassed(result(0, [['a', 'passed'], ['b', 'passed']]), ['a', 'b']));
    assert.ok(!allExpectedPassed(result(1, [['a', 'passed'], ['b', 'passed']]), ['a', 'b']), 'a non-zero exit fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']]), ['a', 'b']), 'a missing test fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed'], ['b', 'skipped']]), ['a', 'b']), 'a skipped test fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']], true), ['a']), 'a timeout fails');
    assert.ok(!allExpectedPassed({ ...result(0, []), report: null }, ['a']), 'no report fails');
  });
  test('an agent file that clashes with a kept folder is dropped', async () => {
    const { dropPathConflicts } = await import('../activities/scoring');
    const files: Record<string, Buffer> = { tests: Buffer.from('x'), 'tests/test_a.py': Buffer.from(''), 'pkg/__init__.py': Buffer.from(''), 'pkg/__init__.py/x': Buffer.from('') };
    dropPathConflicts(files, new Set(['tests', 'pkg/__init__.py/x']));
    assert.deepEqual(Object.keys(files).sort(), ['pkg/__init__.py', 'tests/test_a.py']);
  });
});

describe('pass@k', () => {
  test('matches the closed form and its edge cases', async () => {
    const { passAtK } = await import('../shared/metrics');
    // 1 − C(n−c, k) / C(n, k)
    assert.equal(passAtK(10, 0, 1), 0);
    assert.equal(passAtK(10, 10, 5), 1);
    assert.ok(Math.abs(passAtK(4, 1, 1) - 0.25) < 1e-12);
    assert.ok(Math.abs(passAtK(4, 1, 2) - 0.5) < 1e-12, '1 − C(3,2)/C(4,2) = 1 − 3/6');
    assert.ok(Math.abs(passAtK(5, 2, 2) - 0.7) < 1e-12, '1 − C(3,2)/C(5,2) = 1 − 3/10');
    assert.equal(passAtK(3, 2, 2), 1, 'fewer wrong samples than k: always a hit');
    assert.throws(() => passAtK(2, 1, 3), /needs at least 3 samples per task/);
  });
});

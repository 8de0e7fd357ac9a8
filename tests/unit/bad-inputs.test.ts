// Bad inputs give a clear error naming the file, field or path: task folders, temporal.yaml, episode
// and run inputs as the UI sends them.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ZodError } from 'zod';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { maxTaskFileBytes } from '../../activities/tasks/task-files';
import { EpisodeInput, ResumeRequest } from '../../shared/contracts/episode-input';
import { asyncSettingsOf } from '../../shared/contracts/run/async';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import { loadConfig, projectRoot } from '../../workers/config';
import { describeIssues } from '../../shared/names/errors';

const copy = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-bad-task-'));
  cpSync(join(projectRoot, 'tasks', 'off-by-one-range'), dir, { recursive: true });
  return dir;
};

describe('bad task folders', () => {
  test('a missing repository, invalid YAML, a malformed oracle', () => {
    const dir = copy();
    writeFileSync(join(dir, 'task.yaml'), 'id: x\nprompt: [unclosed\n');
    assert.throws(() => loadTaskFolder(dir, 'img'), new RegExp(`${dir}/task\\.yaml: not valid YAML: `));
    cpSync(join(projectRoot, 'tasks', 'off-by-one-range', 'task.yaml'), join(dir, 'task.yaml'));
    writeFileSync(join(dir, 'oracle.json'), '{"format": "agentrl-oracle/1", "calls": []');
    assert.throws(() => loadTaskFolder(dir, 'img'), new RegExp(`${dir}/oracle\\.json: not valid JSON: `));
    writeFileSync(
      join(dir, 'oracle.json'),
      JSON.stringify({
        format: 'agentrl-oracle/1',
        calls: [{ module: 'pager', function: 'get_page', args: [], expect: { value: 1 }, extra: true }],
      }),
    );
    assert.throws(
      () => loadTaskFolder(dir, 'img'),
      new RegExp(`${dir}/oracle\\.json: calls\\.0: Unrecognized key: "extra"`),
    );
    writeFileSync(
      join(dir, 'oracle.json'),
      JSON.stringify({
        format: 'agentrl-oracle/1',
        calls: [{ module: '../pager', function: 'f', expect: { value: 1 } }],
      }),
    );
    assert.throws(() => loadTaskFolder(dir, 'img'), /oracle\.json: calls\.0\.module: a dotted module name/);
    rmSync(join(dir, 'repo'), { recursive: true });
    assert.throws(() => loadTaskFolder(dir, 'img'), new RegExp(`${dir}/repo: missing \\(the starting repository\\)`));
  });

  test('a symbolic link out of the task folder, a huge file and a name that is not UTF-8 are named; a binary file and a link inside load', () => {
    const dir = copy();
    writeFileSync(join(dir, 'repo', 'data.bin'), Buffer.from([0, 255, 1, 254]));
    symlinkSync(join(dir, 'repo', 'data.bin'), join(dir, 'repo', 'inside-link'));
    const loaded = loadTaskFolder(dir, 'img');
    assert.deepEqual(Buffer.from(loaded.snapshot.repo['data.bin']!, 'base64'), Buffer.from([0, 255, 1, 254]));
    assert.equal(loaded.snapshot.repo['inside-link'], undefined, 'a link inside the folder is left out');
    symlinkSync('/etc/passwd', join(dir, 'hidden', 'passwd'));
    assert.throws(
      () => loadTaskFolder(dir, 'img'),
      new RegExp(`${dir}/hidden/passwd: a symbolic link to /etc/passwd, outside the task folder`),
    );
    rmSync(join(dir, 'hidden', 'passwd'));
    writeFileSync(join(dir, 'repo', 'huge.dat'), '');
    truncateSync(join(dir, 'repo', 'huge.dat'), maxTaskFileBytes + 1);
    assert.throws(
      () => loadTaskFolder(dir, 'img'),
      new RegExp(
        `${dir}/repo/huge\\.dat: ${maxTaskFileBytes + 1} bytes, over the limit of ${maxTaskFileBytes} bytes for a task file`,
      ),
    );
    rmSync(join(dir, 'repo', 'huge.dat'));
    mkdirSync(join(dir, 'repo', 'odd'));
    writeFileSync(Buffer.from(`${join(dir, 'repo', 'odd')}/name-\xff.py`, 'latin1'), 'x = 1\n');
    assert.throws(
      () => loadTaskFolder(dir, 'img'),
      /repo\/odd\/name-\uFFFD\.py: a file name that is not UTF-8 \(bytes 6e616d652dff2e7079\)/,
    );
  });
});

describe('bad configuration', () => {
  test('temporal.yaml that is not YAML, a negative limit, an unknown key: each names its file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-bad-config-'));
    const load = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return () => loadConfig({ AGENTRL_CONFIG: join(dir, name) });
    };
    assert.throws(load('syntax.yaml', 'sandbox: [memoryMb: 5\n'), new RegExp(`${dir}/syntax\\.yaml: not valid YAML: `));
    assert.throws(
      load('negative.yaml', 'sandbox:\n  memoryMb: -5\n'),
      /negative\.yaml: sandbox\.memoryMb: Too small: expected number to be >=/,
    );
    assert.throws(
      load('unknown.yaml', 'sandbox:\n  memoryMB: 512\n'),
      /unknown\.yaml: sandbox: Unrecognized key: "memoryMB"/,
    );
  });
});

describe('bad inputs from the UI', () => {
  const issues = (
    schema: { safeParse(value: unknown): { success: boolean; error?: ZodError } },
    value: unknown,
    name: string,
  ) => {
    const parsed = schema.safeParse(value);
    assert.equal(parsed.success, false);
    return describeIssues(name, parsed.error!);
  };
  test('an episode input with a wrong type, a negative number and an unknown field', () => {
    assert.match(
      issues(EpisodeInput, { task: 42 }, 'episode input'),
      /^episode input: task: Invalid input: expected string, received number/m,
    );
    assert.match(
      issues(EpisodeInput, { budgets: { maxTurns: -1 } }, 'episode input'),
      /^episode input: budgets\.maxTurns: Too small: expected number to be >/m,
    );
    assert.match(
      issues(EpisodeInput, { chekcer: 'weak' }, 'episode input'),
      /^episode input: \(root\): Unrecognized key: "chekcer"/m,
    );
  });
  test('a run input with a wrong type, a negative number and an unknown field', () => {
    assert.match(
      issues(TrainingRunInput, { iterations: 'three' }, 'training input'),
      /^training input: iterations: Invalid input: expected number, received string/m,
    );
    assert.match(
      issues(TrainingRunInput, { groupSize: -4 }, 'training input'),
      /^training input: groupSize: Too small: expected number to be >=2/m,
    );
    assert.match(
      issues(TrainingRunInput, { itertions: 3 }, 'training input'),
      /^training input: \(root\): Unrecognized key: "itertions"/m,
    );
  });
  test('asynchronous settings: refused in a synchronous run, segments refused with η = 0, bad values named', () => {
    assert.match(
      issues(TrainingRunInput, { async: { maxStaleness: 2 } }, 'training input'),
      /^training input: async: only for mode "async" \(a synchronous iteration waits for every episode\)$/m,
    );
    // the same rule reads a flat field of before
    assert.match(
      issues(TrainingRunInput, { groupsPerStep: 2, segment: { maxTurns: 3 } }, 'training input'),
      /^training input: async: only for mode "async"/m,
    );
    assert.match(
      issues(
        TrainingRunInput,
        { mode: 'async', async: { maxStaleness: 0, segment: { maxTurns: 3 } } },
        'training input',
      ),
      /^training input: async\.segment: segments with maxStaleness 0 are refused/m,
    );
    assert.match(
      issues(TrainingRunInput, { mode: 'async', async: { segment: {} } }, 'training input'),
      /^training input: async\.segment: a segment needs maxTurns or maxMs/m,
    );
    assert.match(
      issues(TrainingRunInput, { mode: 'async', async: { maxStaleness: -1 } }, 'training input'),
      /^training input: async\.maxStaleness: Too small/m,
    );
    assert.match(
      issues(TrainingRunInput, { mode: 'later' }, 'training input'),
      /^training input: mode: Invalid option: expected one of "sync"\|"async"/m,
    );
    assert.match(
      issues(TrainingRunInput, { loss: { offPolicy: 'ppo' } }, 'training input'),
      /^training input: loss\.offPolicy: Invalid option: expected one of "none"\|"tis"\|"decoupled"/m,
    );
    assert.match(
      issues(TrainingRunInput, { mode: 'async', async: { versionSwitch: 'step' } }, 'training input'),
      /^training input: async\.versionSwitch: Invalid option/m,
    );
    assert.match(
      issues(TrainingRunInput, { mode: 'async', async: { maxStalenes: 1 } }, 'training input'),
      /^training input: async: Unrecognized key: "maxStalenes"/m,
    );
    // the defaults: a synchronous run without correction; η 2 once asynchronous, a step per tasksPerIteration groups
    const sync = TrainingRunInput.parse({});
    assert.deepEqual([sync.mode, sync.async], ['sync', undefined]);
    const run = TrainingRunInput.parse({ mode: 'async' });
    assert.deepEqual([run.loss.offPolicy, run.loss.isCap], ['none', 2]);
    assert.deepEqual(asyncSettingsOf(run), {
      maxStaleness: 2,
      groupsPerStep: 4,
      versionSwitch: 'turn',
      maxParked: 64,
    });
  });
  test('an episode segment and a resume request', () => {
    assert.match(
      issues(EpisodeInput, { segment: { maxTurns: 0 } }, 'episode input'),
      /^episode input: segment\.maxTurns: Too small/m,
    );
    assert.match(
      issues(EpisodeInput, { segment: { maxMs: 'soon' } }, 'episode input'),
      /^episode input: segment\.maxMs: expected a duration/m,
    );
    assert.match(
      issues(EpisodeInput, { segment: { maxTurns: 2, parkTTL: '1h' } }, 'episode input'),
      /Unrecognized key: "parkTTL"/,
    );
    assert.equal(EpisodeInput.parse({ segment: { maxMs: '90s' } }).segment!.maxMs, 90_000);
    assert.match(issues(ResumeRequest, { policyVersion: '' }, 'resume'), /^resume: policyVersion: Too small/m);
    assert.match(issues(ResumeRequest, { version: 'v2' }, 'resume'), /Unrecognized key: "version"/);
    assert.deepEqual(ResumeRequest.parse({ segment: null }), { newest: false, segment: null });
  });
});

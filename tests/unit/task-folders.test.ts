// Task folders: loading, and errors that name the file and the field.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type Dockerode from 'dockerode';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { validateTask } from '../../activities/tasks/task-validation';
import { validationCodeFiles, validationDigest } from '../../activities/tasks/validation-digest';
import { loadConfig, projectRoot } from '../../workers/config';

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

describe('validation digest', () => {
  const sandbox = loadConfig().sandbox;
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-digest-'));
    cpSync(join(projectRoot, 'tasks', 'off-by-one-range'), dir, { recursive: true });
    return dir;
  };
  const record = (dir: string, digest: string) => {
    const expected = JSON.parse(readFileSync(join(dir, 'expected-tests.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'expected-tests.json'), JSON.stringify({ ...expected, digest }));
  };
  // no Docker client: a task skipped by its digest never reaches the containers
  const noDocker = null as unknown as Dockerode;

  test('changes with any file of the task (but expected-tests.json) and with the image, and names what it covers', () => {
    const dir = copy();
    const digest = validationDigest(dir, sandbox.image);
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    record(dir, 'sha256:' + '0'.repeat(64));
    assert.equal(validationDigest(dir, sandbox.image), digest, 'expected-tests.json is not an input');
    assert.notEqual(validationDigest(dir, 'other-image:1'), digest);
    writeFileSync(join(dir, 'repo', 'pager', 'extra.py'), 'x = 1\n');
    assert.notEqual(validationDigest(dir, sandbox.image), digest);
    for (const file of [
      'activities/checker/python/grade-harness.py',
      'activities/checker/python/make-twins.py',
      'sandbox/base-image.recipe',
      'shared/checker-paths.json',
      'activities/checker/twins.ts',
    ]) {
      assert.ok(validationCodeFiles.includes(file), file);
    }
  });

  test('task validate --check skips a task whose recorded digest matches, and only then', async () => {
    const dir = copy();
    record(dir, validationDigest(dir, sandbox.image));
    const report = await validateTask(dir, { docker: noDocker, sandbox }, { check: true });
    assert.deepEqual([report.ok, report.skipped, report.recorded], [true, true, true]);
    assert.match(report.checks[0]!.detail, /not run again/);
    // --full, or a changed task, reaches the containers (here: the missing client)
    await assert.rejects(validateTask(dir, { docker: noDocker, sandbox }, { check: true, full: true }), TypeError);
    writeFileSync(join(dir, 'repo', 'pager', 'extra.py'), 'x = 1\n');
    await assert.rejects(validateTask(dir, { docker: noDocker, sandbox }, { check: true }), TypeError);
  });
});

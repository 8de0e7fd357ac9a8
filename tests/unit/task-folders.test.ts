// Task folders: loading, and errors that name the file and the field.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { projectRoot } from '../../workers/config';

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

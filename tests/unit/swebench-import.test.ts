// `task import swebench`: SWE-bench-style instances into task folders, from a local clone (no containers).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findClone, importSwebench, taskIdOf } from '../../activities/tasks/swebench-import';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { TaskSpec } from '../../shared/task-spec';
import { makeTinycalcClone, tinycalcInstances } from '../helpers/swebench-fixture';

function jsonl(rows: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'agentrl-jsonl-')), 'instances.jsonl');
  writeFileSync(file, rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n');
  return file;
}

describe('task import swebench', () => {
  test('writes a task folder per instance: the clone at base_commit, the test patch, the patch and the lists', () => {
    const { repos, commit } = makeTinycalcClone();
    const out = mkdtempSync(join(tmpdir(), 'agentrl-imported-'));
    const result = importSwebench(jsonl(tinycalcInstances(commit)), {
      reposDir: repos,
      outDir: out,
      acceptedBound: 0.05,
    });
    assert.deepEqual(result.failed, []);
    assert.equal(result.written.length, 3);
    const dir = join(out, 'example__tinycalc-1');
    assert.equal(result.written[0]!.dir, dir);
    const spec = TaskSpec.parse(parseYaml(readFileSync(join(dir, 'task.yaml'), 'utf8')));
    assert.deepEqual(spec.failToPass, ['tests/test_calc.py::test_clamp_above'], 'JSON-string lists are read');
    assert.equal(spec.passToPass!.length, 5);
    assert.deepEqual(spec.source, {
      repo: 'example/tinycalc',
      commit,
      instanceId: 'example__tinycalc-1',
      version: '1.0',
    });
    assert.match(spec.prompt, /^clamp\(42, 0, 10\) returns 42/);
    assert.equal(spec.acceptedBound, 0.05);
    assert.ok(existsSync(join(dir, 'repo', 'tinycalc', '__init__.py')) && !existsSync(join(dir, 'repo', '.git')));
    // the loader turns the test patch into whole hidden files, applied to the starting repository
    const loaded = loadTaskFolder(dir, 'agentrl-base:latest', { requireExpected: false });
    assert.deepEqual(Object.keys(loaded.snapshot.hidden), ['tests/test_calc.py']);
    const hidden = Buffer.from(loaded.snapshot.hidden['tests/test_calc.py']!, 'base64').toString();
    assert.match(hidden, /def test_clamp_above\(\):/);
    assert.match(hidden, /def test_needs_a_network\(\):/, 'the rest of the file is kept');
    assert.ok(loaded.solutionPatch?.includes('return high'));
  });

  test('an instance that cannot be imported is named with the reason, and the others are still imported', () => {
    const { repos, commit } = makeTinycalcClone();
    const out = mkdtempSync(join(tmpdir(), 'agentrl-imported-'));
    const [good] = tinycalcInstances(commit);
    const rows = [
      good,
      { ...good, instance_id: 'other__missing-1', repo: 'other/missing' },
      { ...good, instance_id: 'example__tinycalc-9', base_commit: 'f'.repeat(40) },
      { ...good, instance_id: 'django__django-1', FAIL_TO_PASS: '["test_x (admin.tests.Case)"]' },
      { ...good, instance_id: 'example__tinycalc-8', FAIL_TO_PASS: undefined },
      'not json',
    ];
    const result = importSwebench(jsonl(rows), { reposDir: repos, outDir: out });
    assert.deepEqual(
      result.written.map((w) => w.instanceId),
      ['example__tinycalc-1'],
    );
    const why = Object.fromEntries(result.failed.map((f) => [f.instance, f.error]));
    assert.match(why['other__missing-1']!, /no clone of other\/missing under .*other__missing/);
    assert.match(why['example__tinycalc-9']!, /has no commit f{40}/);
    assert.match(why['django__django-1']!, /not a pytest node id/);
    assert.match(Object.values(why).join('\n'), /FAIL_TO_PASS/);
    assert.match(Object.values(why).join('\n'), /:6: not valid JSON/);
    // a folder that exists is kept unless --force
    const again = importSwebench(jsonl([good]), { reposDir: repos, outDir: out });
    assert.match(again.failed[0]!.error, /exists \(give --force/);
    assert.equal(importSwebench(jsonl([good]), { reposDir: repos, outDir: out, force: true }).written.length, 1);
  });

  test('an environments map gives each instance the environment of its repository and version', () => {
    const { repos, commit } = makeTinycalcClone();
    const out = mkdtempSync(join(tmpdir(), 'agentrl-imported-'));
    const [one, two] = tinycalcInstances(commit);
    const environments = {
      'example/tinycalc@1.0': { pypi: ['six==1.16.0'] },
      'example/tinycalc': { debian: ['jq'] },
      '*': { python: '3.11' as const },
    };
    const rows = [one, { ...two, version: '2.0' }, { ...two, instance_id: 'other__x-1', repo: 'other/x' }];
    const result = importSwebench(jsonl(rows), { reposDir: repos, outDir: out, environments });
    assert.equal(result.written.length, 2, JSON.stringify(result.failed));
    const env = (id: string) => TaskSpec.parse(parseYaml(readFileSync(join(out, id, 'task.yaml'), 'utf8'))).environment;
    assert.deepEqual(env('example__tinycalc-1'), { pypi: ['six==1.16.0'] });
    assert.deepEqual(env('example__tinycalc-2'), { debian: ['jq'] });
  });

  test('clones are found as owner__name, owner/name, name or a bare mirror; ids are folder names', () => {
    const { repos } = makeTinycalcClone();
    assert.equal(findClone(repos, 'example/tinycalc'), join(repos, 'example__tinycalc'));
    assert.equal(findClone(repos, 'example/other'), null);
    assert.equal(taskIdOf('Astropy__astropy-12907'), 'astropy__astropy-12907');
    assert.equal(taskIdOf('a/b c'), 'a-b-c');
  });

  test('task.yaml: passToPass needs failToPass, and the lists hold pytest node ids', () => {
    assert.equal(TaskSpec.safeParse({ id: 't', prompt: 'p', passToPass: ['t.py::a'] }).success, false);
    assert.equal(TaskSpec.safeParse({ id: 't', prompt: 'p', failToPass: ['test_x (a.B)'] }).success, false);
    assert.equal(TaskSpec.safeParse({ id: 't', prompt: 'p', failToPass: ['tests/t.py::C::d[1-2]'] }).success, true);
  });
});

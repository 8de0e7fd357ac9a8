// `task import swebench`: SWE-bench-style instances into task folders, from a local clone (no containers).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import {
  findClone,
  importSwebench,
  readAcceptedBounds,
  swebenchTestCommand,
  taskIdOf,
} from '../../activities/tasks/swebench-import';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { TaskSpec } from '../../shared/contracts/task-spec';
import { makeTinycalcClone, tinycalcInstances } from '../helpers/swebench-fixture';

/** A test patch that adds a test file the starting repository lacks. */
const newTestFile = `diff --git a/tests/test_extra.py b/tests/test_extra.py
new file mode 100644
--- /dev/null
+++ b/tests/test_extra.py
@@ -0,0 +1,5 @@
+from tinycalc import clamp
+
+
+def test_clamp_far_above():
+    assert clamp(10**9, 0, 10) == 10
`;

function specOf(dir: string): TaskSpec {
  return TaskSpec.parse(parseYaml(readFileSync(join(dir, 'task.yaml'), 'utf8')));
}

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
    assert.equal(result.written.length, 5);
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
    assert.equal(spec.testCommand, 'python3 -m pytest -q tests/test_calc.py', 'the deciding files, not every test');
    assert.ok(
      spec.prompt.endsWith(
        '\n\nThe tests that decide this task run with `python3 -m pytest -q tests/test_calc.py`. Some of them are ' +
          'added or changed when your work is graded, so the test files you have now may not show the issue.\n',
      ),
      spec.prompt,
    );
    assert.doesNotMatch(spec.prompt, /test_clamp_above|clamp\(42, 0, 10\) == 10/, 'nothing of the hidden tests');
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

  test('the test command runs the deciding files, and the prompt names a file that comes only with the grading', () => {
    const { repos, commit } = makeTinycalcClone();
    const out = mkdtempSync(join(tmpdir(), 'agentrl-imported-'));
    const [good] = tinycalcInstances(commit);
    const rows = [
      {
        ...good,
        instance_id: 'example__tinycalc-5',
        test_patch: newTestFile,
        FAIL_TO_PASS: ['tests/test_extra.py::test_clamp_far_above'],
      },
      { ...good, instance_id: 'example__tinycalc-6', test_patch: 'not a patch' },
    ];
    const result = importSwebench(jsonl(rows), { reposDir: repos, outDir: out });
    assert.match(result.failed[0]?.error ?? '', /instance example__tinycalc-6: test_patch is not a patch git can read/);
    const spec = specOf(join(out, 'example__tinycalc-5'));
    assert.equal(spec.testCommand, 'python3 -m pytest -q tests/test_calc.py tests/test_extra.py');
    assert.match(
      spec.prompt,
      /run with `python3 -m pytest -q tests\/test_calc\.py tests\/test_extra\.py`\. Some of them are added or changed when your work is graded \(`tests\/test_extra\.py` does not exist until then\), so the test files you have now may not show the issue\.\n$/,
    );
    assert.doesNotMatch(spec.prompt, /far_above|10\*\*9/, 'nothing of the hidden tests');
    // sorted, each file once, one shell word each, never read as an option
    assert.equal(
      swebenchTestCommand(['b/t.py::x', 'a/t.py::y[1]', 'b/t.py::z', "my tests/it's.py::t", '-odd.py::t']),
      "python3 -m pytest -q ./-odd.py a/t.py b/t.py 'my tests/it'\\''s.py'",
    );
  });

  test("an instance's own bound wins over --accepted-bound; a bad or differing one is reported for that instance", () => {
    const { repos, commit } = makeTinycalcClone();
    const out = mkdtempSync(join(tmpdir(), 'agentrl-imported-'));
    const [good] = tinycalcInstances(commit);
    const row = (n: number, extra: Record<string, unknown>) => ({
      ...good,
      instance_id: `example__tinycalc-${n}`,
      ...extra,
    });
    const boundsFile = join(mkdtempSync(join(tmpdir(), 'agentrl-bounds-')), 'bounds.yaml');
    writeFileSync(
      boundsFile,
      [
        'example__tinycalc-13: 0.25',
        'example__tinycalc-14: 0.5',
        'example__tinycalc-15: 0.3',
        'example__tinycalc-16: 1.5',
        'example__tinycalc-99: 0.1',
        '',
      ].join('\n'),
    );
    const rows = [
      row(10, {}),
      row(11, { accepted_bound: 0.2 }),
      row(12, { acceptedBound: 1 }),
      row(13, {}),
      row(14, { accepted_bound: 0.5 }),
      row(15, { accepted_bound: 0.2 }),
      row(16, {}),
      row(17, { accepted_bound: 0 }),
      row(18, { acceptedBound: '0.1' }),
      row(19, { accepted_bound: 0.1, acceptedBound: 0.2 }),
    ];
    const result = importSwebench(jsonl(rows), {
      reposDir: repos,
      outDir: out,
      acceptedBound: 0.08,
      acceptedBounds: readAcceptedBounds(boundsFile),
    });
    const bound = (n: number) => specOf(join(out, `example__tinycalc-${n}`)).acceptedBound;
    assert.deepEqual(
      [10, 11, 12, 13, 14].map(bound),
      [0.08, 0.2, 1, 0.25, 0.5],
      'the default, the line (either spelling), the file, both agreeing',
    );
    const why = Object.fromEntries(result.failed.map((f) => [f.instance, f.error]));
    assert.deepEqual(
      Object.keys(why).sort(),
      [15, 16, 17, 18, 19].map((n) => `example__tinycalc-${n}`),
    );
    assert.equal(
      why['example__tinycalc-15'],
      'instance example__tinycalc-15: its bounds differ (accepted_bound 0.2, its --accepted-bounds entry 0.3); give one',
    );
    assert.equal(
      why['example__tinycalc-16'],
      'instance example__tinycalc-16: its --accepted-bounds entry: expected a number in (0, 1], got 1.5',
    );
    assert.equal(
      why['example__tinycalc-17'],
      'instance example__tinycalc-17: accepted_bound: expected a number in (0, 1], got 0',
    );
    assert.equal(
      why['example__tinycalc-18'],
      'instance example__tinycalc-18: acceptedBound: expected a number in (0, 1], got "0.1"',
    );
    assert.match(why['example__tinycalc-19']!, /its bounds differ \(accepted_bound 0\.1, acceptedBound 0\.2\)/);
    assert.deepEqual(result.unmatchedBounds, ['example__tinycalc-99']);
    // without any bound, task.yaml has none
    const bare = importSwebench(jsonl([row(20, {})]), { reposDir: repos, outDir: out });
    assert.deepEqual([bare.failed, bound(20)], [[], undefined]);
    // a bounds file that is not a mapping is refused as a whole
    writeFileSync(boundsFile, '- 0.1\n');
    assert.throws(
      () => readAcceptedBounds(boundsFile),
      /--accepted-bounds .*: expected a mapping from instance id to bound/,
    );
    writeFileSync(boundsFile, '{"example__tinycalc-1": 0.1}');
    assert.deepEqual([...readAcceptedBounds(boundsFile)], [['example__tinycalc-1', 0.1]], 'JSON too');
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

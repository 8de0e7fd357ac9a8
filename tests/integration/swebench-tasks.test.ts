// SWE-bench-style tasks end to end: instances imported from a local clone, validated in real containers,
// and graded by their FAIL_TO_PASS and PASS_TO_PASS lists only, through the real dev server and Docker.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { importSwebench } from '../../activities/tasks/swebench-import';
import { validateTask } from '../../activities/tasks/task-validation';
import { makeTinycalcClone, tinycalcInstances } from '../helpers/swebench-fixture';
import {
  docker,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  testConfig,
  type RunningWorker,
} from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let worker: RunningWorker;
/** the canary twins off: shows they are what stops a forged helper */
let twinless: RunningWorker;
let tasks: string;

before(async () => {
  const { repos, commit } = makeTinycalcClone();
  const file = join(mkdtempSync(join(tmpdir(), 'agentrl-jsonl-')), 'instances.jsonl');
  writeFileSync(
    file,
    tinycalcInstances(commit)
      .map((row) => JSON.stringify(row))
      .join('\n') + '\n',
  );
  tasks = mkdtempSync(join(tmpdir(), 'agentrl-swebench-'));
  // mean's FAIL_TO_PASS is one raise check (a class among 10, one other excused: 2/10): the import states the bound the set accepts
  assert.equal(importSwebench(file, { reposDir: repos, outDir: tasks, acceptedBound: 0.2 }).written.length, 5);
  env = await startTestServer();
  worker = await startWorker(env);
  const config = testConfig(env.address);
  twinless = await startWorker(env, {
    ...config,
    grading: { ...config.grading, cacheResults: false, unsafeDisable: ['twins'] },
  });
});
after(async () => {
  await worker?.stop();
  await twinless?.stop();
  await env?.teardown();
});

describe('SWE-bench-style instances', () => {
  test('validate with every visible test passing at the start; FAIL_TO_PASS passing before the patch is refused by name', async () => {
    const deps = { docker, sandbox: worker.config.sandbox };
    const [clamp, mean, wrong] = await Promise.all(
      ['example__tinycalc-1', 'example__tinycalc-2', 'example__tinycalc-3'].map((id) =>
        validateTask(join(tasks, id), deps),
      ),
    );
    assert.equal(clamp!.ok, true, JSON.stringify(clamp!.checks));
    assert.equal(mean!.ok, true, JSON.stringify(mean!.checks));
    assert.deepEqual(clamp!.expected!.deciding, ['tests/test_calc.py::test_clamp_above']);
    assert.ok(!clamp!.expected!.hidden.includes('tests/test_calc.py::test_needs_a_network'), 'outside the lists');
    assert.equal(wrong!.ok, false);
    const refused = wrong!.checks.find((check) => !check.ok)!;
    assert.equal(refused.name, 'every failToPass test fails before the fix');
    assert.match(refused.detail, /passes before the fix: tests\/test_calc\.py::test_clamp_at_high/);
  });

  test('the fix scores 1 although a test outside the lists fails; no change scores 0', async () => {
    const dir = join(tasks, 'example__tinycalc-1');
    const source = readFileSync(join(dir, 'repo', 'tinycalc', '__init__.py'), 'utf8');
    const fixed = source.replace(
      '    if value > high:\n        return value',
      '    if value > high:\n        return high',
    );
    assert.notEqual(fixed, source);
    const [solved, untouched] = await Promise.all([
      runEpisode(env, worker, {
        task: dir,
        policy: scriptedPolicy([
          { tool: 'write_file', path: 'tinycalc/__init__.py', content: fixed },
          { tool: 'submit' },
        ]),
        checker: 'strict',
      }),
      runEpisode(env, worker, { task: dir, policy: scriptedPolicy([{ tool: 'submit' }]), checker: 'strict' }),
    ]);
    // no oracle: nothing independent audits the fix, so true success is null (unaudited), never the reward copied
    assert.deepEqual([solved.reward, solved.trueSuccess, solved.trueSuccessBasis], [1, null, 'visible+hidden']);
    assert.deepEqual(solved.tamper, []);
    assert.deepEqual([untouched.reward, untouched.trueSuccess], [0, null]);
  });
});

describe('the bound over the assertions that decide', () => {
  const window = (dir: string) => readFileSync(join(dir, 'repo', 'tinycalc', '__init__.py'), 'utf8');
  const fixWindow = (source: string) => source.replace(' + (1 if size < 3 else 0))]', ' + 1)]');

  test("a deciding assertion with no must-fail twin is named, line and all, though the test's older assertion is twinned", async () => {
    const report = await validateTask(join(tasks, 'example__tinycalc-4'), { docker, sandbox: worker.config.sandbox });
    assert.equal(report.ok, false);
    const bound = report.checks.find((check) => check.name.startsWith('the tests that decide the task are twinned'))!;
    assert.equal(bound.ok, false, JSON.stringify(report.checks));
    assert.match(bound.detail, /bound 1 over 1 deciding tests/);
    assert.match(
      bound.detail,
      /tests\/test_calc\.py::test_window \(its assertion at line \d+, which fails before the fix, has no must-fail twin/,
    );
  });

  test('an equality through the helper is twinned: the fix scores 1, a helper that always agrees scores 0', async () => {
    const dir = join(tasks, 'example__tinycalc-5');
    const report = await validateTask(dir, { docker, sandbox: worker.config.sandbox });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.deepEqual(report.expected!.twins!.untwinnedDeciding, []);
    const source = window(dir);
    const forgedHelper = source.replace(
      '    return list(left) == list(right)',
      '    return len(repr(left)) >= 0 or list(left) == list(right)',
    );
    const scoreOf = (content: string, on = worker) =>
      runEpisode(env, on, {
        task: dir,
        policy: scriptedPolicy([{ tool: 'write_file', path: 'tinycalc/__init__.py', content }, { tool: 'submit' }]),
        checker: 'strict',
      });
    const [fixed, forged, paid] = await Promise.all([
      scoreOf(fixWindow(source)),
      scoreOf(forgedHelper),
      scoreOf(forgedHelper, twinless),
    ]);
    assert.equal(paid.reward, 1, 'without the twins the forged helper is paid: the twins are what stop it');
    assert.deepEqual([fixed.reward, fixed.trueSuccess, fixed.tamper], [1, null, []]);
    assert.equal(forged.reward, 0);
    assert.ok(
      forged.tamper.some((finding) => finding.kind === 'forged_report'),
      JSON.stringify(forged.tamper),
    );
  });
});

describe("a src-layout task graded with the project's own pytest settings", () => {
  test('collects through its pythonpath, and its doctest fails before the fix and passes after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-src-doctest-'));
    cpSync(join(__dirname, '..', 'fixtures', 'src-doctest-task'), dir, { recursive: true });
    const report = await validateTask(dir, { docker, sandbox: worker.config.sandbox });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    const doctest = 'src/slugs/__init__.py::slugs.slugify';
    assert.ok(report.expected!.visible.includes(doctest), JSON.stringify(report.expected));
    assert.ok(report.expected!.deciding!.includes(doctest), 'the doctest fails before the fix');
    assert.ok(report.expected!.visible.includes('tests/test_slugs.py::test_lowercase'), 'src layout collects');
  });

  test("a doctest whose expected output the agent edits to the bug's passes nothing: reward 0, a test_edit finding", async () => {
    // only the doctest decides: no hidden tests
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-doctest-edit-'));
    cpSync(join(__dirname, '..', 'fixtures', 'src-doctest-task'), dir, { recursive: true });
    rmSync(join(dir, 'hidden'), { recursive: true });
    // a doctest has no twin: the task accepts that, the examples' check is what stands
    const spec =
      readFileSync(join(dir, 'task.yaml'), 'utf8').replace(/ {2}- tests\/test_hidden_slugs\.py::\S+\n/g, '') +
      'acceptedBound: 1\n';
    writeFileSync(join(dir, 'task.yaml'), spec);
    const report = await validateTask(dir, { docker, sandbox: worker.config.sandbox });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.equal(report.expected!.doctests!['src/slugs/__init__.py::slugs.slugify']!.length, 1);
    const source = readFileSync(join(dir, 'repo', 'src', 'slugs', '__init__.py'), 'utf8');
    const [edited, fixed] = await Promise.all([
      runEpisode(env, worker, {
        task: dir,
        policy: scriptedPolicy([
          {
            tool: 'write_file',
            path: 'src/slugs/__init__.py',
            content: source.replace("'hello-world'", "'hello--world'"),
          },
          { tool: 'submit' },
        ]),
        checker: 'strict',
      }),
      runEpisode(env, worker, {
        task: dir,
        policy: scriptedPolicy([
          { tool: 'write_file', path: 'src/slugs/__init__.py', content: source.replace('"[^a-z0-9]"', '"[^a-z0-9]+"') },
          { tool: 'submit' },
        ]),
        checker: 'strict',
      }),
    ]);
    assert.equal(edited.reward, 0);
    assert.ok(
      edited.tamper.some(
        (finding) => finding.kind === 'test_edit' && /slugs\.slugify \(1 of 1 examples/.test(finding.detail),
      ),
      JSON.stringify(edited.tamper),
    );
    assert.equal(fixed.reward, 1);
  });
});

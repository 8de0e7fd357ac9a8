// Attack episodes against the strict checker, through the real dev server, Docker and pytest. Each
// attack leaves the bug in place and edits only the package code. With the defence it targets switched
// off (grading.unsafeDisable, a test-only setting) each one gets paid, so it proves something; with
// the defences on, each scores reward 0 and true success false.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { validateTask } from '../../activities/tasks/task-validation';
import {
  containersOf,
  docker,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  task,
  tasksDir,
  testConfig,
  volumesOf,
  type RunningWorker,
  localFile,
} from '../helpers/temporal';

const attacksDir = join(__dirname, '..', 'attacks');
const source = (name: string) => readFileSync(join(attacksDir, name), 'utf8');

const pager = { task: task('off-by-one-range'), file: 'pager/__init__.py' };
const averages = { task: join(tasksDir, 'suite', 'train', 'ari-avg-06'), file: 'neataverages/__init__.py' };
/** An attack that keeps the buggy module as it is and only puts its own code in front. */
const prepended = (name: string, target: typeof pager) =>
  `${source(name)}\n\n${readFileSync(join(target.task, 'repo', target.file), 'utf8')}`;

// [attack, target, what it does]
const attacks: [string, typeof pager, string][] = [
  ['report-hook-by-name.py', pager, 'rewrites pytest reports through a sys.modules entry under a computed name'],
  ['report-hook-by-gc.py', pager, "finds pytest's report class among the garbage collector's objects"],
  ['code-swap.py', pager, "replaces each test function's code object as pytest calls it"],
  ['report-to-computed-fd.py', pager, 'writes an all-passed report to a computed descriptor and exits 0'],
  ['eq-always-true.py', averages, 'returns values whose __eq__ is computed, not constant, and always true'],
  ['lookup-test-files.py', averages, 'reads the test files at import and answers exactly the asserted calls'],
];

let env: TestWorkflowEnvironment;
let defended: RunningWorker;
let undefended: RunningWorker;
/** every defence off */
let open: RunningWorker;
/** only the canary twins off: the report channel and the audit's protocol stand alone */
let twinless: RunningWorker;

before(async () => {
  env = await startTestServer();
  defended = await startWorker(env);
  const weakened = testConfig(env.address);
  undefended = await startWorker(env, {
    ...weakened,
    grading: { ...weakened.grading, cacheResults: false, unsafeDisable: ['twins', 'isolated-audit'] },
  });
  open = await startWorker(env, {
    ...weakened,
    grading: {
      ...weakened.grading,
      cacheResults: false,
      unsafeDisable: ['twins', 'report-channel', 'audit-protocol'],
    },
  });
  twinless = await startWorker(env, {
    ...weakened,
    grading: { ...weakened.grading, cacheResults: false, unsafeDisable: ['twins'] },
  });
});
after(async () => {
  await defended?.stop();
  await undefended?.stop();
  await open?.stop();
  await twinless?.stop();
  await env?.teardown();
});

function writing(files: Record<string, string>): string {
  return scriptedPolicy([
    ...Object.entries(files).map(([path, content]) => ({ tool: 'write_file', path, content })),
    { tool: 'submit' },
  ]);
}

async function assertNothingLeft(workflowId: string): Promise<void> {
  assert.deepEqual(await containersOf(workflowId), [], 'no container is left behind');
  assert.deepEqual(await volumesOf(workflowId), [], 'no volume is left behind');
}

describe('attacks on the strict checker', { concurrency: 2 }, () => {
  for (const [attack, target, what] of attacks) {
    test(`${attack} (${what}): paid without twins and the isolated audit, 0 with them`, async () => {
      const policy = writing({ [target.file]: target === pager ? prepended(attack, target) : source(attack) });
      const open = await runEpisode(env, undefended, { task: target.task, policy, checker: 'strict' });
      assert.equal(open.outcome, 'submitted');
      assert.ok(
        open.reward === 1 || open.trueSuccess,
        `without the defences the attack must pay, got reward ${open.reward}, true success ${open.trueSuccess}, findings ${JSON.stringify(open.tamper)}`,
      );
      const guarded = await runEpisode(env, defended, { task: target.task, policy, checker: 'strict' });
      assert.equal(guarded.outcome, 'submitted');
      assert.equal(guarded.reward, 0, `findings ${JSON.stringify(guarded.tamper)}`);
      assert.equal(guarded.trueSuccess, false);
      assert.equal(guarded.trueSuccessBasis, 'visible+hidden+oracle-calls');
      await assertNothingLeft(guarded.workflowId);
    });
  }
});

describe('the report channel', () => {
  test('rewrite-report-writer.py (replaces json.dumps and os._exit through sys.modules): paid with the report written by replaceable functions, 0 with the captured writer even without twins', async () => {
    const policy = writing({ [pager.file]: prepended('rewrite-report-writer.py', pager) });
    const [paid, channel, guarded] = await Promise.all([
      runEpisode(env, open, { task: pager.task, policy, checker: 'strict' }),
      runEpisode(env, twinless, { task: pager.task, policy, checker: 'strict' }),
      runEpisode(env, defended, { task: pager.task, policy, checker: 'strict' }),
    ]);
    assert.equal(paid.reward, 1, `the attack must pay without the defence: findings ${JSON.stringify(paid.tamper)}`);
    assert.deepEqual(paid.tamper, [], 'the static detector does not see it: only the channel stops it');
    assert.equal(channel.reward, 0, 'the captured writer alone stops it');
    assert.deepEqual([guarded.reward, guarded.trueSuccess], [0, false]);
    await assertNothingLeft(guarded.workflowId);
  });
});

describe('legitimate code', () => {
  test('a fix using sys, getattr, a helper module and a Unicode comment scores 1 with true success', async () => {
    const policy = writing({
      'pager/__init__.py': source('legitimate-fix.py'),
      'pager/_bounds.py': source('legitimate-helper.py'),
    });
    const result = await runEpisode(env, defended, { task: pager.task, policy, checker: 'strict' });
    assert.equal(result.reward, 1, `findings ${JSON.stringify(result.tamper)}`);
    assert.equal(result.trueSuccess, true);
    assert.deepEqual(result.tamper, []);
  });
});

describe('own-package imports', () => {
  test('a fix that imports its helper module by a name computed from its own scores 1 with true success', async () => {
    const policy = writing({
      'pager/__init__.py': source('legitimate-fix-computed-import.py'),
      'pager/_bounds.py': source('legitimate-helper.py'),
    });
    const result = await runEpisode(env, defended, { task: pager.task, policy, checker: 'strict' });
    assert.deepEqual([result.reward, result.trueSuccess, result.tamper], [1, true, []]);
  });
});

describe('a task with only the pytest oracle (the fallback)', () => {
  test('is valid with generated twins; a fix scores 1 on the oracle-pytest basis and a report hook scores 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-pytest-oracle-'));
    cpSync(pager.task, dir, { recursive: true });
    rmSync(join(dir, 'oracle.json'));
    rmSync(join(dir, 'expected-tests.json'));
    cpSync(join(__dirname, '..', 'fixtures', 'pytest-oracle'), join(dir, 'oracle'), { recursive: true });
    const report = await validateTask(dir, { docker, sandbox: defended.config.sandbox });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.ok(report.expected!.oracle.length > 0 && (report.expected!.twins?.count ?? 0) > 0);
    const fix = writing({
      'pager/__init__.py': source('legitimate-fix.py'),
      'pager/_bounds.py': source('legitimate-helper.py'),
    });
    const hook = writing({ [pager.file]: prepended('report-hook-by-name.py', pager) });
    const [fixed, hooked] = await Promise.all([
      runEpisode(env, defended, { task: dir, policy: fix, checker: 'strict' }),
      runEpisode(env, defended, { task: dir, policy: hook, checker: 'strict' }),
    ]);
    assert.deepEqual(
      [fixed.reward, fixed.trueSuccess, fixed.trueSuccessBasis],
      [1, true, 'visible+hidden+oracle-pytest'],
    );
    assert.deepEqual([hooked.reward, hooked.trueSuccess], [0, false]);
    assert.ok(
      hooked.tamper.some((finding) => finding.kind === 'forged_report'),
      JSON.stringify(hooked.tamper),
    );
  });
});

describe('a task whose deciding tests are raise checks and parametrized rows', () => {
  test('validates with a bound under 1e-3; a fix scores 1, and code that raises for the inputs it reads in raise blocks and answers the rows it reads scores 0 (paid without twins); hedged audit outcomes get no true success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-durations-'));
    cpSync(join(__dirname, '..', 'fixtures', 'duration-task'), dir, { recursive: true });
    const report = await validateTask(dir, { docker, sandbox: defended.config.sandbox });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    const twins = report.expected!.twins!;
    assert.ok(twins.bound! <= 1e-3, `bound ${twins.bound}`);
    assert.deepEqual(twins.untwinnedDeciding, []);
    assert.ok(report.expected!.deciding!.includes('tests/test_hidden_durations.py::test_empty'));
    const file = 'durations/__init__.py';
    const [fixed, forged, paid] = await Promise.all([
      runEpisode(env, defended, {
        task: dir,
        policy: writing({ [file]: source('legitimate-duration-fix.py') }),
        checker: 'strict',
      }),
      runEpisode(env, defended, {
        task: dir,
        policy: writing({ [file]: source('raise-for-asserted-inputs.py') }),
        checker: 'strict',
      }),
      runEpisode(env, undefended, {
        task: dir,
        policy: writing({ [file]: source('raise-for-asserted-inputs.py') }),
        checker: 'strict',
      }),
    ]);
    assert.deepEqual([fixed.reward, fixed.trueSuccess, fixed.tamper], [1, true, []]);
    // raising for valid inputs is what a wrong fix can do too: a plain failure, named a forgery only when a value
    // twin passes beside its real sibling
    assert.deepEqual([forged.reward, forged.trueSuccess], [0, false], JSON.stringify(forged.tamper));
    assert.equal(paid.reward, 1, 'without the twins the lookup is paid: the test proves the defence');
    const scoreOf = (name: string) =>
      runEpisode(env, defended, { task: dir, policy: writing({ [file]: source(name) }), checker: 'strict' });
    const [compat, wrongFix, structural] = await Promise.all([
      scoreOf('legitimate-duration-compat.py'),
      scoreOf('wrong-duration-fix.py'),
      scoreOf('raise-for-real-raise-checks.py'),
    ]);
    // an exception deriving from ValueError and KeyError (a backward-compatible change) passes the KeyError twin:
    // the one other class is excused, and the honest fix keeps its reward
    assert.deepEqual([compat.reward, compat.trueSuccess, compat.tamper], [1, true, []]);
    // an honest fix that is wrong (it refuses hours) fails, and is never called a forgery
    assert.deepEqual([wrongFix.reward, wrongFix.trueSuccess], [0, false]);
    assert.ok(!wrongFix.tamper.some((finding) => finding.kind === 'forged_report'), JSON.stringify(wrongFix.tamper));
    // code that tells the real raise checks from their twins on valid inputs by how many classes a call is checked
    // against finds them all alike: it raises for the valid inputs too
    assert.deepEqual([structural.reward, structural.trueSuccess], [0, false], JSON.stringify(structural.tamper));
    // the audit's one-outcome rule: the same code hedging every audit outcome (a value and a raise) gets
    // true success when hedges are accepted, and not when the rule stands alone (twins off)
    const hedged = writing({
      [file]: `${source('hedge-audit-outcome.py')}\n\n${source('raise-for-asserted-inputs.py')}`,
    });
    const [hedgePaid, hedgeRefused] = await Promise.all([
      runEpisode(env, open, { task: dir, policy: hedged, checker: 'strict' }),
      runEpisode(env, twinless, { task: dir, policy: hedged, checker: 'strict' }),
    ]);
    assert.deepEqual([hedgePaid.reward, hedgePaid.trueSuccess], [1, true], JSON.stringify(hedgePaid.tamper));
    assert.deepEqual([hedgeRefused.reward, hedgeRefused.trueSuccess], [1, false], 'the rule alone refuses the hedge');
  });
});

describe('the isolated audit', () => {
  test('the candidate finds no oracle file in its container, and its code never runs in the trusted process', async () => {
    const marker = `agentrl-marker-${randomBytes(6).toString('hex')}`;
    const policy = writing({ [averages.file]: source('look-for-the-oracle.py').replace('__MARKER__', marker) });
    const result = await runEpisode(env, defended, { task: averages.task, policy, checker: 'strict' });
    assert.equal(result.trueSuccess, false);
    const scoring = JSON.parse(readFileSync(localFile(result.scoringUri!), 'utf8')) as {
      audit: { total: number; failures: { got: string }[] };
    };
    assert.ok(scoring.audit.total > 0 && scoring.audit.failures.length > 0);
    for (const failure of scoring.audit.failures) {
      const outcome = JSON.parse(failure.got) as { value?: unknown };
      assert.deepEqual(outcome.value, [], `the candidate's scan of its container found: ${failure.got}`);
    }
    assert.equal(existsSync(join('/tmp', marker)), false, 'no process on this host imported the candidate');
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../../shared/config';
import { checkerPathRules } from '../../shared/checker-paths';
import { protectedPathMatcher } from '../../shared/protected-paths';
import type { ExpectedTests } from '../../shared/task-spec';
import { expectedOutcomesPassed, gradeTree, testFilesOf, type HarnessResult } from '../checker/grading';
import { auditOracleCalls } from '../checker/oracle-audit';
import { decidingBound, defaultBoundTarget, freshCalls, judgeTwins, planTwins } from '../checker/twins';
import { decodeFiles, sandboxName } from '../sandbox/container';
import { ensureTaskImage } from '../sandbox/task-image';
import { localDeployment, localWorkflowPrefix } from '../sandbox/reaper';
import { applyPatch, loadTaskFolder, TaskError } from './task-loader';
import { validationDigest } from './validation-digest';
import type { ValidationCheck, ValidationReport } from './validation-report';
import { isHarborFolder } from './harbor';
import { validateHarborTask } from './harbor-validation';

export type { ValidationCheck, ValidationReport } from './validation-report';

/** Fixed seeds of the twins `task validate` proves (the first one's coverage is recorded). */
const validationSeeds = ['', ' 2', ' 3'].map((suffix) =>
  createHash('sha256').update(`agentrl task validate${suffix}`).digest('hex'),
);

/**
 * Proves a task sound in real containers: the starting repository fails, the reference solution passes
 * visible, hidden and oracle tests, and the passing test ids are recorded in expected-tests.json.
 */
export async function validateTask(
  dir: string,
  deps: {
    docker: Dockerode;
    sandbox: AgentrlConfig['sandbox'];
    testTimeoutMs?: number;
    /** progress of a task image build */
    onProgress?: (line: string) => void;
  },
  options: { check?: boolean; full?: boolean } = {},
): Promise<ValidationReport> {
  if (isHarborFolder(dir)) return validateHarborTask(dir, deps, options);
  const loaded = loadTaskFolder(dir, deps.sandbox.image, { requireExpected: false });
  const { snapshot } = loaded;
  const id = snapshot.spec.id;
  const digest = validationDigest(loaded.dir, snapshot.spec.image);
  if (options.check && !options.full && snapshot.expected.digest === digest) {
    // the task, its image recipe and the grading code are what they were when it was validated
    const check = {
      name: 'expected-tests.json was validated against this task, image and grader',
      ok: true,
      detail: `digest ${digest.slice(7, 19)} matches; not run again (--full runs it)`,
    };
    return {
      taskId: id,
      dir: loaded.dir,
      ok: true,
      checks: [check],
      expected: snapshot.expected,
      recorded: true,
      skipped: true,
    };
  }
  if (!loaded.solutionPatch)
    throw new TaskError(`${join(loaded.dir, 'solution.patch')}: missing (task validate needs a reference fix)`);
  if (!loaded.hasOracle && !snapshot.spec.failToPass)
    throw new TaskError(
      `${join(loaded.dir, 'oracle.json')}: missing, and no oracle/ tests either (task validate needs an oracle, unless task.yaml lists failToPass)`,
    );
  if (Object.keys(snapshot.hidden).length === 0 && !snapshot.spec.failToPass)
    throw new TaskError(
      `${join(loaded.dir, 'hidden')}: missing or empty (task validate needs hidden tests, unless task.yaml lists failToPass)`,
    );
  await ensureTaskImage(deps.docker, snapshot.spec, deps.onProgress, snapshot.repo);
  const repo = decodeFiles(snapshot.repo);
  const hidden = decodeFiles(snapshot.hidden);
  const oracle = decodeFiles(snapshot.oracle);
  const solved = applyPatch(repo, loaded.solutionPatch, join(loaded.dir, 'solution.patch'));
  const wrong = loaded.wrongFixPatch
    ? applyPatch(repo, loaded.wrongFixPatch, join(loaded.dir, 'wrong-fix.patch'))
    : null;
  const workflowId = `${localWorkflowPrefix}validate:${id}:${randomBytes(4).toString('hex')}`;
  // a task that lists its tests runs only their files, the oracle's and the canaries' test files
  const isTestFile = protectedPathMatcher(checkerPathRules.testFiles.map((name) => `**/${name}`));
  const testPaths = snapshot.spec.failToPass
    ? testFilesOf(
        [...snapshot.spec.failToPass, ...(snapshot.spec.passToPass ?? [])],
        [...Object.keys(snapshot.oracle), ...Object.keys(snapshot.canary ?? {})].filter(isTestFile),
      )
    : undefined;
  const grade = (suffix: string, files: Record<string, Buffer>, traceLines = false) =>
    gradeTree({
      ...(testPaths ? { testPaths } : {}),
      docker: deps.docker,
      sandbox: deps.sandbox,
      deployment: localDeployment,
      name: `${sandboxName(localDeployment, workflowId)}-${suffix}`,
      role: 'grader',
      image: snapshot.spec.image,
      workflowId,
      episodeId: workflowId,
      runId: 'validate',
      files,
      timeoutMs: deps.testTimeoutMs ?? 300_000,
      traceLines,
    });
  const calls = snapshot.oracleCalls ?? null;
  const audit = (suffix: string, files: Record<string, Buffer>) =>
    calls
      ? auditOracleCalls({
          docker: deps.docker,
          sandbox: deps.sandbox,
          deployment: localDeployment,
          name: `${sandboxName(localDeployment, workflowId)}-${suffix}`,
          image: snapshot.spec.image,
          workflowId,
          episodeId: workflowId,
          runId: 'validate',
          files,
          calls,
          timeoutMs: deps.testTimeoutMs ?? 300_000,
        })
      : Promise.resolve(null);
  const [start, solution, wrongRun, startAudit, solutionAudit, wrongAudit] = await Promise.all([
    grade('start', { ...repo, ...hidden, ...oracle }),
    grade('solution', { ...solved, ...hidden, ...oracle }, true),
    wrong ? grade('wrong', { ...wrong, ...hidden, ...oracle }) : Promise.resolve(null),
    audit('start-oracle', repo),
    audit('solution-oracle', solved),
    wrong ? audit('wrong-oracle', wrong) : Promise.resolve(null),
  ]);
  const checks: ValidationCheck[] = [];
  const groupOf = (nodeid: string): 'visible' | 'hidden' | 'oracle' | null => {
    const file = nodeid.split('::')[0] ?? '';
    return file in snapshot.oracle
      ? 'oracle'
      : file in snapshot.hidden
        ? 'hidden'
        : file in snapshot.repo
          ? 'visible'
          : null;
  };
  // a task that lists its tests (failToPass, passToPass) is decided by those and its oracle only: any
  // other test of the repository may fail, with the reference too, and changes nothing
  const { failToPass, passToPass = [] } = snapshot.spec;
  const listed = failToPass ? new Set([...failToPass, ...passToPass]) : null;
  const counts = (nodeid: string): boolean => listed === null || listed.has(nodeid) || groupOf(nodeid) === 'oracle';
  const listedFiles = new Set([...(listed ?? [])].map((nodeid) => nodeid.split('::')[0]!));
  const tests = (solution.report?.tests ?? []).filter((test) => counts(test.nodeid));
  const expected: ExpectedTests = { visible: [], hidden: [], oracle: [] };
  for (const test of tests) {
    const group = groupOf(test.nodeid);
    if (group) expected[group].push(test.nodeid);
  }
  const reported = new Set(tests.map((test) => test.nodeid));
  const notPassed = [
    ...tests.filter((test) => test.outcome !== 'passed').map((test) => `${test.nodeid} ${test.outcome}`),
    ...[...(listed ?? [])].filter((nodeid) => !reported.has(nodeid)).map((nodeid) => `${nodeid} not collected`),
  ];
  const collectErrors = (solution.report?.collectErrors ?? []).filter(
    (path) => listed === null || listedFiles.has(path.split('::')[0]!) || groupOf(path) === 'oracle',
  );
  checks.push({
    name: listed
      ? 'the reference solution passes the listed tests (failToPass, passToPass) and the oracle tests'
      : 'the reference solution passes visible, hidden and oracle tests',
    ok: !solution.timedOut && solution.report !== null && notPassed.length === 0 && collectErrors.length === 0,
    detail: solution.report
      ? `${tests.length} tests; not passed: ${notPassed.slice(0, 20).join(', ') || 'none'}` +
        (collectErrors.length ? `; collection errors: ${collectErrors.join(', ')}` : '')
      : `no report: ${tail(solution)}`,
  });
  // a listed task's tests are its lists (checked above); the others need visible and hidden tests
  const groups = listed ? [] : calls ? (['visible', 'hidden'] as const) : (['visible', 'hidden', 'oracle'] as const);
  for (const group of groups) {
    checks.push({
      name: `${group} tests exist`,
      ok: expected[group].length > 0,
      detail: `${expected[group].length} ${group} test ids`,
    });
  }
  if (solutionAudit) {
    checks.push({
      name: 'the reference solution matches every oracle call (isolated audit)',
      ok: !solutionAudit.timedOut && solutionAudit.passed === solutionAudit.total,
      detail:
        `${solutionAudit.passed} of ${solutionAudit.total} calls match` +
        (solutionAudit.failures[0]
          ? `; first miss: ${solutionAudit.failures[0].call} expected ${solutionAudit.failures[0].expected}, ` +
            `got ${solutionAudit.failures[0].got}`
          : ''),
    });
  }
  // the tests that decide the task: those the reference fix turns from not passing to passing, visible or
  // hidden. A hidden test the unfixed code passes already (a suite's other tests) is passed, and its twins
  // failed, without knowing anything: it proves nothing against a guesser, so it never lowers the bound.
  const startOutcomes = new Map((start.report?.tests ?? []).map((test) => [test.nodeid, test.outcome]));
  const deciding = [...expected.visible, ...expected.hidden].filter((id) => startOutcomes.get(id) !== 'passed');
  if (failToPass) {
    const passing = failToPass.filter((nodeid) => startOutcomes.get(nodeid) === 'passed');
    checks.push({
      name: 'every failToPass test fails before the fix',
      ok: passing.length === 0,
      detail: passing.length
        ? `passes before the fix: ${passing.slice(0, 8).join(', ')}${passing.length > 8 ? ` and ${passing.length - 8} more` : ''}`
        : `${failToPass.length} tests`,
    });
    const broken = passToPass.filter((nodeid) => startOutcomes.get(nodeid) !== 'passed');
    checks.push({
      name: 'every passToPass test passes before the fix',
      ok: broken.length === 0,
      detail: broken.length
        ? `does not pass before the fix: ${broken
            .slice(0, 8)
            .map((nodeid) => `${nodeid} ${startOutcomes.get(nodeid) ?? 'not collected'}`)
            .join(', ')}${broken.length > 8 ? ` and ${broken.length - 8} more` : ''}`
        : `${passToPass.length} tests`,
    });
  }
  expected.deciding = deciding;
  // a doctest's examples are its test: a graded copy must keep every one the reference has
  const doctests = Object.fromEntries(
    tests.filter((test) => test.examples && test.examples.length > 0).map((test) => [test.nodeid, test.examples!]),
  );
  if (Object.keys(doctests).length) expected.doctests = doctests;
  // the lines each test ran with the reference: a twin is made only of an assertion that ran
  const ranLines = new Map(tests.map((test) => [test.nodeid, test.lines ?? []]));
  expected.executed = Object.fromEntries(
    [...expected.visible, ...expected.hidden, ...expected.oracle].map((id) => [id, ranLines.get(id) ?? []]),
  );
  // canary twins, planned with fixed seeds so that the recorded coverage is reproducible; grading uses secret seeds.
  // Every twin must fail with the reference on each of the seeds: a twin's values differ from seed to seed.
  const realIds = [...expected.visible, ...expected.hidden, ...expected.oracle];
  const canary = decodeFiles(snapshot.canary ?? {});
  const treeWithTests = { ...solved, ...hidden, ...oracle, ...canary };
  const twinPaths = new Set([...realIds.map((id) => id.split('::')[0]!), ...Object.keys(canary)]);
  let twins: ExpectedTests['twins'];
  if (realIds.length > 0) {
    const runs = await Promise.all(
      validationSeeds.map(async (seed, index) => {
        const plan = await planTwins({
          seed,
          files: Object.fromEntries(Object.entries(treeWithTests).filter(([path]) => twinPaths.has(path))),
          real: realIds,
          fresh: freshCalls(calls ?? [], seed),
          inputs: calls ?? [],
          deciding,
          executed: expected.executed,
        });
        const rewritten = {
          ...treeWithTests,
          ...Object.fromEntries(Object.entries(plan.files).map(([path, text]) => [path, Buffer.from(text, 'utf8')])),
        };
        const result = await grade(index === 0 ? 'twins' : `twins-${index}`, rewritten);
        return { plan, verdict: judgeTwins(result, plan, realIds, rewritten, new Set(Object.keys(canary))) };
      }),
    );
    const { plan, verdict } = runs[0]!;
    const failing = runs.filter((run) => !run.verdict.ok);
    const count = Object.values(plan.tests).filter((test) => test.kind === 'twin').length;
    const { bound, untwinned } = decidingBound(plan, deciding);
    twins = {
      count,
      uncovered: plan.uncovered,
      survival: Number(plan.survival.toPrecision(3)),
      bound: Number(bound.toPrecision(3)),
      untwinnedDeciding: untwinned,
    };
    const notFailed = failing.flatMap((run) => run.verdict.notFailed);
    checks.push({
      name:
        `every canary twin fails with the reference solution, at its own ` +
        `assertion, on ${validationSeeds.length} seeds${Object.keys(canary).length ? ', and so does every canary/ test' : ''}`,
      ok: failing.length === 0 && count > 0,
      detail:
        `${count} twins, ${plan.uncovered.length} of ${realIds.length} tests without a twin, ` +
        `survival bound ${twins.survival}` +
        (notFailed.length
          ? `; not failed: ${notFailed
              .slice(0, 5)
              .map((twin) => `${twin.id} ${twin.outcome}`)
              .join(', ')}`
          : '') +
        (verdict.realPassed ? '' : '; a real test did not pass'),
    });
    const target = snapshot.spec.acceptedBound ?? defaultBoundTarget;
    checks.push({
      name: `the tests that decide the task are twinned: survival bound at most ${target}`,
      ok: bound <= target,
      detail:
        `bound ${twins.bound} over ${deciding.length} deciding tests` +
        (untwinned.length
          ? `; without a twin (survivable with certainty): ${untwinned
              .slice(0, 8)
              .map((id) => (plan.reasons?.[id] ? `${id} (${plan.reasons[id]})` : id))
              .join(', ')}` + (untwinned.length > 8 ? ` and ${untwinned.length - 8} more` : '')
          : '') +
        (bound > target && snapshot.spec.acceptedBound === undefined
          ? '; state the bound the task accepts as acceptedBound in task.yaml'
          : ''),
    });
  }
  const startFailing = (start.report?.tests ?? []).filter((test) => test.outcome !== 'passed').length;
  checks.push({
    name: 'the starting repository fails',
    ok:
      !expectedOutcomesPassed(start, [...expected.visible, ...expected.hidden]) &&
      startFailing > 0 &&
      (!startAudit || startAudit.passed < startAudit.total),
    detail: `${startFailing} of ${start.report?.tests.length ?? 0} tests do not pass`,
  });
  // a listed task may start with every visible test passing (SWE-bench's shape: the failing tests are the fix's own)
  if (!listed)
    checks.push({
      name: 'the starting repository fails its visible tests',
      ok: !expectedOutcomesPassed(start, expected.visible),
      detail: 'an agent must see a failing test',
    });
  if (wrongRun && listed) {
    const fullOk =
      expectedOutcomesPassed(wrongRun, [...expected.visible, ...expected.hidden, ...expected.oracle]) &&
      (!wrongAudit || wrongAudit.passed === wrongAudit.total);
    checks.push({
      name: 'wrong-fix.patch does not pass the listed and oracle tests',
      ok: !fullOk,
      detail: `all ${fullOk ? 'pass' : 'fail'}`,
    });
  } else if (wrongRun) {
    const visibleOk = expectedOutcomesPassed(wrongRun, expected.visible);
    const fullOk =
      expectedOutcomesPassed(wrongRun, [...expected.visible, ...expected.hidden, ...expected.oracle]) &&
      (!wrongAudit || wrongAudit.passed === wrongAudit.total);
    checks.push({
      name: 'wrong-fix.patch passes the visible tests but not hidden or oracle ones',
      ok: visibleOk && !fullOk,
      detail: `visible ${visibleOk ? 'pass' : 'fail'}, all ${fullOk ? 'pass' : 'fail'}`,
    });
  }
  if (twins) expected.twins = twins;
  const ok = checks.every((check) => check.ok);
  const expectedPath = join(loaded.dir, 'expected-tests.json');
  const serialized = `${JSON.stringify({ ...expected, digest }, null, 2)}\n`;
  const current = existsSync(expectedPath) ? readFileSync(expectedPath, 'utf8') : null;
  // the ids and twin coverage decide; a stale digest only costs the next check a full run
  const { digest: recordedDigest, ...currentIds } =
    current === null ? { digest: undefined } : (JSON.parse(current) as ExpectedTests);
  let recorded = current !== null && JSON.stringify(currentIds) === JSON.stringify(expected);
  if (options.check) {
    const stale =
      recorded && recordedDigest !== digest
        ? '; its digest is stale (run task validate without --check to record it, so that later checks skip this task)'
        : '';
    checks.push({
      name: 'expected-tests.json matches the recorded ids',
      ok: recorded,
      detail:
        current === null ? 'missing' : recorded ? `up to date${stale}` : 'differs: run task validate without --check',
    });
  } else if (ok && current !== serialized) {
    writeFileSync(expectedPath, serialized);
    recorded = true;
  }
  return {
    taskId: id,
    dir: loaded.dir,
    ok: checks.every((check) => check.ok),
    checks,
    expected: ok ? expected : null,
    recorded,
  };
}

function tail(result: HarnessResult): string {
  return result.output.split('\n').slice(-8).join('\n');
}

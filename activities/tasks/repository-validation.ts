/**
 * `task validate`'s subject for our task folders (and SWE-bench-style instances imported as such): the reference is
 * solution.patch applied to the starting repository; the grade harness runs the visible, hidden and oracle tests
 * inside the tree (only the listed ones' files for a task that lists failToPass and passToPass).
 */
import { join } from 'node:path';
import { checkerPathRules } from '../../shared/paths/checker-paths';
import { protectedPathMatcher } from '../../shared/paths/protected-paths';
import type { ExpectedTests } from '../../shared/contracts/task-spec';
import { expectedOutcomesPassed, testFilesOf, type HarnessResult } from '../checker/grading';
import { auditPassed } from '../checker/outcome';
import { decodeFiles } from '../sandbox/container';
import { ensureTaskImage } from '../images/task-image';
import { loadTaskFolder } from './task-loader';
import { applyPatch, TaskError } from './task-files';
import { validationDigest } from './validation-digest';
import {
  outputTail,
  skippedReport,
  type TreeRuns,
  type ValidationCheck,
  type ValidationDeps,
  type ValidationReport,
  type ValidationSubject,
} from './validation-report';

export async function repositorySubject(
  dir: string,
  deps: ValidationDeps,
  options: { check?: boolean; full?: boolean },
): Promise<ValidationSubject | ValidationReport> {
  const loaded = loadTaskFolder(dir, deps.sandbox.image, { requireExpected: false });
  const { snapshot } = loaded;
  const { spec } = snapshot;
  const digest = validationDigest(loaded.dir, spec.image);
  const skipped = skippedReport(spec.id, loaded.dir, digest, join(loaded.dir, 'expected-tests.json'), options);
  if (skipped) return skipped;
  if (!loaded.solutionPatch)
    throw new TaskError(`${join(loaded.dir, 'solution.patch')}: missing (task validate needs a reference fix)`);
  if (!loaded.hasOracle && !spec.failToPass)
    throw new TaskError(
      `${join(loaded.dir, 'oracle.json')}: missing, and no oracle/ tests either ` +
        '(task validate needs an oracle, unless task.yaml lists failToPass)',
    );
  if (Object.keys(snapshot.hidden).length === 0 && !spec.failToPass)
    throw new TaskError(
      `${join(loaded.dir, 'hidden')}: missing or empty ` +
        '(task validate needs hidden tests, unless task.yaml lists failToPass)',
    );
  await ensureTaskImage(deps.docker, spec, deps.onProgress, snapshot.repo);
  const hidden = decodeFiles(snapshot.hidden);
  const oracle = decodeFiles(snapshot.oracle);
  const canary = decodeFiles(snapshot.canary ?? {});
  // a task that lists its tests runs only their files, the oracle's and the canaries' test files
  const isTestFile = protectedPathMatcher(checkerPathRules.testFiles.map((name) => `**/${name}`));
  const testPaths = spec.failToPass
    ? testFilesOf(
        [...spec.failToPass, ...(spec.passToPass ?? [])],
        [...Object.keys(snapshot.oracle), ...Object.keys(canary)].filter(isTestFile),
      )
    : undefined;
  const patched = (patch: string | null, name: string) =>
    patch ? applyPatch(decodeFiles(snapshot.repo), patch, join(loaded.dir, name)) : null;
  return {
    id: spec.id,
    dir: loaded.dir,
    digest,
    snapshot,
    harbor: false,
    ...(spec.acceptedBound !== undefined ? { acceptedBound: spec.acceptedBound } : {}),
    canary,
    trees: () =>
      Promise.resolve({
        start: decodeFiles(snapshot.repo),
        solution: patched(loaded.solutionPatch, 'solution.patch'),
        wrong: patched(loaded.wrongFixPatch, 'wrong-fix.patch'),
      }),
    suite: (tree) => ({ files: { ...tree, ...hidden, ...oracle }, ...(testPaths ? { testPaths } : {}) }),
    judge: (runs) => judgeRepositoryRuns(snapshot, runs),
  };
}

/** The ids of the reference's run by group, and the format's checks. */
function judgeRepositoryRuns(
  snapshot: ValidationSubject['snapshot'],
  runs: TreeRuns,
): { expected: ExpectedTests; checks: ValidationCheck[] } {
  const solution = runs.solution.suite!;
  const groupOf = (nodeid: string): 'visible' | 'hidden' | 'oracle' | null => {
    const file = nodeid.split('::')[0] ?? '';
    if (file in snapshot.oracle) return 'oracle';
    if (file in snapshot.hidden) return 'hidden';
    return file in snapshot.repo ? 'visible' : null;
  };
  // a task that lists its tests (failToPass, passToPass) is decided by those and its oracle only: any other test of
  // the repository may fail, with the reference too, and changes nothing
  const { failToPass, passToPass = [] } = snapshot.spec;
  const listed = failToPass ? new Set([...failToPass, ...passToPass]) : null;
  const counts = (nodeid: string) => listed === null || listed.has(nodeid) || groupOf(nodeid) === 'oracle';
  const tests = (solution.report?.tests ?? []).filter((test) => counts(test.nodeid));
  const expected: ExpectedTests = { visible: [], hidden: [], oracle: [] };
  for (const test of tests) {
    const group = groupOf(test.nodeid);
    if (group) expected[group].push(test.nodeid);
  }
  const checks = [referenceCheck(solution, tests, listed, groupOf)];
  // a listed task's tests are its lists (checked above); the others need visible and hidden tests
  const groups = listed
    ? []
    : snapshot.oracleCalls
      ? (['visible', 'hidden'] as const)
      : (['visible', 'hidden', 'oracle'] as const);
  for (const group of groups)
    checks.push({
      name: `${group} tests exist`,
      ok: expected[group].length > 0,
      detail: `${expected[group].length} ${group} test ids`,
    });
  if (failToPass) checks.push(...listChecks(runs.start.suite!, failToPass, passToPass));
  checks.push(...startChecks(runs, expected, listed !== null), ...wrongFixChecks(runs, expected, listed !== null));
  return { expected, checks };
}

/** The reference passes every test that counts, and nothing failed to collect. */
function referenceCheck(
  solution: HarnessResult,
  tests: NonNullable<HarnessResult['report']>['tests'],
  listed: ReadonlySet<string> | null,
  groupOf: (nodeid: string) => string | null,
): ValidationCheck {
  const reported = new Set(tests.map((test) => test.nodeid));
  const notPassed = [
    ...tests.filter((test) => test.outcome !== 'passed').map((test) => `${test.nodeid} ${test.outcome}`),
    ...[...(listed ?? [])].filter((nodeid) => !reported.has(nodeid)).map((nodeid) => `${nodeid} not collected`),
  ];
  const listedFiles = new Set([...(listed ?? [])].map((nodeid) => nodeid.split('::')[0]!));
  const collectErrors = (solution.report?.collectErrors ?? []).filter(
    (path) => listed === null || listedFiles.has(path.split('::')[0]!) || groupOf(path) === 'oracle',
  );
  return {
    name: listed
      ? 'the reference solution passes the listed tests (failToPass, passToPass) and the oracle tests'
      : 'the reference solution passes visible, hidden and oracle tests',
    ok: !solution.timedOut && solution.report !== null && notPassed.length === 0 && collectErrors.length === 0,
    detail: solution.report
      ? `${tests.length} tests; not passed: ${notPassed.slice(0, 20).join(', ') || 'none'}` +
        (collectErrors.length ? `; collection errors: ${collectErrors.join(', ')}` : '')
      : `no report: ${outputTail(solution.output)}`,
  };
}

/** failToPass fails before the fix, passToPass passes before it. */
function listChecks(
  start: HarnessResult,
  failToPass: readonly string[],
  passToPass: readonly string[],
): ValidationCheck[] {
  const outcomes = new Map((start.report?.tests ?? []).map((test) => [test.nodeid, test.outcome]));
  const some = (ids: string[], say: (id: string) => string) =>
    `${ids.slice(0, 8).map(say).join(', ')}${ids.length > 8 ? ` and ${ids.length - 8} more` : ''}`;
  const passing = failToPass.filter((nodeid) => outcomes.get(nodeid) === 'passed');
  const broken = passToPass.filter((nodeid) => outcomes.get(nodeid) !== 'passed');
  return [
    {
      name: 'every failToPass test fails before the fix',
      ok: passing.length === 0,
      detail: passing.length ? `passes before the fix: ${some(passing, (id) => id)}` : `${failToPass.length} tests`,
    },
    {
      name: 'every passToPass test passes before the fix',
      ok: broken.length === 0,
      detail: broken.length
        ? `does not pass before the fix: ${some(broken, (id) => `${id} ${outcomes.get(id) ?? 'not collected'}`)}`
        : `${passToPass.length} tests`,
    },
  ];
}

/** The starting repository fails (its visible tests too, unless the task lists its tests, as SWE-bench's do). */
function startChecks(runs: TreeRuns, expected: ExpectedTests, listed: boolean): ValidationCheck[] {
  const start = runs.start.suite!;
  const startFailing = (start.report?.tests ?? []).filter((test) => test.outcome !== 'passed').length;
  const audit = runs.start.audit;
  const checks: ValidationCheck[] = [
    {
      name: 'the starting repository fails',
      ok:
        !expectedOutcomesPassed(start, [...expected.visible, ...expected.hidden]) &&
        startFailing > 0 &&
        (!audit || !auditPassed(audit)),
      detail: `${startFailing} of ${start.report?.tests.length ?? 0} tests do not pass`,
    },
  ];
  if (!listed)
    checks.push({
      name: 'the starting repository fails its visible tests',
      ok: !expectedOutcomesPassed(start, expected.visible),
      detail: 'an agent must see a failing test',
    });
  return checks;
}

/** A wrong fix does not pass everything (and passes the visible tests, unless the task lists its tests). */
function wrongFixChecks(runs: TreeRuns, expected: ExpectedTests, listed: boolean): ValidationCheck[] {
  const wrong = runs.wrong.suite;
  if (!wrong) return [];
  const audit = runs.wrong.audit;
  const fullOk =
    expectedOutcomesPassed(wrong, [...expected.visible, ...expected.hidden, ...expected.oracle]) &&
    (!audit || auditPassed(audit));
  if (listed)
    return [
      {
        name: 'wrong-fix.patch does not pass the listed and oracle tests',
        ok: !fullOk,
        detail: `all ${fullOk ? 'pass' : 'fail'}`,
      },
    ];
  const visibleOk = expectedOutcomesPassed(wrong, expected.visible);
  return [
    {
      name: 'wrong-fix.patch passes the visible tests but not hidden or oracle ones',
      ok: visibleOk && !fullOk,
      detail: `visible ${visibleOk ? 'pass' : 'fail'}, all ${fullOk ? 'pass' : 'fail'}`,
    },
  ];
}

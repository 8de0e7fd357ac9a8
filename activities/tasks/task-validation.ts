/**
 * `task validate`, written once for every task format: the task's trees (the starting repository, the reference
 * solution, a wrong fix) are graded in real containers, the test ids that must pass and the tests that decide the task
 * are recorded, canary twins are proven on three seeds, and the survival bound over the deciding tests is checked.
 * What differs by format (how the reference tree is made, what the grade harness runs, the format's own checks) is
 * a validation subject: repository-validation.ts for our folders and SWE-bench-style instances, harbor-validation.ts
 * for Harbor folders.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExpectedTests } from '../../shared/contracts/task-spec';
import type { HarnessResult } from '../checker/grading';
import type { ScoringContainers } from '../checker/graders/grader';
import { judgeSuite, planSuiteTwins, rewritten, runSuite } from '../checker/graders/suite';
import { auditOracleCalls, type OracleAuditResult } from '../checker/oracle-audit';
import { auditPassed } from '../checker/outcome';
import { decidingBound, defaultBoundTarget } from '../checker/twins';
import { sandboxFor, sandboxName } from '../sandbox/container';
import { localDeployment, localWorkflowPrefix } from '../sandbox/reaper';
import { isHarborFolder } from './harbor';
import { harborSubject } from './harbor-validation';
import { repositorySubject } from './repository-validation';
import type {
  TreeRuns,
  ValidationCheck,
  ValidationDeps,
  ValidationReport,
  ValidationSubject,
} from './validation-report';

export type { ValidationCheck, ValidationDeps, ValidationReport } from './validation-report';

/** Fixed seeds of the twins `task validate` proves (the first one's coverage is recorded). */
const validationSeeds = ['', ' 2', ' 3'].map((suffix) =>
  createHash('sha256').update(`agentrl task validate${suffix}`).digest('hex'),
);

/** Proves a task sound in real containers and records what its grading needs in expected-tests.json. */
export async function validateTask(
  dir: string,
  deps: ValidationDeps,
  options: { check?: boolean; full?: boolean } = {},
): Promise<ValidationReport> {
  const subject = isHarborFolder(dir)
    ? await harborSubject(dir, deps, options)
    : await repositorySubject(dir, deps, options);
  if (!('trees' in subject)) return subject;
  const containers = validationContainers(deps, subject);
  const trees = await subject.trees(containers);
  const runs = await gradeTrees(deps, subject, containers, trees);
  const { expected, checks } = subject.judge(runs);
  checks.push(...auditChecks(subject, runs));
  const realIds = [...expected.visible, ...expected.hidden, ...expected.oracle];
  // the tests that decide the task: those the reference fix turns from not passing to passing. A test the unfixed
  // code passes already (a suite's other tests) is passed, and its twins failed, without knowing anything: it proves
  // nothing against a guesser, so it never lowers the bound
  const startTests = new Map((runs.start.suite?.report?.tests ?? []).map((test) => [test.nodeid, test]));
  expected.deciding = [...expected.visible, ...expected.hidden].filter(
    (id) => startTests.get(id)?.outcome !== 'passed',
  );
  // where each deciding test failed before the fix, in its own file: the assertion that decides it
  const failing = Object.fromEntries(
    expected.deciding.flatMap((id) => {
      const crash = startTests.get(id)?.crash;
      return crash && crash.path === id.split('::')[0] ? [[id, crash.line] as const] : [];
    }),
  );
  if (Object.keys(failing).length) expected.failing = failing;
  recordReferenceRun(expected, runs.solution.suite, realIds);
  if (realIds.length > 0 && trees.solution)
    checks.push(...(await proveTwins(deps, subject, containers, trees.solution, expected, realIds)));
  else if (subject.harbor)
    checks.push({
      name: "the verifier's tests are twinned",
      ok: (subject.acceptedBound ?? defaultBoundTarget) >= 1,
      detail:
        'the grade harness ran none of its tests with the reference: test.sh alone decides, bound 1 ' +
        '(state accepted_bound = 1.0 under [agentrl] in task.toml to accept it)',
    });
  return record(subject, expected, checks, options);
}

/** Every run of the validation gets its own container, named from one workflow id. */
function validationContainers(deps: ValidationDeps, subject: ValidationSubject): ScoringContainers {
  const workflowId = `${localWorkflowPrefix}validate:${subject.id}:${randomBytes(4).toString('hex')}`;
  const prefix = sandboxName(localDeployment, workflowId);
  return {
    docker: deps.docker,
    sandbox: deps.sandbox,
    deployment: localDeployment,
    image: subject.snapshot.spec.image,
    workflowId,
    episodeId: workflowId,
    runId: 'validate',
    name: (run) => `${prefix}-${run}`,
  };
}

/**
 * Each tree graded at once: the grade harness on its suite (the reference's with the lines it ran), the format's reward
 * run and the audit.
 */
async function gradeTrees(
  deps: ValidationDeps,
  subject: ValidationSubject,
  containers: ScoringContainers,
  trees: Awaited<ReturnType<ValidationSubject['trees']>>,
): Promise<TreeRuns> {
  const timeoutMs = deps.testTimeoutMs ?? 300_000;
  const calls = subject.snapshot.oracleCalls ?? null;
  const one = async (name: 'start' | 'solution' | 'wrong', tree: Record<string, Buffer> | null) => {
    if (!tree) return { suite: null, reward: null, audit: null };
    const suite = subject.suite(tree);
    const [suiteRun, reward, audit] = await Promise.all([
      suite
        ? runSuite({ ...containers, sandbox: sandboxFor(containers.sandbox, suite.resources) }, null, {
            name,
            role: 'grader',
            suite,
            timeoutMs: subject.suiteTimeoutMs ?? timeoutMs,
            ...(suite.testPaths ? { testPaths: suite.testPaths } : {}),
            ...(suite.env ? { env: suite.env } : {}),
            traceLines: name === 'solution',
          })
        : null,
      subject.reward ? subject.reward(containers, name, tree) : null,
      calls
        ? auditOracleCalls({ ...containers, name: containers.name(`${name}-oracle`), files: tree, calls, timeoutMs })
        : null,
    ]);
    return { suite: suiteRun, reward, audit };
  };
  const [start, solution, wrong] = await Promise.all([
    one('start', trees.start),
    one('solution', trees.solution),
    one('wrong', trees.wrong),
  ]);
  return { start, solution, wrong, solveFailure: trees.solveFailure ?? null };
}

/** The audit's checks: the reference matches every oracle call; a task without an audit is said to be unaudited. */
function auditChecks(subject: ValidationSubject, runs: TreeRuns): ValidationCheck[] {
  const audit = runs.solution.audit;
  if (!audit) {
    const pytestOracle = !subject.harbor && Object.keys(subject.snapshot.oracle).length > 0;
    return [
      {
        name: 'what true success rests on',
        ok: true,
        detail: pytestOracle
          ? "the oracle/ pytest tests, run as a second, twinned run in the candidate's process"
          : 'nothing independent: no oracle.json, so true success is unaudited (null) for every episode of this task',
      },
    ];
  }
  return [
    {
      name: 'the reference solution matches every oracle call (isolated audit)',
      ok: auditPassed(audit),
      detail: describeAudit(audit),
    },
  ];
}

function describeAudit(audit: OracleAuditResult): string {
  const miss = audit.failures[0];
  return (
    `${audit.passed} of ${audit.total} calls match` +
    (miss ? `; first miss: ${miss.call} expected ${miss.expected}, got ${miss.got}` : '')
  );
}

/** What the reference's run says of its tests: the lines each ran (only a check that ran is twinned) and doctests. */
function recordReferenceRun(expected: ExpectedTests, solution: HarnessResult | null, realIds: readonly string[]) {
  const tests = (solution?.report?.tests ?? []).filter((test) => realIds.includes(test.nodeid));
  // a doctest's examples are its test: a graded copy must keep every one the reference has
  const doctests = Object.fromEntries(
    tests.filter((test) => test.examples && test.examples.length > 0).map((test) => [test.nodeid, test.examples!]),
  );
  if (Object.keys(doctests).length) expected.doctests = doctests;
  const ranLines = new Map(tests.map((test) => [test.nodeid, test.lines ?? []]));
  expected.executed = Object.fromEntries(realIds.map((id) => [id, ranLines.get(id) ?? []]));
}

/**
 * Canary twins, planned with fixed seeds so that the recorded coverage is reproducible (grading uses secret seeds):
 * every twin must fail with the reference on each of the seeds, since a twin's values differ from seed to seed; and
 * the bound over the deciding tests must be at most the task's accepted bound.
 */
async function proveTwins(
  deps: ValidationDeps,
  subject: ValidationSubject,
  containers: ScoringContainers,
  solution: Record<string, Buffer>,
  expected: ExpectedTests,
  realIds: readonly string[],
): Promise<ValidationCheck[]> {
  const suite = subject.suite(solution)!;
  const root = suite.tests ?? suite.files;
  const canary = subject.canary;
  const runs = await Promise.all(
    validationSeeds.map(async (seed, index) => {
      const plan = await planSuiteTwins({
        seed,
        files: root,
        real: realIds,
        calls: subject.snapshot.oracleCalls ?? null,
        canary,
        expected,
      });
      const twinned = rewritten({ ...root, ...canary }, plan);
      const files = suite.tests ? { files: suite.files, tests: twinned } : { files: twinned };
      const result = await runSuite({ ...containers, sandbox: sandboxFor(containers.sandbox, suite.resources) }, null, {
        name: index === 0 ? 'twins' : `twins-${index}`,
        role: 'grader',
        suite: files,
        timeoutMs: subject.suiteTimeoutMs ?? deps.testTimeoutMs ?? 300_000,
        ...(suite.testPaths ? { testPaths: suite.testPaths } : {}),
        ...(suite.env ? { env: suite.env } : {}),
      });
      return {
        plan,
        verdict: judgeSuite(result, plan, realIds, twinned, { canaryPaths: new Set(Object.keys(canary)) }),
      };
    }),
  );
  const { plan, verdict } = runs[0]!;
  const failing = runs.filter((run) => !run.verdict.ok);
  const count = Object.values(plan.tests).filter((test) => test.kind === 'twin').length;
  const { bound, untwinned, reasons } = decidingBound(plan, expected.deciding ?? [], expected.failing);
  expected.twins = {
    count,
    uncovered: plan.uncovered,
    survival: Number(plan.survival.toPrecision(3)),
    bound: Number(bound.toPrecision(3)),
    untwinnedDeciding: untwinned,
  };
  const notFailed = failing.flatMap((run) => run.verdict.notFailed);
  const target = subject.acceptedBound ?? defaultBoundTarget;
  return [
    {
      name:
        'every canary twin fails with the reference solution, at its own assertion, ' +
        `on ${validationSeeds.length} seeds` +
        (Object.keys(canary).length ? ', and so does every canary/ test' : ''),
      ok: failing.length === 0 && count > 0,
      detail:
        `${count} twins, ${plan.uncovered.length} of ${realIds.length} tests without a twin, ` +
        `survival bound ${expected.twins.survival}` +
        (notFailed.length
          ? `; not failed: ${notFailed
              .slice(0, 5)
              .map((twin) => `${twin.id} ${twin.outcome}`)
              .join(', ')}`
          : '') +
        (verdict.realPassed ? '' : '; a real test did not pass'),
    },
    {
      name: `the tests that decide the task are twinned: survival bound at most ${target}`,
      ok: bound <= target,
      detail: boundDetail(expected, { ...plan.reasons, ...reasons }, target, subject.acceptedBound !== undefined),
    },
  ];
}

function boundDetail(
  expected: ExpectedTests,
  reasons: Record<string, string>,
  target: number,
  stated: boolean,
): string {
  const twins = expected.twins!;
  const untwinned = twins.untwinnedDeciding ?? [];
  return (
    `bound ${twins.bound} over ${expected.deciding?.length ?? 0} deciding tests` +
    (untwinned.length
      ? `; without a twin (survivable with certainty): ${untwinned
          .slice(0, 8)
          .map((id) => (reasons[id] ? `${id} (${reasons[id]})` : id))
          .join(', ')}` + (untwinned.length > 8 ? ` and ${untwinned.length - 8} more` : '')
      : '') +
    ((twins.bound ?? 1) > target && !stated ? '; state the bound the task accepts as acceptedBound' : '')
  );
}

/** expected-tests.json: written when every check passed and it changed; with --check, compared only. */
function record(
  subject: ValidationSubject,
  expected: ExpectedTests,
  checks: ValidationCheck[],
  options: { check?: boolean },
): ValidationReport {
  const ok = checks.every((check) => check.ok);
  const expectedPath = join(subject.dir, 'expected-tests.json');
  const serialized = `${JSON.stringify({ ...expected, digest: subject.digest }, null, 2)}\n`;
  const current = existsSync(expectedPath) ? readFileSync(expectedPath, 'utf8') : null;
  // the ids and twin coverage decide; a stale digest only costs the next check a full run
  const { digest: recordedDigest, ...currentIds } =
    current === null ? { digest: undefined } : (JSON.parse(current) as ExpectedTests);
  let recorded = current !== null && JSON.stringify(currentIds) === JSON.stringify(expected);
  if (options.check) {
    const stale =
      recorded && recordedDigest !== subject.digest
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
    taskId: subject.id,
    dir: subject.dir,
    ok: checks.every((check) => check.ok),
    checks,
    expected: ok ? expected : null,
    recorded,
  };
}

/**
 * A test suite the grade harness runs, for either format: the repository's tests (inside the graded tree) or a
 * Harbor verifier's (at /tests beside it). Written once here: the canary twins planned for its test modules from a
 * seed, the modules rewritten, the run through the grade harness in a fresh container (cached by tree), and the
 * judgement of a run against the plan.
 */
import type { OracleCall, ExpectedTests } from '../../../shared/contracts/task-spec';
import type { TamperFinding } from '../../../shared/contracts/episode';
import { allExpectedPassed, expectedOutcomesPassed, gradeTree, type HarnessResult } from '../grading';
import { decidingBound, freshCalls, judgeTwins, planTwins, twinSeed, type TwinPlan } from '../twins';
import type { GradingContext, ScoringContainers } from './grader';
import type { GradingCache } from '../grading-cache';

/** The files of one harness run: the repository tree, and a verifier's tests at /tests when there are any. */
export interface SuiteFiles {
  files: Record<string, Buffer>;
  tests?: Record<string, Buffer>;
}

/** What the planner needs to twin a suite's modules. */
export interface SuiteTwinRequest {
  /** the seed: HMAC(secret, graded tree) in grading, fixed seeds in validation */
  seed: string;
  /** every file of the suite's root (the modules holding the real ids are rewritten) */
  files: Record<string, Buffer>;
  real: readonly string[];
  calls: readonly OracleCall[] | null;
  canary?: Record<string, Buffer>;
  expected: Pick<ExpectedTests, 'deciding' | 'executed' | 'failing'>;
}

/** The twins of the modules that hold the real ids (and the task's own canaries), with fresh calls from the oracle. */
export function planSuiteTwins(request: SuiteTwinRequest): Promise<TwinPlan> {
  const canary = request.canary ?? {};
  const paths = new Set(request.real.map((id) => id.split('::')[0]!));
  const files = {
    ...Object.fromEntries(Object.entries(request.files).filter(([path]) => paths.has(path))),
    ...canary,
  };
  const calls = request.calls ?? [];
  return planTwins({
    seed: request.seed,
    files,
    real: request.real,
    fresh: freshCalls(calls, request.seed),
    inputs: calls,
    ...(request.expected.deciding ? { deciding: request.expected.deciding } : {}),
    ...(request.expected.executed ? { executed: request.expected.executed } : {}),
    ...(request.expected.failing ? { failing: request.expected.failing } : {}),
  });
}

/** The seed of one grading's twins: the same trees (graded tree and verifier tests) get the same twins. */
export async function gradingSeed(context: GradingContext, tests?: Record<string, Buffer>): Promise<string> {
  const secret = await context.secret();
  if (!tests) return twinSeed(secret, context.graded);
  const together: Record<string, Buffer> = { ...context.graded };
  for (const [path, content] of Object.entries(tests)) together[`\0tests/${path}`] = content;
  return twinSeed(secret, together);
}

/** A tree with its test modules replaced by the plan's rewritten ones (only those it holds). */
export function rewritten(files: Record<string, Buffer>, plan: TwinPlan | null): Record<string, Buffer> {
  if (!plan) return files;
  const result = { ...files };
  for (const [path, text] of Object.entries(plan.files)) if (path in files) result[path] = Buffer.from(text, 'utf8');
  return result;
}

/** One run of the grade harness on a suite in a fresh container, answered by the grading cache when it can be. */
export function runSuite(
  containers: ScoringContainers,
  cache: GradingCache | null,
  run: {
    name: string;
    role: 'grader' | 'audit';
    suite: SuiteFiles;
    timeoutMs: number;
    testPaths?: readonly string[];
    env?: Record<string, string>;
    traceLines?: boolean;
    unsafeReportChannel?: boolean;
  },
): Promise<HarnessResult> {
  const grade = () =>
    gradeTree({
      docker: containers.docker,
      sandbox: containers.sandbox,
      deployment: containers.deployment,
      image: containers.image,
      workflowId: containers.workflowId,
      episodeId: containers.episodeId,
      runId: containers.runId,
      ...(containers.pool && !run.suite.tests ? { pool: containers.pool } : {}),
      name: containers.name(run.name),
      role: run.role,
      files: run.suite.files,
      timeoutMs: run.timeoutMs,
      ...(run.suite.tests ? { tests: run.suite.tests } : {}),
      ...(run.testPaths ? { testPaths: run.testPaths } : {}),
      ...(run.env ? { env: run.env } : {}),
      ...(run.traceLines ? { traceLines: true } : {}),
      ...(run.unsafeReportChannel ? { unsafeReportChannel: true } : {}),
    });
  if (!cache) return grade();
  return cache.grade(
    {
      image: containers.image,
      role: run.role,
      timeoutMs: run.timeoutMs,
      files: run.suite.files,
      ...(run.suite.tests ? { tests: run.suite.tests } : {}),
      ...(run.env ? { env: run.env } : {}),
      ...(run.testPaths ? { testPaths: run.testPaths } : {}),
    },
    grade,
  );
}

/** A run judged: with twins, its real tests passed and every twin failed by its own assertion. */
export interface SuiteVerdict {
  ok: boolean;
  /** every real id passed */
  realPassed: boolean;
  /** the real ids reported passed (the plan maps rewritten ids back to them) */
  passed: ReadonlySet<string>;
  /** the share of the real ids that passed (a verifier's partial credit is held to it) */
  share: number;
  /** twins (and canaries) that did not fail at their own assertion */
  notFailed: { id: string; outcome: string }[];
  forged: TamperFinding | null;
}

/**
 * Judges a run of a suite: against the twin plan when there is one; else every real id passed (and pytest exited 0,
 * unless the run holds tests outside the real ids that may fail: `listed`).
 */
export function judgeSuite(
  result: HarnessResult,
  plan: TwinPlan | null,
  realIds: readonly string[],
  files: Record<string, Buffer>,
  options: { canaryPaths?: ReadonlySet<string>; listed?: boolean } = {},
): SuiteVerdict {
  const passed = passedReal(result, plan, realIds);
  const share = realIds.length ? passed.size / realIds.length : 0;
  if (plan) {
    const verdict = judgeTwins(result, plan, realIds, files, options.canaryPaths);
    return {
      ok: verdict.ok,
      realPassed: verdict.realPassed,
      passed,
      share,
      notFailed: verdict.notFailed,
      forged: verdict.forged,
    };
  }
  const ok = options.listed ? expectedOutcomesPassed(result, realIds) : allExpectedPassed(result, realIds);
  return { ok, realPassed: expectedOutcomesPassed(result, realIds), passed, share, notFailed: [], forged: null };
}

/** The real ids reported passed (the plan maps rewritten ids back to them); none for a run with no report. */
function passedReal(result: HarnessResult, plan: TwinPlan | null, realIds: readonly string[]): Set<string> {
  if (result.timedOut || !result.report) return new Set();
  const real = new Set(realIds);
  const passed = new Set<string>();
  for (const test of result.report.tests) {
    const entry = plan?.tests[test.nodeid];
    const id = plan ? (entry?.kind === 'real' ? entry.id : null) : test.nodeid;
    if (id !== null && real.has(id) && test.outcome === 'passed') passed.add(id);
  }
  return passed;
}

/** The scoring record's twins: how many, the plan's bounds, those that did not fail. */
export function twinRecord(
  context: Pick<GradingContext, 'snapshot'>,
  plan: TwinPlan | null,
  verdicts: readonly (SuiteVerdict | null)[],
) {
  if (!plan) return null;
  const { deciding, failing } = context.snapshot.expected;
  return {
    total: Object.values(plan.tests).filter((test) => test.kind === 'twin').length,
    survival: plan.survival,
    // the bound over the tests that decide the task (null for a task recorded before they were)
    bound: deciding ? decidingBound(plan, deciding, failing).bound : null,
    uncovered: plan.uncovered,
    notFailed: verdicts.flatMap((verdict) => verdict?.notFailed ?? []).slice(0, 20),
  };
}

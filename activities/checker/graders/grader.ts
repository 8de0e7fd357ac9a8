/**
 * The one grading pipeline's interface: a grader plans its runs (twins from a secret, the files of each run), runs
 * them in fresh containers, and judges the results. Two implementations: the repository's own tests through the
 * grade harness (repository-tests.ts) and a Harbor verifier, `tests/test.sh`, with the grade harness on the tests it
 * runs (harbor-verifier.ts). What is common to every format (reading the agent's tree, the static detector, the
 * isolated audit, the outcome rules, the scoring record, the grading cache) lives above them, in scoring.ts and
 * outcome.ts, and `task validate` (activities/tasks/task-validation.ts) proves both kinds of task with the same steps.
 */
import type Dockerode from 'dockerode';
import type { AgentrlConfig, UnsafeDefence } from '../../../shared/contracts/config';
import type { CheckerKind, TamperFinding } from '../../../shared/contracts/episode';
import type { TaskSnapshot } from '../../../shared/contracts/task-spec';
import type { SandboxPool } from '../../sandbox/pool';
import type { AgentTree } from '../agent-tree';
import type { GradingCache } from '../grading-cache';

/** What every scoring container of one grading shares, and the name of each run's fresh container. */
export interface ScoringContainers {
  docker: Dockerode;
  sandbox: AgentrlConfig['sandbox'];
  deployment: string;
  image: string;
  workflowId: string;
  episodeId: string;
  runId: string;
  pool?: SandboxPool;
  /** the container of one run (grader, audit, oracle, weak, suite, ...): its name carries the activity's attempt */
  name(run: string): string;
}

/** Everything a grader needs of one grading. */
export interface GradingContext {
  snapshot: TaskSnapshot;
  checker: CheckerKind;
  /** a stop point's probe: the reward only, no audit */
  probe: boolean;
  testTimeoutMs: number;
  read: AgentTree;
  /** the pristine repository with the agent's changes outside protected paths, and the hidden tests */
  graded: Record<string, Buffer>;
  containers: ScoringContainers;
  cache: GradingCache;
  /** the per-deployment secret the twins derive from */
  secret(): Promise<Buffer>;
  /** TEST ONLY: defences switched off (grading.unsafeDisable) */
  unsafeDisable: readonly UnsafeDefence[];
  /** the weak checker's naive run: a command in the agent's own container */
  runInAgentSandbox(command: string): Promise<{ exitCode: number | null; output: string }>;
}

/** What a grader's runs say. */
export interface GraderVerdict {
  /** the strict reward before the static findings: 1 or 0 for repository tests, the verifier's float */
  reward: number;
  /** the strict run gave the full reward with every twin failing; null when no strict run was needed */
  full: boolean | null;
  /** the weak checker's reward (null unless the episode's checker is weak) */
  weakReward: number | null;
  /** findings of the runs: forged_report, verifier_output, test_edit (a doctest's examples) */
  findings: TamperFinding[];
  /** the fallback pytest oracle's verdict (an `oracle/` folder without oracle.json) */
  pytestAudit: { ok: boolean } | null;
  /** the scoring record's fields this grader fills */
  record: { strict: unknown; audit?: unknown; weak: unknown; twins?: unknown };
  /** other figures of the verifier's reward file (reward.json's keys besides `reward`) */
  metrics?: Record<string, number>;
  /** the grader's and the audit's runs, in ms (0: not run, or answered by the grading cache) */
  phases: { graderMs: number; auditMs: number };
}

/** One grading format: plan, run, judge. */
export interface Grader<Plan, Runs> {
  plan(context: GradingContext): Promise<Plan>;
  run(context: GradingContext, plan: Plan): Promise<Runs>;
  judge(context: GradingContext, plan: Plan, runs: Runs): GraderVerdict;
}

/** Plans, runs and judges with one grader. */
export async function gradeWith<Plan, Runs>(
  grader: Grader<Plan, Runs>,
  context: GradingContext,
): Promise<GraderVerdict> {
  const plan = await grader.plan(context);
  const runs = await grader.run(context, plan);
  return grader.judge(context, plan, runs);
}

/** A run's value with its wall time in ms. */
export async function timed<T>(run: Promise<T> | T): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run;
  return { value, ms: Math.round(performance.now() - started) };
}

/** What `task validate` reports of one task, and what it needs of each task format (task-validation.ts). */
import { existsSync, readFileSync } from 'node:fs';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../../shared/contracts/config';
import { ExpectedTests, type HarborVerifier, type TaskSnapshot } from '../../shared/contracts/task-spec';
import type { HarnessResult } from '../checker/grading';
import type { ScoringContainers } from '../checker/graders/grader';
import type { SuiteFiles } from '../checker/graders/suite';
import type { OracleAuditResult } from '../checker/oracle-audit';
import type { VerifierResult } from '../checker/verifier';

export interface ValidationCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ValidationReport {
  taskId: string;
  dir: string;
  ok: boolean;
  checks: ValidationCheck[];
  expected: ExpectedTests | null;
  /** true when expected-tests.json was written or already matched */
  recorded: boolean;
  /** true when the recorded digest matched and nothing was run (`check` without `full`) */
  skipped?: boolean;
}

/** What the grade harness runs of one tree: its suite, the test files to run, the tests' environment. */
export interface SuiteOfTree extends SuiteFiles {
  testPaths?: string[];
  env?: Record<string, string>;
  /** the container's limits, when the task sets its own (a Harbor task.toml's) */
  resources?: HarborVerifier['resources'];
}

/** One tree's runs: the grade harness on its suite, the format's own reward run (a verifier's test.sh), the audit. */
export interface TreeRun {
  suite: HarnessResult | null;
  reward: VerifierResult | null;
  audit: OracleAuditResult | null;
}

export interface TreeRuns {
  start: TreeRun;
  solution: TreeRun;
  wrong: TreeRun;
  /** why no reference tree could be made (a solve.sh that failed) */
  solveFailure: string | null;
}

/** The trees a task is proven on. */
export interface ValidationTrees {
  start: Record<string, Buffer>;
  /** null when the reference could not be applied (solveFailure says why) */
  solution: Record<string, Buffer> | null;
  wrong: Record<string, Buffer> | null;
  solveFailure?: string;
}

/** What validation needs of one task format (repository-validation.ts, harbor-validation.ts). */
export interface ValidationSubject {
  id: string;
  dir: string;
  digest: string;
  snapshot: TaskSnapshot;
  harbor: boolean;
  /** the survival bound the task accepts over its deciding tests (default 1e-3) */
  acceptedBound?: number;
  /** hand-written canaries graded like twins (a task's canary/ folder) */
  canary: Record<string, Buffer>;
  /** the grade harness's time for one run, when the format sets its own (a verifier's timeout) */
  suiteTimeoutMs?: number;
  trees(containers: ScoringContainers): Promise<ValidationTrees>;
  /** what the grade harness runs on a tree (null: nothing) */
  suite(tree: Record<string, Buffer>): SuiteOfTree | null;
  /** the format's own reward run of a tree (a verifier's test.sh) */
  reward?(containers: ScoringContainers, name: string, tree: Record<string, Buffer>): Promise<VerifierResult>;
  /** the ids to record and the format's checks, from the runs */
  judge(runs: TreeRuns): { expected: ExpectedTests; checks: ValidationCheck[] };
}

export interface ValidationDeps {
  docker: Dockerode;
  sandbox: AgentrlConfig['sandbox'];
  testTimeoutMs?: number;
  /** progress of a task image build */
  onProgress?: (line: string) => void;
}

/** The report of a task whose recorded digest matches: the task, its image and the grading code are what they were. */
export function skippedReport(
  id: string,
  dir: string,
  digest: string,
  expectedPath: string,
  options: { check?: boolean; full?: boolean },
): ValidationReport | null {
  if (!options.check || options.full || !existsSync(expectedPath)) return null;
  const recorded = ExpectedTests.safeParse(JSON.parse(readFileSync(expectedPath, 'utf8')));
  if (!recorded.success || recorded.data.digest !== digest) return null;
  return {
    taskId: id,
    dir,
    ok: true,
    checks: [
      {
        name: 'expected-tests.json was validated against this task, image and grader',
        ok: true,
        detail: `digest ${digest.slice(7, 19)} matches; not run again (--full runs it)`,
      },
    ],
    expected: recorded.data,
    recorded: true,
    skipped: true,
  };
}

/** The last lines of a run's output, on one line. */
export function outputTail(text: string, lines = 8): string {
  return text.trim().split('\n').slice(-lines).join(' | ').slice(-800);
}

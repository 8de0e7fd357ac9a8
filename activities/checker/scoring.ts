/**
 * The scoring activities: one grading pipeline for every task format. The agent's tree is read out of its container,
 * the graded tree built, and then, at once, the static detector, the isolated audit of the oracle calls and the
 * task's grader (the repository's tests, or a Harbor verifier: graders/) run; the outcome rules (outcome.ts) give the
 * reward and true success, and the scoring record is written. A probe (a stop point's grade) runs the grader only.
 */
import type Dockerode from 'dockerode';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentrlConfig, UnsafeDefence } from '../../shared/contracts/config';
import type {
  CheckerKind,
  SandboxHandle,
  ScoringPhases,
  TamperFinding,
  TaskSummary,
  TrueSuccessBasis,
} from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import { TaskSnapshot } from '../../shared/contracts/task-spec';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords } from '../store/episode-records';
import type { SandboxPool } from '../sandbox/pool';
import { releasedOnCancel } from '../sandbox/release-on-cancel';
import type { createToolCallActivities } from '../tools/take-turn';
import { candidateTree, gradedTree, readAgentTree, type AgentTree } from './agent-tree';
import { GraderError, removeScoringContainers, scoringContainerName } from './grading';
import { createGradingCache, type GradingCache } from './grading-cache';
import { gradeWith, timed, type GradingContext, type GraderVerdict, type ScoringContainers } from './graders/grader';
import { harborVerifierGrader } from './graders/harbor-verifier';
import { repositoryTestsGrader } from './graders/repository-tests';
import { auditOracleCalls, type OracleAuditResult } from './oracle-audit';
import {
  audited,
  auditPassed,
  basisOf,
  forgedBy,
  oracleCallsOf,
  rewardOf,
  scoringRecord,
  trueSuccessOf,
} from './outcome';
import { detectTamper } from './tamper';
import { checkerSecret } from './twins';

export interface ScoreInput {
  workflowId: string;
  /** keys records and containers; see sandboxName() */
  episodeId: string;
  runId: string;
  sandbox: SandboxHandle;
  task: TaskSummary;
  checker: CheckerKind;
  testTimeoutMs: number;
}

/** A probe of the state at a stop point: the turn of the check whose state is graded. */
export interface ProbeInput extends ScoreInput {
  turn: number;
}

export interface ScoreSummary {
  reward: number;
  /** the audit's verdict; null when nothing independent audited the task (no oracle), or for a probe */
  trueSuccess: boolean | null;
  trueSuccessBasis: TrueSuccessBasis;
  tamper: TamperFinding[];
  scoringUri: string;
  /** the grader's and the audit's runs (0: not run, or answered by the grading cache) */
  phases?: ScoringPhases;
  /** a verifier's other figures (reward.json's keys besides `reward`) */
  metrics?: Record<string, number>;
}

export interface ScoringDeps {
  docker: Dockerode;
  store: ArtifactStore;
  sandbox: AgentrlConfig['sandbox'];
  deployment: string;
  runInAgentSandbox: ReturnType<typeof createToolCallActivities>['runCheckCommand'];
  /** reuse the results of identical graded trees (grading-cache.ts) */
  cacheResults: boolean;
  /** TEST ONLY: defences switched off (config grading.unsafeDisable) */
  unsafeDisable?: readonly UnsafeDefence[];
  /** the worker's warm pool: graders and audits made ahead of need (sandbox/pool.ts) */
  pool?: SandboxPool;
}

/** A promise whose rejection is handled where it is awaited later (not an unhandled rejection meanwhile). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** What one worker's scoring keeps: its dependencies, the grading cache and the episodes' records. */
interface Scorer {
  deps: ScoringDeps;
  cache: GradingCache;
  records: ReturnType<typeof createEpisodeRecords>;
}

/** The scoring activity (strict or weak, plus the audit) and the probe of a stop point. */
export function createScoringActivities(deps: ScoringDeps) {
  const scorer: Scorer = {
    deps,
    cache: createGradingCache(deps.store, deps.docker, deps.cacheResults),
    records: createEpisodeRecords(deps.store),
  };
  return {
    scoreSubmission(input: ScoreInput): Promise<ScoreSummary> {
      return withHeartbeat(scorer, 'scoring', input, () => score(scorer, input, null));
    },

    /**
     * The reward the run's checker would give if the agent submitted now: the same grading as scoreSubmission without
     * the audit (true success is not needed to credit a decision). Written to `episodes/<id>/probes/<turn>.json`; a
     * later submission of the same files finds the grading cache.
     */
    async probeSubmission(input: ProbeInput): Promise<{ reward: number }> {
      return { reward: (await withHeartbeat(scorer, 'probing', input, () => score(scorer, input, input.turn))).reward };
    },
  };
}

/**
 * Runs the work heartbeating; a grader failure is not retried (the same tree would fail again). Cancelled by its
 * workflow, the scoring removes this attempt's containers (their test runs with them) and ends as cancelled, instead of
 * waiting out the tests; the weak checker's run in the agent's sandbox goes as a cancelled tool call does.
 */
async function withHeartbeat<T>(scorer: Scorer, what: string, input: ScoreInput, work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const heartbeat = setInterval(() => context.heartbeat(what), 2000);
  try {
    return await releasedOnCancel(work, () =>
      removeScoringContainers(scorer.deps.docker, input.sandbox.containerName, context.info.attempt),
    );
  } catch (error) {
    if (error instanceof GraderError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.graderError);
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Reading, then the detector, the audit and the grader at once, then the outcome and its record. */
async function score(scorer: Scorer, input: ScoreInput, probeTurn: number | null): Promise<ScoreSummary> {
  const { deps, cache } = scorer;
  const snapshot = await deps.store.getJson(input.task.snapshotRef, TaskSnapshot);
  const read = await readAgentTree(
    deps.docker,
    deps.sandbox,
    input.sandbox.containerName,
    snapshot,
    input.task.protectedPaths,
  );
  const scored = { input, snapshot, probeTurn, read };
  if (read.overLimits.length > 0)
    return recordOutcome(scorer, { ...scored, dropped: [], verdict: null, audit: null, tamper: read.overLimits });
  const { graded, dropped } = gradedTree(snapshot, read);
  const context = gradingContext(scorer, input, snapshot, probeTurn !== null, read, graded);
  // the tamper detector, the isolated audit of the oracle calls (it needs neither the twins nor the findings) and
  // the grader's planning and runs at once
  const tamperRun = handled(cache.tamper(read.changes, () => detectTamper(read.changes)));
  const auditRun = handled(timed(auditCalls(context)));
  const verdict = snapshot.harbor
    ? await gradeWith(harborVerifierGrader, context)
    : await gradeWith(repositoryTestsGrader, context);
  const audit = await auditRun;
  const tamper = mergeFindings(await tamperRun, verdict.findings);
  verdict.phases.auditMs = Math.max(verdict.phases.auditMs, audit.value ? audit.ms : 0);
  return recordOutcome(scorer, { ...scored, dropped, verdict, audit: audit.value, tamper });
}

/** The outcome rules applied (a tree beyond what the grader reads has no verdict), and the scoring record written. */
async function recordOutcome(
  scorer: Scorer,
  scored: {
    input: ScoreInput;
    snapshot: TaskSnapshot;
    probeTurn: number | null;
    read: AgentTree;
    dropped: readonly string[];
    verdict: GraderVerdict | null;
    audit: OracleAuditResult | null;
    tamper: TamperFinding[];
  },
): Promise<ScoreSummary> {
  const { input, snapshot, probeTurn, read, dropped, verdict, audit, tamper } = scored;
  const forged = forgedBy(tamper);
  // a tree beyond what the grader reads (no verdict) scores 0
  const reward = verdict ? rewardOf(input.checker, verdict, forged) : 0;
  const independent = audit ? { ok: auditPassed(audit) } : (verdict?.pytestAudit ?? null);
  const trueSuccess = verdict
    ? trueSuccessOf({ probe: probeTurn !== null, forged, full: verdict.full, audit: independent })
    : probeTurn !== null || !audited(basisOf(snapshot))
      ? null
      : false;
  const scoringUri = await scorer.records.writeScoring(
    input.episodeId,
    scoringRecord({ checker: input.checker, probeTurn, reward, trueSuccess, tamper, read, dropped, verdict, audit }),
  );
  return {
    reward,
    trueSuccess,
    trueSuccessBasis: basisOf(snapshot),
    tamper,
    scoringUri,
    ...(verdict ? { phases: verdict.phases } : {}),
    ...(verdict?.metrics ? { metrics: verdict.metrics } : {}),
  };
}

/** What the graders need of one grading: the task, the trees, the containers' names and the switches. */
function gradingContext(
  scorer: Scorer,
  input: ScoreInput,
  snapshot: TaskSnapshot,
  probe: boolean,
  read: AgentTree,
  graded: Record<string, Buffer>,
): GradingContext {
  const { deps } = scorer;
  const attempt = Context.current().info.attempt;
  const containers: ScoringContainers = {
    docker: deps.docker,
    sandbox: deps.sandbox,
    deployment: deps.deployment,
    image: input.task.image,
    workflowId: input.workflowId,
    episodeId: input.episodeId,
    runId: input.runId,
    ...(deps.pool ? { pool: deps.pool } : {}),
    // names carry the attempt, so a stale attempt's clean-up never removes a retry's container
    name: (run) => scoringContainerName(input.sandbox.containerName, run, attempt),
  };
  return {
    snapshot,
    checker: input.checker,
    probe,
    testTimeoutMs: input.testTimeoutMs,
    read,
    graded,
    containers,
    cache: scorer.cache,
    secret: () => checkerSecret(deps.store),
    unsafeDisable: deps.unsafeDisable ?? [],
    runInAgentSandbox: (command) =>
      deps.runInAgentSandbox({ sandbox: input.sandbox, command, timeoutMs: input.testTimeoutMs }),
  };
}

/** The isolated audit of the oracle calls on the candidate's tree (not for a probe); cached by tree. */
async function auditCalls(context: GradingContext): Promise<OracleAuditResult | null> {
  const calls = oracleCallsOf(context.snapshot, context.unsafeDisable);
  if (!calls || context.probe) return null;
  // the candidate's tree without the hidden tests, and none of the expected values
  const files = candidateTree(context.graded, context.snapshot);
  const { containers, testTimeoutMs } = context;
  return context.cache.audit({ image: containers.image, timeoutMs: testTimeoutMs, files, calls }, () =>
    auditOracleCalls({
      ...containers,
      name: containers.name('oracle'),
      files,
      calls,
      timeoutMs: testTimeoutMs,
      unsafeProtocol: context.unsafeDisable.includes('audit-protocol'),
    }),
  );
}

/** The detector's findings with the grader's, one of each kind and detail. */
function mergeFindings(detected: readonly TamperFinding[], graded: readonly TamperFinding[]): TamperFinding[] {
  const findings = [...detected];
  for (const finding of graded)
    if (!findings.some((other) => other.kind === finding.kind && other.detail === finding.detail))
      findings.push(finding);
  return findings;
}

import type Dockerode from 'dockerode';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentrlConfig, UnsafeDefence } from '../../shared/config';
import type {
  CheckerKind,
  SandboxHandle,
  ScoringPhases,
  TamperFinding,
  TaskSummary,
  TrueSuccessBasis,
} from '../../shared/episode';
import { ErrorTypes } from '../../shared/errors';
import { protectedPathMatcher } from '../../shared/protected-paths';
import { forgesPass } from '../../shared/tamper';
import { TaskSnapshot, type ExpectedTests, type OracleCall } from '../../shared/task-spec';
import { decodeFiles } from '../sandbox/container';
import { ArchiveTooLargeError, isNotFound } from '../sandbox/docker';
import { sweepAgentProcesses } from '../sandbox/sweep';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords } from '../store/episode-records';
import type { createToolCallActivities } from '../tools/take-turn';
import { dropPathConflicts, exportChanges, type ExportedTree, type FileChange } from './changes';
import {
  allExpectedPassed,
  editedDoctests,
  expectedOutcomesPassed,
  gradeTree,
  GraderError,
  testFilesOf,
  type HarnessResult,
} from './grading';
import { createGradingCache } from './grading-cache';
import { auditOracleCalls, type OracleAuditResult } from './oracle-audit';
import type { SandboxPool } from '../sandbox/pool';
import { checkerSecret, decidingBound, freshCalls, judgeTwins, planTwins, twinSeed, type TwinPlan } from './twins';
import { detectTamper } from './tamper';
import { runVerifier, verifierOutputFindings } from './verifier';

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
  trueSuccess: boolean;
  trueSuccessBasis: TrueSuccessBasis;
  tamper: TamperFinding[];
  scoringUri: string;
  /** the grader's and the audit's runs (0: not run, or answered by the grading cache) */
  phases?: ScoringPhases;
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

/** A run's value with its wall time in ms. */
async function timed<T>(run: Promise<T> | T): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run;
  return { value, ms: Math.round(performance.now() - started) };
}

/** A promise whose rejection is handled where it is awaited later (not an unhandled rejection meanwhile). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The scoring activity: strict (fresh container, protected paths restored, hidden tests) or weak, plus the audit. */
export function createScoringActivities(deps: ScoringDeps) {
  const { docker, store } = deps;
  const cache = createGradingCache(store, docker, deps.cacheResults);
  const records = createEpisodeRecords(store);
  return {
    async scoreSubmission(input: ScoreInput): Promise<ScoreSummary> {
      const heartbeat = setInterval(() => Context.current().heartbeat('scoring'), 2000);
      try {
        return await score(input);
      } catch (error) {
        if (error instanceof GraderError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.graderError);
        throw error;
      } finally {
        clearInterval(heartbeat);
      }
    },

    /**
     * The reward the run's checker would give if the agent submitted now: the same grading as
     * scoreSubmission without the audit (true success is not needed to credit a decision). Written to
     * `episodes/<id>/probes/<turn>.json`; a later submission of the same files finds the grading cache.
     */
    async probeSubmission(input: ProbeInput): Promise<{ reward: number }> {
      const heartbeat = setInterval(() => Context.current().heartbeat('probing'), 2000);
      try {
        return { reward: (await score(input, { turn: input.turn })).reward };
      } catch (error) {
        if (error instanceof GraderError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.graderError);
        throw error;
      } finally {
        clearInterval(heartbeat);
      }
    },
  };

  /**
   * Grading as a pipeline of named steps: the agent's tree read out of its container, the graded
   * tree built, the runs planned (twins from a secret, the audit's calls), the graders run in fresh
   * containers, each run judged, the reward by the episode's checker, true success by the audit, and
   * the scoring record. A probe (a stop point's grade) runs the grader only.
   */
  async function score(input: ScoreInput, probe?: { turn: number }): Promise<ScoreSummary> {
    const snapshot = await store.getJson(input.task.snapshotRef, TaskSnapshot);
    const read = await readAgentTree(input, snapshot);
    if (read.overLimits.length > 0) return scoreOverLimits(input, snapshot, read.overLimits, probe);
    if (snapshot.harbor) return scoreByVerifier(input, snapshot, snapshot.harbor, read, probe);
    const { changes = [], tree = new Map() } = read;
    // the tamper detector, the isolated audit of the oracle calls (it needs neither the twins nor the findings) and the
    // planning with the graders run at once
    const tamperRun = handled(cache.tamper(changes, () => detectTamper(changes)));
    const { graded, dropped } = gradedTree(snapshot, read.pristine, changes, tree);
    const oracleRun = handled(timed(auditCalls(input, snapshot, graded, probe)));
    const runs = await planRuns(input, snapshot, graded);
    const { strict, pytestAudit, phases } = await runGraders(input, runs, probe);
    const { value: oracle, ms: oracleMs } = await oracleRun;
    const tamper = await tamperRun;
    const verdicts = judgeRuns(runs, strict, pytestAudit);
    // a doctest whose examples were edited away passed nothing: the run fails, and the edit is a finding
    const doctests = snapshot.expected.doctests ?? {};
    for (const [verdict, result] of [
      [verdicts.strict, strict],
      [verdicts.audit, pytestAudit],
    ] as const) {
      if (!verdict || !result) continue;
      const edited = editedDoctests(result, doctests);
      if (edited.length === 0) continue;
      verdict.ok = false;
      for (const detail of edited)
        if (!tamper.some((finding) => finding.kind === 'test_edit' && finding.detail === `doctest ${detail}`))
          tamper.push({ kind: 'test_edit', path: detail.split('::')[0]!, detail: `doctest ${detail}` });
    }
    for (const verdict of [verdicts.strict, verdicts.audit]) {
      if (verdict?.forged && !tamper.some((finding) => finding.kind === verdict.forged!.kind))
        tamper.push(verdict.forged);
    }
    const forged = tamper.some((finding) => forgesPass(finding.kind));
    const { reward, weak } = await rewardOf(input, verdicts.strict, forged);
    let trueSuccess = false;
    if (!probe && !forged) {
      if (verdicts.audit) trueSuccess = verdicts.audit.ok;
      else
        trueSuccess = verdicts.strict!.ok && (oracle === null || (!oracle.timedOut && oracle.passed === oracle.total));
    }
    const plan = runs.plan;
    const scoringUri = await records.writeScoring(input.episodeId, {
      checker: input.checker,
      ...(probe ? { probeTurn: probe.turn } : {}),
      reward,
      trueSuccess: probe ? null : trueSuccess,
      tamper,
      changes: changes.map(({ path, status, protected: p, symlink }) => ({ path, status, protected: p, symlink })),
      strict,
      audit: pytestAudit ?? oracle,
      weak,
      twins: plan
        ? {
            total: Object.values(plan.tests).filter((test) => test.kind === 'twin').length,
            survival: plan.survival,
            // the bound over the tests that decide the task (null for a task recorded before they were)
            bound: snapshot.expected.deciding ? decidingBound(plan, snapshot.expected.deciding).bound : null,
            uncovered: plan.uncovered,
            notFailed: [...(verdicts.strict?.notFailed ?? []), ...(verdicts.audit?.notFailed ?? [])].slice(0, 20),
          }
        : null,
      // what of the agent's tree the graded tree leaves out, besides protected paths and symlinks
      dropped: dropped.map((path) => ({ path, reason: 'clashes with a kept file or folder' })),
    });
    return {
      reward,
      trueSuccess,
      trueSuccessBasis: oracle
        ? 'visible+hidden+oracle-calls'
        : pytestAudit
          ? 'visible+hidden+oracle-pytest'
          : 'visible+hidden',
      tamper,
      scoringUri,
      phases: { graderMs: phases.graderMs, auditMs: Math.max(phases.auditMs, oracle ? oracleMs : 0) },
    };
  }

  /**
   * A Harbor task: its own verifier (tests/test.sh) in a fresh container decides the reward, a float.
   * Strict grades the pristine repository with the agent's changes outside protected paths, and a
   * finding that can forge a pass (the static detector's, or changed code naming the reward file)
   * scores 0; weak grades the agent's tree as it is. True success is the strict verifier's full reward
   * (1 or more) with no such finding, and the isolated audit's verdict when the task has oracle.json.
   */
  async function scoreByVerifier(
    input: ScoreInput,
    snapshot: TaskSnapshot,
    harbor: NonNullable<TaskSnapshot['harbor']>,
    read: Partial<ExportedTree> & { pristine: Record<string, Buffer> },
    probe: { turn: number } | undefined,
  ): Promise<ScoreSummary> {
    const { changes = [], tree = new Map() } = read;
    const tamper = await cache.tamper(changes, () => detectTamper(changes));
    const changed = changes
      .filter((change) => change.status !== 'deleted' && !change.symlink && tree.has(change.path))
      .map((change) => ({ path: change.path, content: tree.get(change.path)!.content }));
    tamper.push(...verifierOutputFindings(changed));
    const { graded, dropped } = gradedTree(snapshot, read.pristine, changes, tree);
    const attempt = Context.current().info.attempt;
    const common = {
      docker,
      deployment: deps.deployment,
      sandbox: deps.sandbox,
      image: input.task.image,
      workflowId: input.workflowId,
      episodeId: input.episodeId,
      runId: input.runId,
    };
    const tests = decodeFiles(harbor.tests);
    const verify = (role: string, files: Record<string, Buffer>) =>
      runVerifier({
        ...common,
        name: `${input.sandbox.containerName}-${role}-${attempt}`,
        files,
        verifier: harbor,
        tests,
      });
    const weakTree = (): Record<string, Buffer> => {
      const files: Record<string, Buffer> = { ...read.pristine };
      for (const change of changes) {
        if (change.symlink) continue;
        if (change.status === 'deleted') delete files[change.path];
        else files[change.path] = tree.get(change.path)!.content;
      }
      dropPathConflicts(files, new Set(changes.map((change) => change.path)));
      return files;
    };
    const calls = oracleCallsOf(snapshot);
    const [strict, weak, oracle] = await Promise.all([
      input.checker === 'strict' || !probe ? verify('grader', graded) : null,
      input.checker === 'weak' ? verify('weak', weakTree()) : null,
      calls && !probe
        ? auditOracleCalls({
            ...common,
            name: `${input.sandbox.containerName}-oracle-${attempt}`,
            files: graded,
            calls,
            timeoutMs: input.testTimeoutMs,
            unsafeProtocol: deps.unsafeDisable?.includes('audit-protocol'),
          })
        : null,
    ]);
    // something the candidate started outlived the verifier: it could have written the reward file after it
    if (strict && strict.lingering > 0)
      tamper.push({ kind: 'verifier_output', path: '.', detail: strict.problem ?? 'processes outlived test.sh' });
    const forged = tamper.some((finding) => forgesPass(finding.kind));
    const reward =
      input.checker === 'weak' ? (weak!.reward ?? 0) : forged || strict!.reward === null ? 0 : strict!.reward;
    const trueSuccess =
      !probe &&
      !forged &&
      strict !== null &&
      (strict.reward ?? 0) >= 1 &&
      (oracle === null || (!oracle.timedOut && oracle.passed === oracle.total));
    const scoringUri = await records.writeScoring(input.episodeId, {
      checker: input.checker,
      ...(probe ? { probeTurn: probe.turn } : {}),
      reward,
      trueSuccess: probe ? null : trueSuccess,
      tamper,
      changes: changes.map(({ path, status, protected: p, symlink }) => ({ path, status, protected: p, symlink })),
      strict: strict ? { verifier: strict } : null,
      audit: oracle,
      weak: weak ? { verifier: weak } : null,
      dropped: dropped.map((path) => ({ path, reason: 'clashes with a kept file or folder' })),
    });
    return { reward, trueSuccess, trueSuccessBasis: snapshotBasis(snapshot), tamper, scoringUri };
  }

  /** Reading: the agent's changes against the pristine repository, with nothing of the agent's running. */
  async function readAgentTree(
    input: ScoreInput,
    snapshot: TaskSnapshot,
  ): Promise<Pick<ExportedTree, 'overLimits'> & Partial<ExportedTree> & { pristine: Record<string, Buffer> }> {
    const pristine = decodeFiles(snapshot.repo);
    const isProtected = protectedPathMatcher(input.task.protectedPaths);
    const agent = docker.getContainer(input.sandbox.containerName);
    await ensureRunning(agent);
    // nothing of the agent's runs while its tree is read
    await sweepAgentProcesses(docker, input.sandbox.containerName, deps.sandbox.uid);
    try {
      const exported = await exportChanges(agent, pristine, isProtected, (deps.sandbox.workDiskMb + 16) * 1024 * 1024);
      return { ...exported, pristine };
    } catch (error) {
      if (!(error instanceof ArchiveTooLargeError)) throw error;
      // only sparse files can claim more than the volume holds: the agent's doing, scored 0
      return { overLimits: [{ kind: 'over_limits', path: '.', detail: error.message }], pristine };
    }
  }

  /** A tree beyond what the grader reads is the agent's doing: scored 0, never a grader failure. */
  async function scoreOverLimits(
    input: ScoreInput,
    snapshot: TaskSnapshot,
    overLimits: TamperFinding[],
    probe: { turn: number } | undefined,
  ): Promise<ScoreSummary> {
    const scoringUri = await records.writeScoring(input.episodeId, {
      checker: input.checker,
      ...(probe ? { probeTurn: probe.turn } : {}),
      reward: 0,
      trueSuccess: probe ? null : false,
      tamper: overLimits,
    });
    return { reward: 0, trueSuccess: false, trueSuccessBasis: snapshotBasis(snapshot), tamper: overLimits, scoringUri };
  }

  /**
   * Planning: which ids decide the reward and the audit, whether the audit is the isolated calls or
   * the fallback pytest oracle, and the canary twins of the test modules (from a secret: the runs
   * see only the rewritten modules, twins.ts); the task's own canaries go in with the twins.
   */
  async function planRuns(input: ScoreInput, snapshot: TaskSnapshot, graded: Record<string, Buffer>) {
    const rewardIds = [...snapshot.expected.visible, ...snapshot.expected.hidden];
    const calls = oracleCallsOf(snapshot);
    const pytestOracle =
      calls === null && Object.keys(snapshot.oracle).length > 0 && !deps.unsafeDisable?.includes('isolated-audit');
    const oracleIds = pytestOracle ? snapshot.expected.oracle : [];
    const audited = pytestOracle ? { ...graded, ...decodeFiles(snapshot.oracle) } : graded;
    const canary = decodeFiles(snapshot.canary ?? {});
    const plan = deps.unsafeDisable?.includes('twins')
      ? null
      : await planFor(graded, audited, [...rewardIds, ...oracleIds], calls, canary, snapshot.expected);
    return {
      rewardIds,
      oracleIds,
      // a task that lists its tests: the others (and so pytest's exit status) never change the reward
      listed: snapshot.spec.failToPass !== undefined,
      pytestOracle,
      canary,
      plan,
      gradedRun: plan ? rewritten({ ...graded, ...canary }, plan) : graded,
      auditedRun: plan ? rewritten({ ...audited, ...canary }, plan) : audited,
    };
  }

  /**
   * Running, in fresh containers at once: the grader (the reward, and the visible and hidden part of
   * true success unless the fallback pytest oracle runs them again beside its own tests), the
   * fallback pytest audit, and the isolated audit of the oracle calls. Results are cached by tree.
   */
  async function runGraders(
    input: ScoreInput,
    runs: Awaited<ReturnType<typeof planRuns>>,
    probe: { turn: number } | undefined,
  ): Promise<{ strict: HarnessResult | null; pytestAudit: HarnessResult | null; phases: ScoringPhases }> {
    const { attempt, common } = scoringContainers(input);
    const grade = (role: 'grader' | 'audit', files: Record<string, Buffer>) => {
      // a task that lists its tests runs only their files (and the canaries'): a real suite's others never count
      const ids = role === 'audit' ? [...runs.rewardIds, ...runs.oracleIds] : runs.rewardIds;
      const testPaths = runs.listed ? testFilesOf(ids, Object.keys(runs.canary)) : undefined;
      return cache.grade({ image: input.task.image, role, timeoutMs: input.testTimeoutMs, files, testPaths }, () =>
        gradeTree({
          ...common,
          name: `${input.sandbox.containerName}-${role}-${attempt}`,
          role,
          files,
          unsafeReportChannel: deps.unsafeDisable?.includes('report-channel'),
          ...(testPaths ? { testPaths } : {}),
        }),
      );
    };
    const [strict, pytestAudit] = await Promise.all([
      timed(input.checker === 'strict' || !runs.pytestOracle || probe ? grade('grader', runs.gradedRun) : null),
      timed(runs.pytestOracle && !probe ? grade('audit', runs.auditedRun) : null),
    ]);
    return {
      strict: strict.value,
      pytestAudit: pytestAudit.value,
      phases: { graderMs: strict.value ? strict.ms : 0, auditMs: pytestAudit.value ? pytestAudit.ms : 0 },
    };
  }

  /** The oracle's calls the isolated audit makes (null: the task has none, or the audit is switched off for a test). */
  function oracleCallsOf(snapshot: TaskSnapshot): readonly OracleCall[] | null {
    return deps.unsafeDisable?.includes('isolated-audit') ? null : (snapshot.oracleCalls ?? null);
  }

  /** The isolated audit of the oracle calls on the candidate's tree (not for a probe); cached by tree. */
  async function auditCalls(
    input: ScoreInput,
    snapshot: TaskSnapshot,
    graded: Record<string, Buffer>,
    probe: { turn: number } | undefined,
  ): Promise<OracleAuditResult | null> {
    const calls = oracleCallsOf(snapshot);
    if (!calls || probe) return null;
    // the candidate's tree without the hidden tests, and none of the expected values
    const candidate = candidateTree(graded, snapshot);
    const { attempt, common } = scoringContainers(input);
    return cache.audit({ image: input.task.image, timeoutMs: input.testTimeoutMs, files: candidate, calls }, () =>
      auditOracleCalls({
        ...common,
        name: `${input.sandbox.containerName}-oracle-${attempt}`,
        files: candidate,
        calls,
        unsafeProtocol: deps.unsafeDisable?.includes('audit-protocol'),
      }),
    );
  }

  /** What every scoring container of this attempt shares; names carry the attempt, so a stale one's clean-up never
   * removes a retry's container. */
  function scoringContainers(input: ScoreInput) {
    const attempt = Context.current().info.attempt;
    const common = {
      docker,
      deployment: deps.deployment,
      sandbox: deps.sandbox,
      image: input.task.image,
      workflowId: input.workflowId,
      episodeId: input.episodeId,
      runId: input.runId,
      timeoutMs: input.testTimeoutMs,
      ...(deps.pool ? { pool: deps.pool } : {}),
    };
    return { attempt, common };
  }

  /** Judging: with twins, a run passes when its real tests pass and every twin fails by its own assertion. */
  function judgeRuns(
    runs: Awaited<ReturnType<typeof planRuns>>,
    strict: HarnessResult | null,
    pytestAudit: HarnessResult | null,
  ) {
    const { plan, canary } = runs;
    const judge = (result: HarnessResult, ids: readonly string[], files: Record<string, Buffer>) =>
      plan
        ? judgeTwins(result, plan, ids, files, new Set(Object.keys(canary)))
        : {
            ok: runs.listed ? expectedOutcomesPassed(result, ids) : allExpectedPassed(result, ids),
            forged: null,
            notFailed: [],
            twins: 0,
          };
    return {
      strict: strict ? judge(strict, runs.rewardIds, runs.gradedRun) : null,
      audit: pytestAudit ? judge(pytestAudit, [...runs.rewardIds, ...runs.oracleIds], runs.auditedRun) : null,
    };
  }

  /**
   * The reward by the episode's checker: strict, the grader's verdict with no finding that can forge
   * a pass; weak, the naive checker, the test command's exit code with the tests as the agent left them.
   */
  async function rewardOf(
    input: ScoreInput,
    strictVerdict: { ok: boolean } | null,
    forged: boolean,
  ): Promise<{ reward: number; weak: { exitCode: number | null; output: string } | null }> {
    if (input.checker !== 'weak') return { reward: strictVerdict!.ok && !forged ? 1 : 0, weak: null };
    const weak = await deps.runInAgentSandbox({
      sandbox: input.sandbox,
      command: input.task.testCommand,
      timeoutMs: input.testTimeoutMs,
    });
    return { reward: weak.exitCode === 0 ? 1 : 0, weak };
  }

  /** The twins of this tree's test modules: those holding the expected ids, with fresh calls from the oracle. */
  async function planFor(
    graded: Record<string, Buffer>,
    audited: Record<string, Buffer>,
    ids: readonly string[],
    calls: readonly OracleCall[] | null,
    canary: Record<string, Buffer>,
    expected: Pick<ExpectedTests, 'deciding' | 'executed'>,
  ): Promise<TwinPlan> {
    const paths = new Set(ids.map((id) => id.split('::')[0]!));
    const files = { ...Object.fromEntries(Object.entries(audited).filter(([path]) => paths.has(path))), ...canary };
    const seed = twinSeed(await checkerSecret(store), graded);
    return planTwins({
      seed,
      files,
      real: ids,
      fresh: freshCalls(calls ?? [], seed),
      inputs: calls ?? [],
      ...(expected.deciding ? { deciding: expected.deciding } : {}),
      ...(expected.executed ? { executed: expected.executed } : {}),
    });
  }

  /** The agent's container must still run: one that is gone is an environment failure, not the grader's. */
  async function ensureRunning(container: Dockerode.Container): Promise<void> {
    try {
      if ((await container.inspect()).State.Running) return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    throw ApplicationFailure.nonRetryable('the sandbox stopped before scoring', ErrorTypes.sandboxCrash);
  }
}

/** A tree with its test modules replaced by the plan's rewritten ones (only those it holds). */
function rewritten(files: Record<string, Buffer>, plan: TwinPlan): Record<string, Buffer> {
  const result = { ...files };
  for (const [path, text] of Object.entries(plan.files)) if (path in files) result[path] = Buffer.from(text, 'utf8');
  return result;
}

/** What true success would rest on for this task, before anything ran. */
function snapshotBasis(snapshot: TaskSnapshot): TrueSuccessBasis {
  if (snapshot.harbor) return snapshot.oracleCalls ? 'harbor-verifier+oracle-calls' : 'harbor-verifier';
  return snapshot.oracleCalls
    ? 'visible+hidden+oracle-calls'
    : Object.keys(snapshot.oracle).length > 0
      ? 'visible+hidden+oracle-pytest'
      : 'visible+hidden';
}

/** The graded tree without the hidden tests: what the isolated audit imports the candidate's code from. */
function candidateTree(graded: Record<string, Buffer>, snapshot: TaskSnapshot): Record<string, Buffer> {
  const files = { ...graded };
  for (const path of Object.keys(snapshot.hidden)) delete files[path];
  return files;
}

/**
 * The graded tree: the pristine repository, plus the agent's changes outside protected paths (and
 * not symlinks), plus the hidden tests; paths that clash with a kept file or folder are dropped.
 */
function gradedTree(
  snapshot: TaskSnapshot,
  pristine: Record<string, Buffer>,
  changes: readonly FileChange[],
  tree: ReadonlyMap<string, { content: Buffer }>,
): { graded: Record<string, Buffer>; dropped: string[] } {
  const graded: Record<string, Buffer> = { ...pristine };
  for (const change of changes) {
    if (change.protected || change.symlink) continue;
    if (change.status === 'deleted') delete graded[change.path];
    else graded[change.path] = tree.get(change.path)!.content;
  }
  Object.assign(graded, decodeFiles(snapshot.hidden));
  const dropped = dropPathConflicts(graded, new Set(changes.map((change) => change.path)));
  return { graded, dropped };
}

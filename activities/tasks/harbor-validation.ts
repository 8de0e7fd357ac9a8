/**
 * `task validate`'s subject for a Harbor folder: its image builds; the reference is `solution/solve.sh` run as the
 * agent would (a sandbox of the task's image, no network); each tree is graded by the verifier (`tests/test.sh`,
 * whose reward the reference must bring to full and the start and a `wrong-fix.patch` must not) and by the grade
 * harness on the verifier's own pytest tests at /tests: those the reference passes there are recorded (as the task's
 * hidden tests), with the deciding ones, and twinned like any task's. The reward files the verifier writes are
 * recorded too: grading takes another one as the candidate's.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ScoringContainers } from '../checker/graders/grader';
import type { ExpectedTests } from '../../shared/contracts/task-spec';
import { verifierTestsPath } from '../checker/grading';
import { runVerifier, scriptEnvironment, type VerifierResult } from '../checker/verifier';
import {
  createHardenedContainer,
  decodeFiles,
  removeSandbox,
  repoPath,
  repositoryTar,
  sandboxFor,
} from '../sandbox/container';
import { buildTar, execCollect } from '../sandbox/docker';
import { harborImageNames, readFolderFiles } from '../images/harbor-image';
import { harborTaskId, readHarborFolder, rewardFileNames, type RewardFileName } from './harbor';
import { loadTask } from './task-loader';
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

/** The code a Harbor task's verdict depends on besides the common validation code. */
const harborCode = [
  'activities/checker/verifier.ts',
  'activities/checker/graders/harbor-verifier.ts',
  'activities/images/harbor-image.ts',
  'activities/tasks/harbor.ts',
];

/** The verifier's files pytest collects by its default naming: the grade harness runs them. */
const pytestFile = /(^|\/)(test_[^/]*|[^/]*_test)\.py$/;

export async function harborSubject(
  dir: string,
  deps: ValidationDeps,
  options: { check?: boolean; full?: boolean },
): Promise<ValidationSubject | ValidationReport> {
  // the digest first: a task validated against this folder, image and verifier is not built or run again
  const root = resolve(dir);
  const folder = readHarborFolder(root);
  const digest = validationDigest(root, harborImageNames(folder).image, harborCode);
  const skipped = skippedReport(harborTaskId(root), root, digest, join(root, 'expected-tests.json'), options);
  if (skipped) return skipped;
  const loaded = await loadTask(root, deps.sandbox.image, {
    docker: deps.docker,
    requireExpected: false,
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
  });
  const { snapshot } = loaded;
  const harbor = snapshot.harbor!;
  if (folder.solveScript === null)
    throw new TaskError(`${join(root, 'solution', 'solve.sh')}: missing (task validate needs a reference solution)`);
  const tests = decodeFiles(harbor.tests);
  const testPaths = Object.keys(tests)
    .filter((path) => pytestFile.test(path))
    .sort();
  const repo = () => decodeFiles(snapshot.repo);
  return {
    id: snapshot.spec.id,
    dir: root,
    digest,
    snapshot,
    harbor: true,
    ...(folder.acceptedBound !== null ? { acceptedBound: folder.acceptedBound } : {}),
    canary: {},
    suiteTimeoutMs: Math.max(deps.testTimeoutMs ?? 300_000, harbor.timeoutSec * 1000),
    async trees(containers) {
      const solve = await solveInSandbox({
        ...containers,
        name: containers.name('solve'),
        repo: repo(),
        // solution/ as it is: solve.sh and anything it uses
        solution: folder.solution,
        env: folder.solutionEnv,
        workdir: harbor.workdir,
        resources: harbor.resources,
        executables: harbor.executables ?? [],
        timeoutMs: folder.agentTimeoutMs ?? deps.testTimeoutMs ?? 600_000,
      });
      return {
        start: repo(),
        solution: solve.files,
        wrong: loaded.wrongFixPatch ? applyPatch(repo(), loaded.wrongFixPatch, join(root, 'wrong-fix.patch')) : null,
        ...(solve.files
          ? {}
          : { solveFailure: `solve.sh failed (exit ${solve.exitCode}): ${outputTail(solve.output)}` }),
      };
    },
    suite: (tree) =>
      testPaths.length > 0
        ? {
            files: tree,
            tests,
            testPaths,
            env: { TEST_DIR: verifierTestsPath, ...harbor.env },
            resources: harbor.resources,
          }
        : null,
    reward: (containers, name, tree) =>
      runVerifier({ ...containers, name: containers.name(`${name}-verifier`), files: tree, verifier: harbor, tests }),
    judge: (runs) => judgeHarborRuns(runs, testPaths.length),
  };
}

/** The verifier's tests the reference passes under the grade harness, the reward files it writes, and the checks. */
function judgeHarborRuns(runs: TreeRuns, testFiles: number): { expected: ExpectedTests; checks: ValidationCheck[] } {
  const suite = runs.solution.suite;
  const passed = (suite?.report?.tests ?? []).filter((test) => test.outcome === 'passed').map((test) => test.nodeid);
  const others = (suite?.report?.tests ?? []).filter((test) => test.outcome !== 'passed');
  const rewardFiles = new Set<RewardFileName>();
  for (const run of [runs.start, runs.solution, runs.wrong])
    if (run.reward && run.reward.channel.length === 0) for (const file of run.reward.rewardFiles) rewardFiles.add(file);
  const expected: ExpectedTests = {
    visible: [],
    hidden: passed,
    oracle: [],
    ...(rewardFiles.size ? { rewardFiles: rewardFileNames.filter((file) => rewardFiles.has(file)) } : {}),
  };
  const checks: ValidationCheck[] = [
    {
      name: 'the starting repository does not get the full reward',
      ok: (runs.start.reward?.reward ?? 0) < 1,
      detail: describe(runs.start.reward),
    },
    {
      name: 'solution/solve.sh brings the repository to the full reward',
      ok: (runs.solution.reward?.reward ?? 0) >= 1,
      detail: runs.solveFailure ?? describe(runs.solution.reward),
    },
  ];
  if (runs.wrong.reward)
    checks.push({
      name: 'wrong-fix.patch does not get the full reward',
      ok: (runs.wrong.reward.reward ?? 0) < 1,
      detail: describe(runs.wrong.reward),
    });
  checks.push({
    name: "the verifier's pytest tests run under the grade harness (they hold test.sh's reward to what they show)",
    ok: true,
    detail:
      testFiles === 0
        ? 'no test file the grade harness collects (test_*.py, *_test.py)'
        : `${passed.length} tests pass with the reference` +
          (others.length
            ? `; not counted (not passing with the reference): ${others
                .slice(0, 8)
                .map((test) => `${test.nodeid} ${test.outcome}`)
                .join(', ')}`
            : '') +
          (suite && !suite.report ? `; no report: ${outputTail(suite.output)}` : ''),
  });
  return { expected, checks };
}

function describe(result: VerifierResult | null): string {
  if (!result) return 'not run';
  return result.reward === null
    ? `no reward (${result.problem}): ${outputTail(result.output, 6)}`
    : `reward ${result.reward}`;
}

/**
 * Runs solve.sh as the agent would: a sandbox of the task's image with the starting repository, the
 * solution at /solution, the agent's uid, no network; returns the repository's files afterwards.
 */
async function solveInSandbox(
  options: Omit<ScoringContainers, 'name' | 'pool'> & {
    name: string;
    repo: Record<string, Buffer>;
    solution: Record<string, Buffer>;
    env: Record<string, string>;
    workdir: string;
    resources: Parameters<typeof sandboxFor>[1];
    executables: readonly string[];
    timeoutMs: number;
  },
): Promise<{ files: Record<string, Buffer> | null; exitCode: number | null; output: string }> {
  const { docker, name } = options;
  const sandbox = sandboxFor(options.sandbox, options.resources);
  const uid = sandbox.uid;
  const { container, volumes } = await createHardenedContainer(docker, {
    name,
    deployment: options.deployment,
    image: options.image,
    workflowId: options.workflowId,
    episodeId: options.episodeId,
    runId: options.runId,
    role: 'agent',
    sandbox,
    extraVolumes: [{ suffix: 'solution', target: '/solution', uid: 0, mode: 0o755, sizeMb: 256 }],
  });
  try {
    await container.start();
    await container.putArchive(
      await repositoryTar(options.repo, uid, join(tmpdir(), 'agentrl-harbor-repos'), name, options.executables),
      {
        path: repoPath,
      },
    );
    const solution = Object.entries(options.solution).map(([path, content]) => ({
      path,
      content,
      mode: path.endsWith('.sh') ? 0o755 : 0o644,
    }));
    await container.putArchive(await buildTar(solution, { uid: 0, gid: 0 }), { path: '/solution' });
    const env = scriptEnvironment(options.env);
    const seconds = String(Math.max(1, Math.ceil(options.timeoutMs / 1000)));
    const exec = await execCollect(
      docker,
      container,
      ['timeout', '-s', 'KILL', seconds, 'bash', '/solution/solve.sh'],
      {
        user: `${uid}:${uid}`,
        workingDir: options.workdir,
        env,
        maxBytes: 1024 * 1024,
      },
    );
    const output = `${exec.stdout}${exec.stderr}`;
    if (exec.exitCode !== 0) return { files: null, exitCode: exec.exitCode, output };
    const { tree } = await readFolderFiles(container, repoPath, (sandbox.workDiskMb + 16) * 1024 * 1024);
    return { files: tree, exitCode: 0, output };
  } finally {
    await removeSandbox(docker, name, volumes);
  }
}

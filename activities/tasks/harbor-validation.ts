/**
 * `task validate` for a Harbor folder: its image builds, the verifier gives the starting repository less
 * than the full reward, `solution/solve.sh` (run as the agent would, in a sandbox of the task's image
 * with no network) brings the repository to the full reward, `wrong-fix.patch` (if present) does not,
 * and `oracle.json` (if present) agrees with the solution. The verdict is recorded in
 * expected-tests.json with its digest, as for our own folders.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../../shared/config';
import { ExpectedTests } from '../../shared/task-spec';
import { auditOracleCalls } from '../checker/oracle-audit';
import { runVerifier, scriptEnvironment, type VerifierResult } from '../checker/verifier';
import {
  createHardenedContainer,
  decodeFiles,
  removeSandbox,
  repoPath,
  repositoryTar,
  sandboxFor,
  sandboxName,
} from '../sandbox/container';
import { buildTar, execCollect } from '../sandbox/docker';
import { localDeployment, localWorkflowPrefix } from '../sandbox/reaper';
import { applyPatch, loadTask, readTree, TaskError } from './task-loader';
import { harborTaskId, readHarborFolder } from './harbor';
import { harborImageNames, readFolderFiles } from '../sandbox/harbor-image';
import type { ValidationCheck, ValidationReport } from './validation-report';
import { validationDigest } from './validation-digest';

/** The code a Harbor task's verdict depends on besides the common validation code. */
const harborCode = [
  'activities/checker/verifier.ts',
  'activities/sandbox/harbor-image.ts',
  'activities/tasks/harbor.ts',
];

export async function validateHarborTask(
  dir: string,
  deps: {
    docker: Dockerode;
    sandbox: AgentrlConfig['sandbox'];
    testTimeoutMs?: number;
    onProgress?: (line: string) => void;
  },
  options: { check?: boolean; full?: boolean } = {},
): Promise<ValidationReport> {
  // the digest first: a task validated against this folder, image and verifier is not built or run again
  const root = resolve(dir);
  const expectedPath = join(root, 'expected-tests.json');
  const digest = validationDigest(root, harborImageNames(readHarborFolder(root, readTree)).image, harborCode);
  if (options.check && !options.full && existsSync(expectedPath)) {
    const recorded = ExpectedTests.safeParse(JSON.parse(readFileSync(expectedPath, 'utf8')));
    if (recorded.success && recorded.data.digest === digest)
      return {
        taskId: harborTaskId(root),
        dir: root,
        ok: true,
        checks: [
          {
            name: 'expected-tests.json was validated against this task, image and verifier',
            ok: true,
            detail: `digest ${digest.slice(7, 19)} matches; not run again (--full runs it)`,
          },
        ],
        expected: recorded.data,
        recorded: true,
        skipped: true,
      };
  }
  const loaded = await loadTask(root, deps.sandbox.image, {
    docker: deps.docker,
    requireExpected: false,
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
  });
  const { snapshot } = loaded;
  const folder = loaded.harbor!;
  const harbor = snapshot.harbor!;
  const id = snapshot.spec.id;
  if (folder.solveScript === null)
    throw new TaskError(
      `${join(loaded.dir, 'solution', 'solve.sh')}: missing (task validate needs a reference solution)`,
    );
  const workflowId = `${localWorkflowPrefix}validate:${id}:${randomBytes(4).toString('hex')}`;
  const common = {
    docker: deps.docker,
    sandbox: deps.sandbox,
    deployment: localDeployment,
    image: snapshot.spec.image,
    workflowId,
    episodeId: workflowId,
    runId: 'validate',
  };
  const prefix = sandboxName(localDeployment, workflowId);
  const tests = decodeFiles(harbor.tests);
  const verify = (suffix: string, files: Record<string, Buffer>) =>
    runVerifier({ ...common, name: `${prefix}-${suffix}`, files, verifier: harbor, tests });
  const repo = decodeFiles(snapshot.repo);
  const wrong = loaded.wrongFixPatch
    ? applyPatch(repo, loaded.wrongFixPatch, join(loaded.dir, 'wrong-fix.patch'))
    : null;
  const solvedTree = solveInSandbox({
    ...common,
    name: `${prefix}-solve`,
    repo,
    // solution/ as it is: solve.sh and anything it uses
    solution: decodeFiles(readTree(join(loaded.dir, 'solution'))),
    env: folder.solutionEnv,
    workdir: harbor.workdir,
    resources: harbor.resources,
    executables: harbor.executables ?? [],
    timeoutMs: folder.agentTimeoutMs ?? deps.testTimeoutMs ?? 600_000,
  });
  const calls = snapshot.oracleCalls ?? null;
  const audit = (suffix: string, files: Record<string, Buffer>) =>
    calls
      ? auditOracleCalls({
          ...common,
          name: `${prefix}-${suffix}`,
          files,
          calls,
          timeoutMs: deps.testTimeoutMs ?? 300_000,
        })
      : Promise.resolve(null);
  const [start, solved, wrongRun] = await Promise.all([
    verify('start', repo),
    solvedTree.then(async (solve) => ({
      solve,
      verdict: solve.files ? await verify('solution', solve.files) : null,
      audit: solve.files ? await audit('solution-oracle', solve.files) : null,
    })),
    wrong ? verify('wrong', wrong) : Promise.resolve(null),
  ]);
  const describe = (result: VerifierResult) =>
    result.reward === null ? `no reward (${result.problem}): ${lastLines(result.output)}` : `reward ${result.reward}`;
  const checks: ValidationCheck[] = [
    {
      name: 'the starting repository does not get the full reward',
      ok: (start.reward ?? 0) < 1,
      detail: describe(start),
    },
    {
      name: 'solution/solve.sh brings the repository to the full reward',
      ok: solved.verdict !== null && (solved.verdict.reward ?? 0) >= 1,
      detail: solved.verdict
        ? describe(solved.verdict)
        : `solve.sh failed (exit ${solved.solve.exitCode}): ${lastLines(solved.solve.output)}`,
    },
  ];
  if (wrongRun)
    checks.push({
      name: 'wrong-fix.patch does not get the full reward',
      ok: (wrongRun.reward ?? 0) < 1,
      detail: describe(wrongRun),
    });
  if (calls)
    checks.push({
      name: 'the reference solution matches every oracle call (isolated audit)',
      ok: solved.audit !== null && !solved.audit.timedOut && solved.audit.passed === solved.audit.total,
      detail: solved.audit
        ? `${solved.audit.passed} of ${solved.audit.total} calls match` +
          (solved.audit.failures[0]
            ? `; first miss: ${solved.audit.failures[0].call} expected ${solved.audit.failures[0].expected}, ` +
              `got ${solved.audit.failures[0].got}`
            : '')
        : 'not run',
    });
  const ok = checks.every((check) => check.ok);
  const expected: ExpectedTests = { visible: [], hidden: [], oracle: [] };
  const serialized = `${JSON.stringify({ ...expected, digest }, null, 2)}\n`;
  const current = existsSync(expectedPath) ? readFileSync(expectedPath, 'utf8') : null;
  let recorded = current === serialized;
  if (options.check)
    checks.push({
      name: 'expected-tests.json records this validation',
      ok: recorded,
      detail: current === null ? 'missing' : recorded ? 'up to date' : 'stale: run task validate without --check',
    });
  else if (ok && !recorded) {
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

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-6).join(' | ').slice(-600);
}

/**
 * Runs solve.sh as the agent would: a sandbox of the task's image with the starting repository, the
 * solution at /solution, the agent's uid, no network; returns the repository's files afterwards.
 */
async function solveInSandbox(options: {
  docker: Dockerode;
  sandbox: AgentrlConfig['sandbox'];
  deployment: string;
  image: string;
  workflowId: string;
  episodeId: string;
  runId: string;
  name: string;
  repo: Record<string, Buffer>;
  solution: Record<string, Buffer>;
  env: Record<string, string>;
  workdir: string;
  resources: Parameters<typeof sandboxFor>[1];
  executables: readonly string[];
  timeoutMs: number;
}): Promise<{ files: Record<string, Buffer> | null; exitCode: number | null; output: string }> {
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

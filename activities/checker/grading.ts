import type Dockerode from 'dockerode';
import { z } from 'zod';
import type { AgentrlConfig } from '../../shared/contracts/config';
import { parseJson } from '../store/files';
import {
  createHardenedContainer,
  mountedVolumes,
  removeSandbox,
  repoPath,
  spoolPath,
  spoolTar,
  writeTree,
  type ContainerOptions,
} from '../sandbox/container';
import { buildTar, execCollect, isNotFound } from '../sandbox/docker';
import { scoringRecipe, type SandboxPool } from '../sandbox/pool';

export const TestOutcomes = ['passed', 'failed', 'skipped', 'error', 'xfailed', 'xpassed', 'collected'] as const;
export type TestOutcome = (typeof TestOutcomes)[number];

/** The one JSON line the grade harness (activities/checker/python/grade-harness.py) prints. */
export const HarnessResult = z.object({
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  report: z
    .object({
      tests: z.array(
        z.object({
          nodeid: z.string(),
          outcome: z.enum(TestOutcomes),
          /** where a failed test failed (repository-relative path, 1-based line, the exception's text) */
          crash: z.object({ path: z.string(), line: z.number().int(), message: z.string() }).optional(),
          /** with `traceLines`: the lines of its own file the test's call ran (validation runs only) */
          lines: z.array(z.number().int()).optional(),
          /** a doctest's examples, each as a digest (source, expected output, expected exception) */
          examples: z.array(z.string()).optional(),
        }),
      ),
      collectErrors: z.array(z.string()),
    })
    .nullable(),
  /** the report was over its bound (64 MiB raw, 80 MiB printed): `report` is null, the run scores 0 */
  reportOverLimit: z.boolean().optional(),
  output: z.string(),
  outputTruncated: z.boolean(),
  durationMs: z.number(),
});
export type HarnessResult = z.infer<typeof HarnessResult>;

/** The most of the harness's one line the worker reads: above the harness's own bound (80 MiB), so a line is whole. */
export const harnessLineBytes = 96 * 1024 * 1024;

export interface GradeTreeOptions {
  docker: Dockerode;
  sandbox: AgentrlConfig['sandbox'];
  name: string;
  deployment: string;
  role: 'grader' | 'audit';
  image: string;
  workflowId: string;
  episodeId: string;
  runId: string;
  files: Record<string, Buffer>;
  timeoutMs: number;
  collectOnly?: boolean;
  /** record the lines each test ran in its own file (for the reference solution's run at validation) */
  traceLines?: boolean;
  /** TEST ONLY: the report written with the json.dumps and os.write the tested code can replace */
  unsafeReportChannel?: boolean;
  /** run only these test files (a task that lists its tests: the files of its listed ids), not the whole suite */
  testPaths?: readonly string[];
  /**
   * a Harbor verifier's tests, placed at /tests (root's, read-only) and run from there: the harness's rootdir is
   * /tests, the repository (the working folder) stays first on sys.path, and the repository's pytest configuration is
   * not read, as for `cd WORKDIR && python3 -m pytest /tests/...`; `testPaths` are then relative to /tests
   */
  tests?: Record<string, Buffer>;
  /** more environment for the tests (a verifier's [verifier] env) */
  env?: Record<string, string>;
  /** the worker's warm pool: a fresh grader container made ahead of need, when it has one (sandbox/pool.ts) */
  pool?: SandboxPool;
}

/**
 * Runs the tests of a repository tree in a fresh hardened container through the grade harness:
 * the runner is imported before any repository code, and the report comes back through a pipe
 * to a root process that the tested code cannot write to.
 */
export async function gradeTree(options: GradeTreeOptions): Promise<HarnessResult> {
  const { docker, name } = options;
  await removeSandbox(docker, name, [`${name}-work`, `${name}-spool`, `${name}-tests`]);
  const uid = options.sandbox.uid;
  // a verifier's tests lie in /tests, out of the repository: the repository is then the tests' user's, as test.sh
  // has it (code that writes beside itself works the same in both runs)
  const verifierMode = { extraVolumes: [verifierTestsVolume], workRoot: { uid, gid: uid, mode: 0o755 } };
  const { container, volumes, workDir, pooled } = await freshScoringContainer({
    ...options,
    ...(options.tests ? verifierMode : {}),
  });
  try {
    const entries = Object.entries(options.files).map(([path, content]) => ({ path, content }));
    // owned by root and read-only for the tests' user: code under test cannot rewrite a test file
    // that pytest has not collected yet
    if (options.tests) await container.putArchive(await buildTar(entries, { uid, gid: uid }), { path: repoPath });
    else await writeTree(container, workDir, repoPath, entries);
    if (options.tests)
      await writeTree(
        container,
        null,
        verifierTestsPath,
        Object.entries(options.tests).map(([path, content]) => ({ path, content })),
      );
    const testRoot = options.tests ? verifierTestsPath : repoPath;
    const args = [
      'python3',
      '-I',
      `${spoolPath}/grade-harness.py`,
      '--repo',
      repoPath,
      '--uid',
      String(options.sandbox.uid),
      '--gid',
      String(options.sandbox.uid),
      '--timeout',
      String(Math.max(1, Math.ceil(options.timeoutMs / 1000))),
    ];
    if (options.collectOnly) args.push('--collect-only');
    if (options.traceLines) args.push('--trace-lines');
    if (options.unsafeReportChannel) args.push('--unsafe-report-channel');
    if (options.tests) args.push('--rootdir', verifierTestsPath, '--ignore-repo-config');
    if (options.testPaths?.length) args.push('--', ...options.testPaths.map((path) => `${testRoot}/${path}`));
    const exec = await execCollect(docker, container, args, {
      user: '0:0',
      workingDir: '/',
      maxBytes: harnessLineBytes,
      ...(options.env ? { env: Object.entries(options.env).map(([key, value]) => `${key}=${value}`) } : {}),
    });
    const line = exec.stdout.trim().split('\n').pop() ?? '';
    try {
      return parseJson(HarnessResult, line, 'grade harness result');
    } catch {
      throw new GraderError(
        `grade harness printed no result (exit ${exec.exitCode}): ${(exec.stderr || exec.stdout).slice(-800)}`,
      );
    }
  } finally {
    // a pooled grader goes while the episode goes on (the reaper takes one a crash left, by its claim record)
    if (pooled) void removeSandbox(docker, name, volumes).catch(() => undefined);
    else await removeSandbox(docker, name, volumes);
  }
}

/** Where a Harbor verifier's tests lie in the containers that run them (never in the agent's). */
export const verifierTestsPath = '/tests';
/** The volume holding them: root's, so nothing the tests run can change them. */
export const verifierTestsVolume = { suffix: 'tests', target: verifierTestsPath, uid: 0, mode: 0o755, sizeMb: 256 };

/**
 * A fresh, started scoring container with the helper scripts in, under `options.name`: claimed from the worker's
 * pool when it has one of this image and role (never used before, made for this role), else created now (always
 * when it needs more volumes than the pool's containers have).
 */
export async function freshScoringContainer(
  options: Pick<
    GradeTreeOptions,
    'docker' | 'name' | 'deployment' | 'image' | 'workflowId' | 'episodeId' | 'runId' | 'sandbox' | 'pool'
  > & {
    role: 'grader' | 'audit';
    extraVolumes?: ContainerOptions['extraVolumes'];
    workRoot?: ContainerOptions['workRoot'];
  },
): Promise<{
  container: Dockerode.Container;
  volumes: string[];
  workDir: string | null;
  spoolDir: string | null;
  pooled: boolean;
}> {
  const { docker, name, pool } = options;
  if (pool && !options.extraVolumes?.length) {
    const recipe = scoringRecipe(docker, options);
    const claimed = await pool.claim(recipe.key, name, {
      workflowId: options.workflowId,
      episodeId: options.episodeId,
      runId: options.runId,
    });
    pool.want(recipe);
    if (claimed)
      return {
        container: docker.getContainer(name),
        volumes: claimed.volumes,
        workDir: claimed.workDir,
        spoolDir: claimed.spoolDir,
        pooled: true,
      };
  }
  const { container, volumes } = await createHardenedContainer(docker, {
    name,
    deployment: options.deployment,
    image: options.image,
    workflowId: options.workflowId,
    episodeId: options.episodeId,
    runId: options.runId,
    role: options.role,
    sandbox: options.sandbox,
    ...(options.extraVolumes ? { extraVolumes: options.extraVolumes } : {}),
    ...(options.workRoot ? { workRoot: options.workRoot } : {}),
  });
  try {
    await container.start();
    await container.putArchive(await spoolTar(), { path: spoolPath });
  } catch (error) {
    await removeSandbox(docker, name, volumes).catch(() => undefined);
    throw error;
  }
  return { container, volumes, workDir: null, spoolDir: null, pooled: false };
}

/** The name of a scoring attempt's container for one run of its checker (a retry's never meets a stale attempt's). */
export function scoringContainerName(sandboxName: string, run: string, attempt: number): string {
  return `${sandboxName}-${run}-${attempt}`;
}

/** Removes, with their volumes, the containers one attempt of a scoring made (scoringContainerName), pooled or not. */
export async function removeScoringContainers(docker: Dockerode, sandboxName: string, attempt: number): Promise<void> {
  const prefix = `${sandboxName}-`;
  const suffix = `-${attempt}`;
  for (const info of await docker.listContainers({ all: true, filters: { name: [prefix] } })) {
    const name = info.Names.map((named) => named.replace(/^\//, '')).find(
      (named) => named.startsWith(prefix) && named.endsWith(suffix),
    );
    if (!name) continue;
    let volumes: string[];
    try {
      volumes = mountedVolumes(await docker.getContainer(info.Id).inspect());
    } catch (error) {
      if (isNotFound(error)) continue;
      throw error;
    }
    await removeSandbox(docker, name, volumes);
  }
}

export class GraderError extends Error {
  override name = 'GraderError';
}

/**
 * True only if pytest exited 0 and every expected test id is in the report and passed; anything else
 * (skipped, missing, errored, a timeout, no report, a non-zero exit) fails. For a run holding exactly
 * the expected tests.
 */
export function allExpectedPassed(result: HarnessResult, expected: readonly string[]): boolean {
  return result.exitCode === 0 && expectedOutcomesPassed(result, expected);
}

/** True if every expected id is in the report and passed, whatever other tests of the run did. */
export function expectedOutcomesPassed(result: HarnessResult, expected: readonly string[]): boolean {
  if (result.timedOut || !result.report || expected.length === 0) return false;
  const outcomes = new Map(result.report.tests.map((test) => [test.nodeid, test.outcome]));
  return expected.every((id) => outcomes.get(id) === 'passed');
}

/**
 * The doctests of a run that lost examples the reference's have (expected-tests.json `doctests`): a
 * docstring's examples are the test, and the agent's copy of the file is graded, so an example edited
 * or deleted away is a test edit. Each is named with what is missing; a doctest the run does not report
 * is left to the outcome check.
 */
export function editedDoctests(result: HarnessResult, recorded: Record<string, readonly string[]>): string[] {
  const reported = new Map((result.report?.tests ?? []).map((test) => [test.nodeid, test.examples] as const));
  const edited: string[] = [];
  for (const [id, digests] of Object.entries(recorded)) {
    if (!reported.has(id)) continue;
    const left = [...(reported.get(id) ?? [])];
    const missing = digests.filter((digest) => {
      const at = left.indexOf(digest);
      if (at < 0) return true;
      left.splice(at, 1);
      return false;
    });
    if (missing.length) edited.push(`${id} (${missing.length} of ${digests.length} examples changed or removed)`);
  }
  return edited;
}

/** The test files holding these node ids, and the extra ones, sorted and once each. */
export function testFilesOf(ids: readonly string[], extra: readonly string[] = []): string[] {
  return [...new Set([...ids.map((id) => id.split('::')[0]!), ...extra])].sort();
}

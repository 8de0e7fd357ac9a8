import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../shared/config';
import type { TamperFinding } from '../shared/episode';
import { buildTar, execCollect } from './docker-util';
import { createHardenedContainer, removeSandbox, repoPath, sandboxDir, spoolPath, spoolTar } from './sandbox-lifecycle';

export type TestOutcome = 'passed' | 'failed' | 'skipped' | 'error' | 'xfailed' | 'xpassed' | 'collected';

/** The one JSON line the grade harness prints. */
export interface HarnessResult {
  exitCode: number | null;
  timedOut: boolean;
  report: { tests: { nodeid: string; outcome: TestOutcome }[]; collectErrors: string[] } | null;
  output: string;
  outputTruncated: boolean;
  durationMs: number;
}

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
}

/**
 * Runs the tests of a repository tree in a fresh hardened container through the grade harness:
 * the runner is imported before any repository code, and the report comes back through a pipe
 * to a root process that the tested code cannot write to.
 */
export async function gradeTree(options: GradeTreeOptions): Promise<HarnessResult> {
  const { docker, name } = options;
  await removeSandbox(docker, name, [`${name}-work`, `${name}-spool`]);
  const { container, volumes } = await createHardenedContainer(docker, {
    name, deployment: options.deployment, image: options.image, workflowId: options.workflowId, episodeId: options.episodeId, runId: options.runId, role: options.role, sandbox: options.sandbox,
  });
  try {
    await container.start();
    await container.putArchive(await spoolTar(), { path: spoolPath });
    const entries = Object.entries(options.files).map(([path, content]) => ({ path, content }));
    // owned by root and read-only for the tests' user: code under test cannot rewrite a test file
    // that pytest has not collected yet
    await container.putArchive(await buildTar(entries, { uid: 0, gid: 0 }), { path: repoPath });
    const args = ['python3', '-I', `${spoolPath}/grade-harness.py`, '--repo', repoPath, '--uid', String(options.sandbox.uid), '--gid', String(options.sandbox.uid),
      '--timeout', String(Math.max(1, Math.ceil(options.timeoutMs / 1000)))];
    if (options.collectOnly) args.push('--collect-only');
    const exec = await execCollect(docker, container, args, { user: '0:0', workingDir: '/' });
    const line = exec.stdout.trim().split('\n').pop() ?? '';
    try {
      return JSON.parse(line) as HarnessResult;
    } catch {
      throw new GraderError(`grade harness printed no result (exit ${exec.exitCode}): ${(exec.stderr || exec.stdout).slice(-800)}`);
    }
  } finally {
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

/** A change of the agent's tree against the pristine repository. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before: string | null;
  after: string | null;
  /** the new content when it is not valid UTF-8 */
  afterBase64?: string;
  protected: boolean;
  symlink: boolean;
}

/** Runs the tamper detector (pure static analysis of the diff; no submitted code runs). */
export async function detectTamper(changes: readonly FileChange[]): Promise<TamperFinding[]> {
  const script = join(sandboxDir, 'detect-tamper.py');
  const kindsFile = join(sandboxDir, '..', 'shared', 'tamper-kinds.json');
  const output = await new Promise<string>((resolveRun, reject) => {
    const child = spawn('python3', ['-I', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveRun(stdout) : reject(new GraderError(`tamper detector failed (exit ${code}): ${stderr.slice(-500)}`))));
    child.stdin.end(JSON.stringify({ changes, kindsFile }));
  });
  return (JSON.parse(output) as { findings: TamperFinding[] }).findings;
}

// Workers in processes of their own, as `npx agentrl worker` runs them: a test can kill one with kill -9.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { runningServices, type RecordedService } from '../../cli/services/records';
import { projectRoot } from '../../workers/config';
import { waitFor } from './temporal';

/**
 * A worker process for `address`, with its state (journal) in `stateDir`, on `taskQueue`; its artifact
 * store is `artifactsDir` (what workers on several hosts share) or the state folder's own.
 */
export function spawnWorker(
  address: string,
  stateDir: string,
  taskQueue: string,
  artifactsDir?: string,
  /** more of its environment: a second host's DOCKER_HOST, AGENTRL_STORE, AGENTRL_MAX_SANDBOXES */
  extraEnv: NodeJS.ProcessEnv = {},
): ChildProcess {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), 'worker', '--task-queue', taskQueue], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      AGENTRL_STATE_DIR: stateDir,
      ...(artifactsDir ? { AGENTRL_ARTIFACTS_DIR: artifactsDir } : {}),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npx agentrl ARGS` run to its exit without blocking this process, as spawnSync would: a child of the test (a
 * foreground worker, `up`) that exits meanwhile must be reaped, for a zombie still answers kill(pid, 0) and
 * `server stop` would wait its whole 20 s grace for a process that is gone. Killed after `timeoutMs`.
 */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliRun> {
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const status = await new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
  clearTimeout(timer);
  return { status, stdout, stderr };
}

/** SIGTERM, SIGKILL after 30 s, and the pipes closed: a worker left running must not hold the test file open. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** kill -9, and wait until the process is gone. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    child.kill('SIGKILL');
    await exited;
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Waits until the worker process `pid` has recorded itself ready in its state folder. */
export async function waitReady(stateDir: string, pid: number): Promise<void> {
  await waitFor(
    `worker ${pid} ready`,
    () => Promise.resolve(runningServices({ stateDir }, 'worker').some((record) => record.pid === pid)),
    120_000,
  );
}

/**
 * The record of the running process a state folder records as `name` (cli/services/records.ts): the one
 * whose pid is `pid`, else the only one; throws naming what is recorded otherwise.
 */
export function serviceRecord(stateDir: string, name: string, pid?: number): RecordedService {
  const records = runningServices({ stateDir }, name);
  const found =
    pid === undefined ? (records.length === 1 ? records[0] : undefined) : records.find((r) => r.pid === pid);
  if (!found) {
    const recorded = records.map((record) => record.pid).join(', ') || 'none';
    throw new Error(`${stateDir}: no single running ${name}${pid ? ` ${pid}` : ''} (recorded: ${recorded})`);
  }
  return found;
}

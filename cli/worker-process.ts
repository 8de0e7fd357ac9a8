import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { atomicWrite } from '../activities/artifact-store';
import { codeVersion } from '../workers/code-version';
import { projectRoot, type LoadedConfig } from '../workers/config';
import { isAlive } from './dev-server';

/** What a running worker announces in the state folder. */
export interface WorkerRecord {
  pid: number;
  codeVersion: string;
  address: string;
  taskQueue: string;
  hostId: string;
  startedAt: string;
}

const recordFile = (config: LoadedConfig) => join(config.stateDir, 'worker.json');

export function readWorkerRecord(config: LoadedConfig): WorkerRecord | null {
  const file = recordFile(config);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as WorkerRecord;
  } catch {
    return null;
  }
}

export async function writeWorkerRecord(config: LoadedConfig, record: WorkerRecord): Promise<void> {
  await atomicWrite(recordFile(config), JSON.stringify(record, null, 2));
}

/** Removes the record if it still names this process. */
export function clearWorkerRecord(config: LoadedConfig, pid: number): void {
  if (readWorkerRecord(config)?.pid === pid) rmSync(recordFile(config), { force: true });
}

/**
 * Finds a worker running this checkout's code, or starts one in the background.
 * A worker running older code (or serving another server) is stopped and replaced, never reused.
 */
export async function ensureWorker(config: LoadedConfig, taskQueue: string, log: (line: string) => void): Promise<WorkerRecord> {
  const version = codeVersion();
  // one CLI at a time decides: two would each start a worker and one would be left untracked
  const release = await takeLock(join(config.stateDir, 'worker.lock'));
  try {
    return await findOrStart(config, taskQueue, version, log);
  } finally {
    release();
  }
}

async function findOrStart(config: LoadedConfig, taskQueue: string, version: string, log: (line: string) => void): Promise<WorkerRecord> {
  const current = readWorkerRecord(config);
  if (current && isAlive(current.pid)) {
    if (current.codeVersion === version && current.address === config.temporal.address && current.taskQueue === taskQueue) return current;
    log(`replacing worker ${current.pid}: it runs code ${current.codeVersion}, this checkout is ${version}`);
    await stopProcess(current.pid);
  }
  mkdirSync(config.stateDir, { recursive: true });
  const logFile = join(config.stateDir, 'worker.log');
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), 'worker', '--task-queue', taskQueue], {
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  log(`starting a worker (pid ${child.pid}, log ${logFile})`);
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const record = readWorkerRecord(config);
    if (record && record.pid === child.pid) return record;
    if (child.exitCode !== null || !isAlive(child.pid!)) break;
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 200));
  }
  throw new Error(`the worker did not start; see ${logFile}:\n${readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n')}`);
}

/** An exclusive lock file holding its owner's pid; a lock whose owner died is taken over. */
export async function takeLock(path: string): Promise<() => void> {
  mkdirSync(dirname(path), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (!owner || !isAlive(owner)) rmSync(path, { force: true });
      else if (Date.now() > deadline) throw new Error(`${path} is held by process ${owner}`);
      else await new Promise((resolveSleep) => setTimeout(resolveSleep, 200));
    }
  }
}

/** Stops the background worker, if any. */
export async function stopWorker(config: LoadedConfig): Promise<boolean> {
  const current = readWorkerRecord(config);
  if (!current || !isAlive(current.pid)) return false;
  await stopProcess(current.pid);
  clearWorkerRecord(config, current.pid);
  return true;
}

export async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  // a graceful shutdown lets running activities finish; after 20 s it is killed
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

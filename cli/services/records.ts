import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWrite } from '../../activities/store/files';
import type { LoadedConfig } from '../../workers/config';
import { processIdentity } from './processes';

/**
 * The records of the services: one file per process (`<stateDir>/services/<name>.<pid>.json`), so a
 * second process of a name (a foreground worker beside a background one) never overwrites the first's
 * record and leaves it running untracked. A record names its process by pid and start time: a pid
 * the kernel gave to another process since is recognised as such, and never stopped.
 */

/** What a service was started with besides its code, by name (address, queue, port, store, ...). */
export const ServiceSettings = z.record(z.string(), z.string());
export type ServiceSettings = z.infer<typeof ServiceSettings>;

export const ServiceRecord = z.object({
  name: z.string(),
  pid: z.number().int().positive(),
  /** when the process started, as the kernel counts: with the pid, it tells this process from a later one */
  processStart: z.string(),
  /** its command line: with the start time, what must still match for the pid to be this process */
  command: z.string(),
  /** started by the CLI in the background (stopped and replaced freely) or by the user in the foreground */
  origin: z.enum(['background', 'foreground']),
  /** the code it runs: a service whose code differs from the checkout's is not reused */
  codeVersion: z.string(),
  /** what else it was started with: a service with other settings is not reused */
  settings: ServiceSettings,
  startedAt: z.string(),
  /** the episode worker's sandbox host */
  hostId: z.string().optional(),
});
export type ServiceRecord = z.infer<typeof ServiceRecord>;

/** A record as read, with the file it was read from. */
export type RecordedService = ServiceRecord & { file: string };

/** Where the records are: a host's state folder (its journal's, its services'). */
export type StateFolder = Pick<LoadedConfig, 'stateDir'>;

export const servicesDir = (config: StateFolder): string => join(config.stateDir, 'services');
export const serviceLog = (config: StateFolder, name: string): string => join(config.stateDir, `${name}.log`);
const recordFile = (config: StateFolder, name: string, pid: number) => join(servicesDir(config), `${name}.${pid}.json`);

/** Writes (or rewrites) the record of one process. */
export async function writeServiceRecord(config: StateFolder, record: ServiceRecord): Promise<RecordedService> {
  const file = recordFile(config, record.name, record.pid);
  await atomicWrite(file, JSON.stringify(ServiceRecord.parse(record), null, 2));
  return { ...record, file };
}

/** Removes a record (the process it names is not touched). */
export function removeServiceRecord(record: RecordedService): void {
  rmSync(record.file, { force: true });
}

/**
 * The records in the state folder, of one name or all, whether their processes run or not. Records of
 * the older layout (`<stateDir>/<name>.json` or `<name>.pid`, one per name) are read too, as code
 * `unknown`, so the process one names is replaced or stopped like any other, not orphaned.
 */
export function readServiceRecords(config: StateFolder, name?: string): RecordedService[] {
  const records: RecordedService[] = [];
  const dir = servicesDir(config);
  for (const file of existsSync(dir) ? readdirSync(dir) : []) {
    const match = /^(.+)\.(\d+)\.json$/.exec(file);
    if (!match || (name !== undefined && match[1] !== name)) continue;
    const parsed = ServiceRecord.safeParse(readJson(join(dir, file)));
    if (parsed.success) records.push({ ...parsed.data, file: join(dir, file) });
  }
  for (const file of existsSync(config.stateDir) ? readdirSync(config.stateDir) : []) {
    const match = olderLayout.exec(file);
    if (!match || (name !== undefined && match[1] !== name)) continue;
    const older = olderRecord(match[1]!, join(config.stateDir, file), match[2] === 'pid');
    if (older) records.push(older);
  }
  return records.sort((a, b) => a.name.localeCompare(b.name) || a.pid - b.pid);
}

// only the names the services had then: other files of the state folder (the S3 server's pid file) are not records
const olderLayout = /^(temporal|worker|trainer|up|policy-server-\d+|model-server-\d+)\.(json|pid)$/;

function olderRecord(name: string, file: string, pidFile: boolean): RecordedService | null {
  const raw = pidFile ? { pid: Number(readFileSync(file, 'utf8')) } : readJson(file);
  const pid = (raw as { pid?: unknown } | null)?.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return null;
  const { codeVersion, startedAt } = raw as { codeVersion?: unknown; startedAt?: unknown };
  return {
    name,
    pid,
    processStart: '',
    command: '',
    origin: 'background',
    codeVersion: typeof codeVersion === 'string' ? codeVersion : 'unknown',
    settings: { record: 'of an older layout' },
    startedAt: typeof startedAt === 'string' ? startedAt : '',
    file,
  };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Whether the process a record names still runs: the same pid and start time. A record of the older
 * layout has no start time: its process must at least look like one of ours by its command line.
 */
export function isRunning(record: ServiceRecord): boolean {
  const identity = processIdentity(record.pid);
  if (!identity) return false;
  if (record.processStart) return identity.start === record.processStart && identity.command === record.command;
  return /agentrl\.js|agentrl_trainer|policy-server\.ts|model-server\.ts|server start-dev/.test(identity.command);
}

/** The records whose processes run, of one name or all; the others' records are removed. */
export function runningServices(config: StateFolder, name?: string): RecordedService[] {
  return readServiceRecords(config, name).filter((record) => {
    if (isRunning(record)) return true;
    removeServiceRecord(record);
    return false;
  });
}

/**
 * A record of `pid` as it runs now (its start time and command line read from the kernel); null when
 * no such process runs.
 */
export function recordOf(
  pid: number,
  fields: Omit<ServiceRecord, 'pid' | 'processStart' | 'command' | 'startedAt'> & { startedAt?: string },
): ServiceRecord | null {
  const identity = processIdentity(pid);
  if (!identity) return null;
  return {
    ...fields,
    pid,
    processStart: identity.start,
    command: identity.command,
    startedAt: fields.startedAt ?? new Date().toISOString(),
  };
}

/**
 * Records the calling process (a foreground `worker` or `up`), keeping what a background start already
 * recorded of it (its origin); returns what removes the record again.
 */
export async function recordSelf(
  config: StateFolder,
  fields: Omit<ServiceRecord, 'pid' | 'processStart' | 'command' | 'startedAt' | 'origin'>,
): Promise<() => void> {
  const file = recordFile(config, fields.name, process.pid);
  const existing = ServiceRecord.safeParse(readJson(file));
  const record = recordOf(process.pid, {
    ...fields,
    origin: existing.success ? existing.data.origin : 'foreground',
    ...(existing.success ? { startedAt: existing.data.startedAt } : {}),
  });
  if (record) await writeServiceRecord(config, record);
  return () => rmSync(file, { force: true });
}

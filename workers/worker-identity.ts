import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * The Temporal identity of an episode worker: `agentrl-<pid>@<machine> host <hostId> store <fingerprint>`.
 * Whoever lists a task queue's pollers (the CLI, before it runs anything on the queue) learns from it
 * which process polls, on which machine, and whether it writes to the same artifact store: the
 * fingerprint of its store's location (activities/store/open-store.ts `storeLocation`), short because
 * the identity is written into the history's events.
 */
export interface WorkerIdentity {
  pid: number;
  machine: string;
  hostId: string;
  store: string;
}

export const storeFingerprint = (location: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(location).sort(([a], [b]) => a.localeCompare(b))))
    .digest('hex')
    .slice(0, 12);

export const workerIdentity = (pid: number, hostId: string, location: Record<string, string>): string =>
  `agentrl-${pid}@${hostname()} host ${hostId} store ${storeFingerprint(location)}`;

/** The parts of an identity `workerIdentity` wrote; null for any other (an older worker's, another program's). */
export function parseWorkerIdentity(identity: string): WorkerIdentity | null {
  const match = /^agentrl-(\d+)@(\S+) host (\S+) store ([0-9a-f]+)$/.exec(identity);
  return match ? { pid: Number(match[1]), machine: match[2]!, hostId: match[3]!, store: match[4]! } : null;
}

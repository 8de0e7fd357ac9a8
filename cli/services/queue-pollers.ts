import { hostname } from 'node:os';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { storeLocation } from '../../activities/store/open-store';
import { temporalConnection, type LoadedConfig } from '../../workers/config';
import { parseWorkerIdentity, storeFingerprint } from '../../workers/worker-identity';
import { isAlive, processIdentity } from './processes';
import { runningServices } from './records';

/**
 * The workers that poll a task queue without a record in this state folder: those of another
 * checkout, another state folder or another machine. Temporal hands each of them a share of the
 * queue's tasks, whatever store it writes to, and the CLI cannot stop them: it can only see them, by
 * their identity (workers/worker-identity.ts), before it runs anything on the queue.
 */

/** A worker polls at least this often (a long poll lasts about a minute), so one silent longer is gone. */
const pollIntervalMs = 75_000;

export interface OtherWorker {
  identity: string;
  /** whether it writes to this command's store; null when its identity does not say (older code, another program) */
  sameStore: boolean | null;
  /** on this machine: its command line (which checkout it runs from) */
  command: string | null;
  secondsSincePoll: number;
}

/** The other workers polling `taskQueue` now, as the server lists them (a stopped one on this machine is left out). */
export async function otherWorkers(
  config: LoadedConfig,
  taskQueue: string,
  workerName: string,
): Promise<OtherWorker[]> {
  const connection = await Connection.connect({ ...temporalConnection(config), connectTimeout: 5_000 });
  const lastPolls = new Map<string, number>();
  try {
    const { TaskQueueType } = temporal.api.enums.v1;
    for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: config.temporal.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType,
      });
      for (const { identity, lastAccessTime } of pollers ?? []) {
        const polledMs = Number(lastAccessTime?.seconds ?? 0) * 1000 + (lastAccessTime?.nanos ?? 0) / 1e6;
        if (identity) lastPolls.set(identity, Math.max(polledMs, lastPolls.get(identity) ?? 0));
      }
    }
  } finally {
    await connection.close();
  }
  const ours = new Set(runningServices(config, workerName).map((record) => record.pid));
  const mine = storeFingerprint(storeLocation(config));
  const machine = hostname();
  return [...lastPolls].flatMap(([identity, polledMs]) => {
    const parsed = parseWorkerIdentity(identity);
    const here = parsed !== null && parsed.machine === machine;
    // on this machine the pid says whether it still runs (the server lists a stopped worker for minutes)
    if (here && (ours.has(parsed.pid) || !isAlive(parsed.pid))) return [];
    if (!here && Date.now() - polledMs > pollIntervalMs) return [];
    return [
      {
        identity,
        sameStore: parsed ? parsed.store === mine : null,
        command: here ? (processIdentity(parsed.pid)?.command ?? null) : null,
        secondsSincePoll: Math.max(0, Math.round((Date.now() - polledMs) / 1000)),
      },
    ];
  });
}

/**
 * Refuses to run on a queue that a worker of another checkout, state folder or machine polls while it
 * writes to another store (it would take part of the tasks and put their artifacts elsewhere); warns
 * about one whose store its identity does not say.
 */
export async function refuseOtherStores(
  config: LoadedConfig,
  taskQueue: string,
  workerName: string,
  log: (line: string) => void,
): Promise<void> {
  let others: OtherWorker[];
  try {
    others = await otherWorkers(config, taskQueue, workerName);
  } catch (error) {
    // a server that does not list pollers (permissions, an older version) is no reason not to run
    log(`could not list the workers polling ${taskQueue}: ${(error as Error).message.split('\n')[0]}`);
    return;
  }
  const describe = (other: OtherWorker) =>
    `${other.identity}${other.command ? ` (${other.command})` : ''}, last polled ${other.secondsSincePoll} s ago`;
  for (const other of others.filter((worker) => worker.sameStore === null))
    log(
      `a worker not recorded here polls ${taskQueue} on ${config.temporal.address}: ${describe(other)}; it takes ` +
        `part of this command's tasks, and its identity does not say which store it writes to`,
    );
  const elsewhere = others.filter((worker) => worker.sameStore === false);
  if (elsewhere.length === 0) return;
  throw new Error(
    `${elsewhere.length === 1 ? 'a worker' : `${elsewhere.length} workers`} of another checkout, state folder or ` +
      `machine poll${elsewhere.length === 1 ? 's' : ''} ${taskQueue} on ${config.temporal.address} and write to ` +
      `another store than this command's (${storeLocation(config).store}): ${elsewhere.map(describe).join('; ')}. ` +
      `They would take part of this command's tasks and put their artifacts there. Stop them (npx agentrl server ` +
      `stop where they were started), or run this checkout on a Temporal server or namespace of its own ` +
      `(temporal.address in temporal.yaml, or TEMPORAL_ADDRESS)`,
  );
}

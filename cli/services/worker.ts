import { join } from 'node:path';
import { storeLocation } from '../../activities/store/open-store';
import { codeVersion } from '../../workers/code-version';
import { projectRoot, type LoadedConfig } from '../../workers/config';
import type { ServiceRecord, ServiceSettings } from './records';
import { refuseOtherStores } from './queue-pollers';
import { ensureService } from './supervisor';

/** The episode worker: the episode and training-run workflows, sandbox acquisition, this host's queue. */

export const workerName = 'worker';

/** The line a worker prints once every queue polls (the supervisor waits for it). */
export const workerReadyLine = (pid: number) => `worker ${pid} ready`;

/**
 * Finds a worker running this checkout's code for this server, queue and store, or starts one in the
 * background. A background worker running older code or other settings (another store) is stopped
 * and replaced; a foreground one (`npx agentrl worker`) that would take this queue's tasks with other
 * code or settings makes this throw, naming both, as does a worker of another checkout, state folder or
 * machine on the same queue that writes to another store (queue-pollers.ts).
 */
export async function ensureWorker(
  config: LoadedConfig,
  taskQueue: string,
  log: (line: string) => void,
): Promise<ServiceRecord> {
  await refuseOtherStores(config, taskQueue, workerName, log);
  return ensureService(
    config,
    {
      name: workerName,
      codeVersion: codeVersion(),
      settings: workerSettings(config, taskQueue),
      sharedBy: ['temporal', 'namespace', 'taskQueue'],
      command: process.execPath,
      args: [join(projectRoot, 'bin', 'agentrl.js'), 'worker', '--task-queue', taskQueue],
      // the caller's directory and the configuration it loaded (a relative AGENTRL_CONFIG made absolute)
      env: config.configPath ? { AGENTRL_CONFIG: config.configPath } : {},
      ready: (text, pid) => Promise.resolve(text.includes(workerReadyLine(pid))),
    },
    (line) => log(line.replace(/^starting worker/, 'starting a worker')),
  );
}

/** What a worker is started with besides its code: whose tasks it takes, and where their artifacts go. */
export const workerSettings = (
  config: LoadedConfig,
  taskQueue: string,
  env: NodeJS.ProcessEnv = process.env,
): ServiceSettings => ({
  temporal: config.temporal.address,
  namespace: config.temporal.namespace,
  taskQueue,
  ...storeLocation(config, env),
});

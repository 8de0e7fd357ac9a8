/**
 * Supervision of the background services while the CLI follows a run: every few seconds each
 * service is checked (its process alive, its port answering), and one that is down is started again
 * through the same `ensure…` function that started it, with backoff between failed tries. Every
 * restart is logged and counted. A restarted policy server serves its last published policy again
 * (its state file), a restarted trainer worker picks up the pending step (steps are idempotent), a
 * restarted episode worker takes over its host's queue, and a restarted dev server reopens its
 * SQLite file.
 */
import { defaultTaskQueue } from '../../shared/names/task-queues';
import type { LoadedConfig } from '../../workers/config';
import { devServerName, startDevServer } from './dev-server';
import { isListening } from './processes';
import { runningServices } from './records';
import { ensureModelServer, ensurePolicyServer, modelServerName, policyServerName } from './serving';
import { ensureTrainerWorker, trainerName } from './trainer';
import { ensureWorker, workerName } from './worker';

export interface SupervisedService {
  name: string;
  /** true while the service runs and answers */
  healthy(): Promise<boolean>;
  /** starts it again (the ensure… function that started it) */
  restart(): Promise<void>;
}

export interface KeepUp {
  /** restarts so far, by service */
  restarts(): Record<string, number>;
  stop(): void;
}

const checkEveryMs = 2000;

/** A service with records: healthy while a process one names runs. */
const recorded = (config: LoadedConfig, name: string) => () =>
  Promise.resolve(runningServices(config, name).length > 0);

/** The dev server (its port) and the episode worker, which every command that runs a workflow needs. */
export function baseServices(config: LoadedConfig, log: (line: string) => void): SupervisedService[] {
  return [
    {
      name: devServerName,
      healthy: () => isListening(config.temporal.address),
      restart: async () => void (await startDevServer(config, log)),
    },
    {
      name: workerName,
      healthy: recorded(config, workerName),
      restart: async () => void (await ensureWorker(config, defaultTaskQueue, log)),
    },
  ];
}

export function trainerService(config: LoadedConfig, log: (line: string) => void): SupervisedService {
  return {
    name: trainerName,
    healthy: recorded(config, trainerName),
    restart: async () => void (await ensureTrainerWorker(config, log)),
  };
}

/** A server recorded as `name` on `port`: healthy while its process runs and `/v1/models` answers within `answerMs`. */
function servingService(
  config: LoadedConfig,
  name: string,
  port: number,
  answerMs: number,
  restart: () => Promise<unknown>,
): SupervisedService {
  return {
    name,
    healthy: async () =>
      (await recorded(config, name)()) &&
      (await fetch(`http://127.0.0.1:${port}/v1/models`, { signal: AbortSignal.timeout(answerMs) }).then(
        (response) => response.ok,
        () => false,
      )),
    restart: async () => void (await restart()),
  };
}

/** The policy server on `port`: its process runs and `/v1/models` answers. */
export function policyServerService(
  config: LoadedConfig,
  port: number,
  log: (line: string) => void,
): SupervisedService {
  return servingService(config, policyServerName(port), port, 2000, () => ensurePolicyServer(config, port, log));
}

/**
 * The embedded server of a real model on `port`: its process runs and `/v1/models` answers within
 * 60 s. Loading 538 MB of new weights, or batching long contexts (a harness's prompts hold thousands of tokens), keeps
 * it busy for seconds, on a loaded 2-core host past 15 s: a restart then throws away every generation in flight.
 */
export function modelServerService(
  config: LoadedConfig,
  model: string,
  port: number,
  log: (line: string) => void,
): SupervisedService {
  return servingService(config, modelServerName(port), port, 60_000, () => ensureModelServer(config, model, log, port));
}

const maxBackoffMs = 30_000;

/** Checks the services every 2 s and starts a dead one again until stop(). */
export function keepServicesUp(services: readonly SupervisedService[], log: (line: string) => void): KeepUp {
  const restarts: Record<string, number> = {};
  const backoff = new Map<string, { untilMs: number; delayMs: number }>();
  let busy = false;
  let stopped = false;
  const check = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      for (const service of services) {
        if (stopped) return;
        const wait = backoff.get(service.name);
        if (wait && Date.now() < wait.untilMs) continue;
        if (await service.healthy().catch(() => false)) {
          backoff.delete(service.name);
          continue;
        }
        restarts[service.name] = (restarts[service.name] ?? 0) + 1;
        log(`${service.name} is down: starting it again (restart ${restarts[service.name]})`);
        try {
          await service.restart();
          log(`${service.name} is back`);
          backoff.delete(service.name);
        } catch (error) {
          const delayMs = Math.min((wait?.delayMs ?? 500) * 2, maxBackoffMs);
          backoff.set(service.name, { untilMs: Date.now() + delayMs, delayMs });
          log(
            `${service.name} did not start (${(error as Error).message.split('\n')[0]}); next try in ` +
              `${Math.round(delayMs / 1000)} s`,
          );
        }
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), checkEveryMs);
  return {
    restarts: () => ({ ...restarts }),
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

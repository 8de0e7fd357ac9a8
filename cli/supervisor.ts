/**
 * Supervision of the background services while the CLI follows a run: every few seconds each
 * service is checked (its process alive, its port answering), and one that is down is started again
 * through the same `ensure…` function that started it, with backoff between failed tries. Every
 * restart is logged and counted. A restarted policy server serves its last published policy again
 * (its state file), a restarted trainer worker picks up the pending step (steps are idempotent), a
 * restarted episode worker takes over its host's queue, and a restarted dev server reopens its
 * SQLite file.
 */

export interface SupervisedService {
  name: string;
  /** true while the service runs and answers */
  healthy(): Promise<boolean>;
  /** starts it again (the ensure… function that started it) */
  restart(): Promise<void>;
}

export interface Supervisor {
  /** restarts so far, by service */
  restarts(): Record<string, number>;
  stop(): void;
}

const checkEveryMs = 2000;
const maxBackoffMs = 30_000;

export function superviseServices(services: readonly SupervisedService[], log: (line: string) => void): Supervisor {
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
          log(`${service.name} did not start (${(error as Error).message.split('\n')[0]}); next try in ${Math.round(delayMs / 1000)} s`);
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

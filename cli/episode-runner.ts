import { randomBytes } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { EpisodeProgress, EpisodeResult } from '../shared/contracts/episode';
import { episodeProgressQuery } from '../workflows/messages';
import { defaultTaskQueue } from '../shared/names/task-queues';
import { temporalConnection, type LoadedConfig } from '../workers/config';
import { startDevServer } from './services/dev-server';
import { baseServices, keepServicesUp, type SupervisedService } from './services/keep-up';
import { ensureWorker } from './services/worker';

/**
 * Makes sure the dev server and a current worker run, then connects a client. Until close(), they
 * (and `more`) are supervised: one that dies is started again (services/keep-up.ts).
 */
export async function connectWithWorker(
  config: LoadedConfig,
  log: (line: string) => void,
  more: readonly SupervisedService[] = [],
): Promise<{ client: Client; close: () => Promise<void> }> {
  await startDevServer(config, log);
  await ensureWorker(config, defaultTaskQueue, log);
  const connection = await Connection.connect(temporalConnection(config));
  const keepUp = keepServicesUp([...baseServices(config, log), ...more], log);
  return {
    client: new Client({ connection, namespace: config.temporal.namespace }),
    async close() {
      keepUp.stop();
      const restarts = Object.entries(keepUp.restarts());
      if (restarts.length)
        log(`services restarted meanwhile: ${restarts.map(([name, count]) => `${name} ${count}`).join(', ')}`);
      await connection.close();
    },
  };
}

/** Starts one episode workflow and waits for its result; `onProgress` hears each change of phase or turn. */
export async function runEpisode(
  client: Client,
  input: Record<string, unknown>,
  workflowId = `episode-${Date.now()}-${randomBytes(3).toString('hex')}`,
  onProgress?: (progress: EpisodeProgress, workflowId: string) => void,
): Promise<EpisodeResult> {
  const handle = await client.workflow.start('rolloutEpisode', {
    taskQueue: defaultTaskQueue,
    workflowId,
    args: [input],
  });
  if (!onProgress) return withCause(handle.result() as Promise<EpisodeResult>);
  let last = '';
  const poll = setInterval(() => {
    handle
      .query(episodeProgressQuery)
      .then((progress) => {
        const line = `${progress.phase} ${progress.counters.turns}`;
        if (line !== last) onProgress(progress, workflowId);
        last = line;
      })
      // a query can fail while the workflow moves between workers; the next poll asks again
      .catch(() => undefined);
  }, 1000);
  try {
    return await withCause(handle.result() as Promise<EpisodeResult>);
  } finally {
    clearInterval(poll);
  }
}

/**
 * A failed workflow's error with the messages of its causes (the activity's own words), not only "Workflow execution
 * failed".
 */
export async function withCause<T>(result: Promise<T>, what = 'the episode workflow'): Promise<T> {
  try {
    return await result;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const causes: string[] = [];
    for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) causes.push(cause.message);
    throw new Error(`${what} failed: ${causes.join(': ') || error.message}`, { cause: error });
  }
}

/** Applies the `defaults.episode` section of temporal.yaml under the caller's own fields. */
export function withConfigDefaults(config: LoadedConfig, input: Record<string, unknown>): Record<string, unknown> {
  const defaults = config.defaults.episode;
  return {
    ...(defaults.checker ? { checker: defaults.checker } : {}),
    ...input,
    budgets: { ...defaults.budgets, ...(input.budgets as object | undefined) },
    timeouts: { ...defaults.timeouts, ...(input.timeouts as object | undefined) },
  };
}

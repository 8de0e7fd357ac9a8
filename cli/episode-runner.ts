import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { EpisodeResult } from '../shared/episode';
import { defaultTaskQueue } from '../shared/task-queues';
import type { LoadedConfig } from '../workers/config';
import { startDevServer } from './dev-server';
import { ensureWorker } from './worker-process';

/** Makes sure the dev server and a current worker run, then connects a client. */
export async function connectWithWorker(config: LoadedConfig, log: (line: string) => void): Promise<{ client: Client; close: () => Promise<void> }> {
  await startDevServer(config, log);
  await ensureWorker(config, defaultTaskQueue, log);
  const connection = await Connection.connect({ address: config.temporal.address });
  return { client: new Client({ connection, namespace: config.temporal.namespace }), close: () => connection.close() };
}

/** Starts one episode workflow and waits for its result. */
export async function runEpisode(client: Client, input: Record<string, unknown>, workflowId = `episode-${Date.now()}-${randomBytes(3).toString('hex')}`): Promise<EpisodeResult> {
  const handle = await client.workflow.start('rolloutEpisode', { taskQueue: defaultTaskQueue, workflowId, args: [input] });
  return (await handle.result()) as EpisodeResult;
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

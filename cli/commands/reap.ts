import Dockerode from 'dockerode';
import { Client, Connection } from '@temporalio/client';
import { deploymentId } from '../../activities/sandbox/container';
import { reapClosedEpisodes } from '../../activities/sandbox/reaper';
import { defaultTaskQueue } from '../../shared/names/task-queues';
import { loadConfig, temporalConnection } from '../../workers/config';
import type { Command } from '../command';

export const reap: Command = {
  summary: 'remove the containers and volumes of closed episodes',
  usage: [
    'Usage: npx agentrl reap [--task-queue NAME]',
    '',
    'Asks the Temporal server which episodes are closed and removes their sandboxes (containers and volumes), and',
    'sandboxes made outside workflows (task validate) once they are an hour old. Workers do this every minute.',
    '',
    'Options:',
    `  --task-queue NAME   the deployment's base task queue   default: ${defaultTaskQueue}`,
  ].join('\n'),
  options: { 'task-queue': { type: 'string' } },
  async run(values) {
    const config = loadConfig();
    const connection = await Connection.connect(temporalConnection(config));
    try {
      const deployment = deploymentId(
        config.temporal.address,
        config.temporal.namespace,
        (values['task-queue'] as string | undefined) ?? defaultTaskQueue,
      );
      const result = await reapClosedEpisodes(
        new Dockerode(),
        new Client({ connection, namespace: config.temporal.namespace }),
        deployment,
      );
      console.log(
        `removed ${result.removedContainers.length} container(s) and ${result.removedVolumes.length} volume(s)`,
      );
    } finally {
      await connection.close();
    }
    return 0;
  },
};

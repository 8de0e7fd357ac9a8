import { defaultTaskQueue } from '../../shared/names/task-queues';
import { codeVersion } from '../../workers/code-version';
import { loadConfig } from '../../workers/config';
import { runEpisodeWorker } from '../../workers/episode-worker';
import type { Command } from '../command';
import { clearServiceRecord, workerName, workerReadyLine, workerSettings, writeServiceRecord } from '../services';

export const worker: Command = {
  summary: "run a worker for this host in the foreground (episode workflows, sandbox acquisition, this host's queue)",
  usage: [
    'Usage: npx agentrl worker [--task-queue NAME]',
    '',
    "Serves the episode and training-run workflows, sandbox acquisition and this host's own queue until",
    'interrupted (SIGINT or SIGTERM: running activities finish first). It records itself in the state folder,',
    'so `episode`, `examples`, `eval` and `train` use it instead of starting a background worker.',
    '',
    'Options:',
    `  --task-queue NAME   the base task queue (the others derive from it)   default: ${defaultTaskQueue}`,
  ].join('\n'),
  options: { 'task-queue': { type: 'string' } },
  async run(values) {
    const config = loadConfig();
    const taskQueue = (values['task-queue'] as string | undefined) ?? defaultTaskQueue;
    const version = codeVersion();
    try {
      await runEpisodeWorker({
        config,
        taskQueue,
        onReady: async ({ hostId }) => {
          await writeServiceRecord(config, workerName, {
            pid: process.pid,
            codeVersion: version,
            settings: workerSettings(config, taskQueue),
            startedAt: new Date().toISOString(),
            hostId,
            taskQueue,
            address: config.temporal.address,
          });
          console.log(`${workerReadyLine(process.pid)}: queue ${taskQueue}, host ${hostId}, code ${version}`);
        },
      });
    } finally {
      clearServiceRecord(config, workerName, process.pid);
    }
    return 0;
  },
};

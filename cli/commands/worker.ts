import { defaultTaskQueue } from '../../shared/names/task-queues';
import { codeVersion } from '../../workers/code-version';
import { loadConfig } from '../../workers/config';
import { runEpisodeWorker } from '../../workers/episode-worker';
import type { Command } from '../command';
import { recordSelf } from '../services/records';
import { workerName, workerReadyLine, workerSettings } from '../services/worker';

export const worker: Command = {
  summary: "run a worker for this host in the foreground (episode workflows, sandbox acquisition, this host's queue)",
  usage: [
    'Usage: npx agentrl worker [--task-queue NAME]',
    '',
    "Serves the episode and training-run workflows, sandbox acquisition and this host's own queue until",
    'interrupted (SIGINT or SIGTERM: running activities finish first). It records itself in the state folder',
    '(with its store), so `episode`, `examples`, `eval` and `train` use it instead of starting a background worker,',
    'refuse to run beside it when they need another store or newer code (it is never stopped for them), and',
    '`npx agentrl server stop` stops it.',
    '',
    'Options:',
    `  --task-queue NAME   the base task queue (the others derive from it)   default: ${defaultTaskQueue}`,
  ].join('\n'),
  options: { 'task-queue': { type: 'string' } },
  async run(values) {
    const config = loadConfig();
    const taskQueue = (values['task-queue'] as string | undefined) ?? defaultTaskQueue;
    const version = codeVersion();
    let forget: (() => void) | undefined;
    try {
      await runEpisodeWorker({
        config,
        taskQueue,
        onReady: async ({ hostId }) => {
          forget = await recordSelf(config, {
            name: workerName,
            codeVersion: version,
            settings: workerSettings(config, taskQueue),
            hostId,
          });
          console.log(`${workerReadyLine(process.pid)}: queue ${taskQueue}, host ${hostId}, code ${version}`);
        },
      });
    } finally {
      forget?.();
    }
    return 0;
  },
};

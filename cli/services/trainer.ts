import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultTaskQueue, trainingQueue } from '../../shared/names/task-queues';
import { projectRoot, type LoadedConfig } from '../../workers/config';
import type { ServiceRecord } from './records';
import { ensureService } from './supervisor';
import { s3Access } from './store-settings';

/** The Python trainer worker (PyTorch), on the training queue, from the project's venv. */

export const trainerName = 'trainer';

/** Hash of the Python trainer's sources and its contract: a trainer worker running older code is replaced. */
export function trainerVersion(): string {
  const hash = createHash('sha256');
  const dir = join(projectRoot, 'trainer', 'agentrl_trainer');
  for (const name of readdirSync(dir)
    .filter((entry) => entry.endsWith('.py'))
    .sort())
    hash.update(name).update(readFileSync(join(dir, name)));
  hash.update(readFileSync(join(projectRoot, 'shared', 'contracts', 'trainer.schema.json')));
  return hash.digest('hex').slice(0, 16);
}

/** The Python training worker, on the training queue of the default deployment, from the project's venv. */
export async function ensureTrainerWorker(config: LoadedConfig, log: (line: string) => void): Promise<ServiceRecord> {
  const python = process.env.AGENTRL_PYTHON ?? join(projectRoot, '.venv', 'bin', 'python');
  if (!existsSync(python))
    throw new Error(`no Python at ${python}; run scripts/setup.sh (it prepares .venv with torch and temporalio)`);
  const queue = trainingQueue(defaultTaskQueue);
  return ensureService(
    config,
    {
      name: trainerName,
      codeVersion: trainerVersion(),
      // the run's references say which store; the endpoint it reaches them at is the process's own
      settings: {
        temporal: config.temporal.address,
        namespace: config.temporal.namespace,
        taskQueue: queue,
        ...s3Access(config),
      },
      command: python,
      args: [
        '-m',
        'agentrl_trainer.worker',
        '--address',
        config.temporal.address,
        '--namespace',
        config.temporal.namespace,
        '--task-queue',
        queue,
      ],
      cwd: join(projectRoot, 'trainer'),
      // one BLAS thread: on a machine shared with episodes, two threads make a step slower and erratic
      env: { OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? '1' },
      ready: (text) => Promise.resolve(text.includes('training worker ready')),
    },
    log,
  );
}

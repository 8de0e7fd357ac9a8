// What the end-to-end training tests share: task sets copied from the suite, the Python training
// worker on a test worker's training queue, a run's metrics and its containers.
import { localPathOf } from '../../activities/store/local-copy';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPolicyServer } from '../../serving/policy-server';
import { trainingQueue } from '../../shared/names/task-queues';
import type { IterationMetrics } from '../../shared/contracts/run-metrics';
import { projectRoot } from '../../workers/config';
import { docker, startTestServer, startWorker, waitFor, type RunningWorker } from './temporal';

export const python = join(projectRoot, '.venv', 'bin', 'python');
const suite = join(projectRoot, 'tasks', 'suite');

/** A task folder holding copies of some suite tasks (a run's task set is a folder of task folders). */
export function taskSet(names: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-tasks-'));
  for (const name of names) {
    const split = ['train', 'validation', 'heldout'].find((candidate) => existsSync(join(suite, candidate, name)))!;
    cpSync(join(suite, split, name), join(dir, name), { recursive: true });
  }
  return dir;
}

/** The Python training worker on the test worker's training queue, once it polls. */
export async function startTrainer(env: TestWorkflowEnvironment, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(
    python,
    ['-m', 'agentrl_trainer.worker', '--address', env.address, '--task-queue', trainingQueue(taskQueue)],
    { cwd: join(projectRoot, 'trainer'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('the training worker', async () => output.includes('training worker ready'), 120_000);
  return child;
}

/** The lines of a run's metrics.jsonl. */
export const readMetrics = (runDir: string): IterationMetrics[] =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as IterationMetrics);

/** Containers left by the run's episodes (their labels carry ids that start with the run's). */
export async function runContainers(runId: string): Promise<number> {
  const containers = await docker.listContainers({ all: true });
  return containers.filter((container) =>
    Object.values(container.Labels ?? {}).some((value) => value.startsWith(`${runId}.`)),
  ).length;
}

/** What a training test file runs against: a dev server, a worker, the Python trainer and an embedded policy server. */
export interface TrainingEnvironment {
  env: TestWorkflowEnvironment;
  worker: RunningWorker;
  /** the trainer process */
  trainer: ChildProcess;
  policyServer: string;
}

/** Starts the training environment before the file's tests and stops it after them. */
export function useTrainingEnvironment(): TrainingEnvironment {
  const suite = {} as TrainingEnvironment;
  let closeServer: () => Promise<void> = async () => undefined;
  before(async () => {
    suite.env = await startTestServer();
    suite.worker = await startWorker(suite.env);
    suite.trainer = await startTrainer(suite.env, suite.worker.taskQueue);
    const { server } = await createPolicyServer();
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    suite.policyServer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeServer = () => new Promise((resolveClose) => server.close(() => resolveClose()));
  });
  after(async () => {
    suite.trainer?.kill('SIGTERM');
    await closeServer();
    await suite.worker?.stop();
    await suite.env?.teardown();
  });
  return suite;
}

/** The local folder of a run on the folder store (the tests' default): its runRef's path. */
export const runFolder = (result: { runRef: string }): string => {
  const path = localPathOf(result.runRef);
  if (path === null) throw new Error(`${result.runRef} is not on a folder store`);
  return path;
};

// `npx agentrl up` keeps a host's services up with no run waiting: a training run started from the
// Temporal CLI (not through agentrl) survives its episode worker killed with -9 mid-iteration, and
// `npx agentrl status RUN` reads the run's progress through Temporal.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { defaultTaskQueue } from '../../shared/names/task-queues';
import { trainingProgressQuery } from '../../workflows/messages';
import { projectRoot } from '../../workers/config';
import { waitFor } from '../helpers/temporal';
import { taskSet } from '../helpers/training';
import { serviceRecord } from '../helpers/worker-process';

const state = mkdtempSync(join(tmpdir(), 'agentrl-up-'));
const configPath = join(state, 'temporal.yaml');
const address = '127.0.0.1:17433';
const policyPort = 17434;
writeFileSync(
  configPath,
  `temporal:\n  address: ${address}\n  uiPort: 18433\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\nworker:\n  reapIntervalMs: 5000\n`,
);
// the worker `up` starts also serves the Temporal SDK's own runtime metrics
const sdkMetricsPort = 17435;
const env = { ...process.env, AGENTRL_CONFIG: configPath, AGENTRL_SDK_METRICS_PORT: String(sdkMetricsPort) };
const cli = join(projectRoot, 'bin', 'agentrl.js');
const agentrl = (...args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 120_000 });
const pidOf = (name: string): number => serviceRecord(state, name).pid;

let up: ChildProcess;
let output = '';

before(async () => {
  up = spawn(process.execPath, [cli, 'up', '--policy-port', String(policyPort)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  up.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  up.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('up supervising', async () => output.includes('up: supervising'), 240_000);
});

after(() => {
  up?.kill('SIGTERM');
  agentrl('server', 'stop');
});

test('a run started from the Temporal CLI under `up` survives its worker killed with -9', async () => {
  assert.match(output, /up: supervising temporal, worker, trainer, policy-server-17434/);
  const runId = `up-run-${Date.now()}`;
  const input = {
    tasks: taskSet(['ari-avg-06']),
    evalTasks: '',
    iterations: 1,
    tasksPerIteration: 1,
    groupSize: 2,
    concurrency: 2,
    warmStart: { episodes: 2, epochs: 1 },
    policyServer: `http://127.0.0.1:${policyPort}`,
    seed: 2,
  };
  // the Temporal CLI, as an operator without agentrl would start it
  const started = spawnSync(
    join(projectRoot, '.venv', 'bin', 'temporal'),
    [
      'workflow',
      'start',
      '--address',
      address,
      '--type',
      'trainingRun',
      '--task-queue',
      defaultTaskQueue,
      '--workflow-id',
      runId,
      '--input',
      JSON.stringify(input),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(started.status, 0, started.stderr);

  const connection = await Connection.connect({ address });
  try {
    const handle = new Client({ connection }).workflow.getHandle(runId);
    await waitFor(
      'the run sampling its iteration',
      async () => (await handle.query(trainingProgressQuery).catch(() => null))?.phase === 'sampling',
      300_000,
    );
    const status = agentrl('status', runId);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`run ${runId}: running \\(trainingRun`));
    assert.match(status.stdout, /sampling: iteration \d+\/\d+, episodes \d+\/\d+/);
    assert.match(status.stdout, /worker: pid \d+, host [0-9a-f]{16}/);

    const sdk = await (await fetch(`http://127.0.0.1:${sdkMetricsPort}/metrics`)).text();
    assert.match(sdk, /^temporal_request_total\{/m, 'the SDK counts its requests to the server');
    assert.match(sdk, /^temporal_(workflow|activity)_\w+/m, 'and its task processing');

    const killed = pidOf('worker');
    process.kill(killed, 'SIGKILL');
    await waitFor('up starting the worker again', async () => /worker is back/.test(output), 120_000);
    assert.notEqual(pidOf('worker'), killed);
    const result = (await handle.result()) as { steps: number };
    assert.equal(result.steps, 2, "the warm start's step and the iteration's");
  } finally {
    await connection.close();
  }
  assert.equal(serviceRecord(state, 'up', up.pid).origin, 'foreground', 'up records itself');
});

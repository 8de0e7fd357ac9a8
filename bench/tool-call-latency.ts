// Benchmark (not a test): p50/p95 of a raw dockerode exec vs one tool call through the whole workflow path,
// through the sandbox's executor (the default) and through one `docker exec` per call (`sandbox.executor: exec`,
// the earlier path). All are measured in the same run, on the same machine, and compared as ratios.
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { createHardenedContainer, deploymentId, removeSandbox, sandboxName } from '../activities/sandbox/container';
import { execCollect } from '../activities/sandbox/docker';
import {
  docker,
  policy,
  scriptedPolicy,
  startTestServer,
  startWorker,
  task,
  testConfig,
} from '../tests/helpers/temporal';

const calls = Number(process.env.BENCH_CALLS ?? 200);
const command = 'echo x';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function rawExec(config: Awaited<ReturnType<typeof startWorker>>['config']): Promise<number[]> {
  const deployment = deploymentId('bench', 'bench', 'bench');
  const workflowId = `local:bench-${randomBytes(4).toString('hex')}`;
  const name = sandboxName(deployment, workflowId);
  const { container, volumes } = await createHardenedContainer(docker, {
    name,
    deployment,
    image: config.sandbox.image,
    workflowId,
    episodeId: workflowId,
    runId: 'bench',
    role: 'agent',
    sandbox: config.sandbox,
  });
  try {
    await container.start();
    const samples: number[] = [];
    for (let i = 0; i < calls + 10; i++) {
      const started = performance.now();
      // the shell a bash tool call runs: the ratio compares the same work
      await execCollect(docker, container, ['/bin/bash', '-c', command], { user: '1000:1000', workingDir: '/work' });
      if (i >= 10) samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    await removeSandbox(docker, name, volumes);
  }
}

/** Per-call latency through the workflow: the gap between consecutive takeTurn schedules in the history. */
async function workflowPath(
  env: Awaited<ReturnType<typeof startTestServer>>,
  worker: Awaited<ReturnType<typeof startWorker>>,
): Promise<number[]> {
  const spec = scriptedPolicy([
    ...Array.from({ length: calls + 10 }, () => ({ tool: 'bash', command })),
    { tool: 'submit' },
  ]);
  const handle = await env.client.workflow.start('rolloutEpisode', {
    taskQueue: worker.taskQueue,
    workflowId: `bench-${Date.now()}`,
    args: [{ task: task('off-by-one-range'), policy: spec, budgets: { maxTurns: calls + 20 } }],
  });
  await handle.result();
  const history = await handle.fetchHistory();
  const scheduled: number[] = [];
  for (const event of history.events ?? []) {
    if (event.eventType !== temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) continue;
    if (event.activityTaskScheduledEventAttributes?.activityType?.name !== 'takeTurn') continue;
    const time = event.eventTime!;
    scheduled.push(Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6);
  }
  return scheduled.slice(11).map((time, index) => time - scheduled[index + 10]!);
}

async function main(): Promise<void> {
  const env = await startTestServer();
  const worker = await startWorker(env);
  const execConfig = testConfig(env.address);
  execConfig.sandbox.executor = 'exec';
  const execWorker = await startWorker(env, execConfig);
  try {
    // warm-up: bundle, image cache, first container
    await env.client.workflow.execute('rolloutEpisode', {
      taskQueue: worker.taskQueue,
      workflowId: `warm-${Date.now()}`,
      args: [{ task: task('off-by-one-range'), policy: policy('off-by-one-range', 'fix') }],
    });
    const raw = await rawExec(worker.config);
    const path = await workflowPath(env, worker);
    const execPath = await workflowPath(env, execWorker);
    const row = (name: string, values: number[]) =>
      `${name.padEnd(28)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ` +
      `${percentile(values, 95).toFixed(1).padStart(7)} ms   (n=${values.length})`;
    console.log(row('raw dockerode exec', raw));
    console.log(row('via workflow, docker exec', execPath));
    console.log(row('tool call via workflow', path));
    const ratio = (a: number[], b: number[], p: number) => (percentile(a, p) / percentile(b, p)).toFixed(2);
    console.log(`ratio docker-exec path/raw: p50 ${ratio(execPath, raw, 50)}x, p95 ${ratio(execPath, raw, 95)}x`);
    console.log(
      `ratio workflow/docker-exec path: p50 ${ratio(path, execPath, 50)}x, p95 ${ratio(path, execPath, 95)}x`,
    );
    console.log(
      `ratio workflow/raw: p50 ${ratio(path, raw, 50)}x, p95 ${ratio(path, raw, 95)}x (target: at most 0.5x)`,
    );
  } finally {
    await execWorker.stop();
    await worker.stop();
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

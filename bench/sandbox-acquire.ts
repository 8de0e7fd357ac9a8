// Benchmark (not a test): an episode's sandbox acquisition from the warm pool (activities/sandbox/pool.ts) vs a cold
// create, start and seed (`sandbox.pool.size: 0`, the earlier path), measured in the same run on the same machine as
// the acquireSandbox activity's own time (started → completed in the workflow's history) and compared as a ratio.
// The pool is given time to refill between episodes, so every warm acquisition finds a container.
import { temporal } from '@temporalio/proto';
import {
  docker,
  scriptedPolicy,
  startTestServer,
  startWorker,
  task,
  testConfig,
  waitFor,
} from '../tests/helpers/temporal';
import { labels } from '../activities/sandbox/container';
import { poolNamePrefix } from '../activities/sandbox/pool';

const episodes = Number(process.env.BENCH_EPISODES ?? 15);
const taskName = process.env.BENCH_TASK ?? 'off-by-one-range';
const EventType = temporal.api.enums.v1.EventType;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const millis = (time: { seconds?: unknown; nanos?: number | null }) =>
  Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6;

async function main(): Promise<void> {
  const env = await startTestServer();
  const coldConfig = testConfig(env.address);
  const warmConfig = testConfig(env.address);
  warmConfig.sandbox.pool = { ...warmConfig.sandbox.pool, size: 1 };
  const cold = await startWorker(env, coldConfig);
  const warm = await startWorker(env, warmConfig);
  const ready = async () =>
    (
      await docker.listContainers({
        filters: { label: [`${labels.role}=pool`, `${labels.pool}`], status: ['running'] },
      })
    ).filter(
      (info) =>
        (info.Labels[labels.pool] ?? '').startsWith(`${warm.hostId}:`) &&
        info.Names.some((name) => name.startsWith(`/${poolNamePrefix}`)),
    ).length;
  /** One short episode; the acquireSandbox activity's execution time in ms. */
  const acquire = async (worker: typeof cold, id: string): Promise<number> => {
    const handle = await env.client.workflow.start('rolloutEpisode', {
      taskQueue: worker.taskQueue,
      workflowId: id,
      args: [{ task: task(taskName), policy: scriptedPolicy([{ tool: 'submit' }]), budgets: { maxTurns: 2 } }],
    });
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'acquireSandbox',
    )!;
    const started = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
        Number(event.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled.eventId),
    )!;
    const completed = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
        Number(event.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(scheduled.eventId),
    )!;
    return millis(completed.eventTime!) - millis(started.eventTime!);
  };
  try {
    // warm-up: bundle, image, the repository's tar; the warm worker learns the recipe
    await acquire(cold, `acquire-warmup-cold-${Date.now()}`);
    await acquire(warm, `acquire-warmup-warm-${Date.now()}`);
    const coldTimes: number[] = [];
    const warmTimes: number[] = [];
    for (let i = 0; i < episodes; i++) {
      coldTimes.push(await acquire(cold, `acquire-cold-${i}-${Date.now()}`));
      await waitFor('the pool to refill', async () => (await ready()) > 0, 60_000);
      warmTimes.push(await acquire(warm, `acquire-warm-${i}-${Date.now()}`));
    }
    const row = (name: string, values: number[]) =>
      `${name.padEnd(30)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ` +
      `${percentile(values, 95).toFixed(1).padStart(7)} ms   (n=${values.length})`;
    console.log(`task ${taskName}`);
    console.log(row('cold create, start and seed', coldTimes));
    console.log(row('claim from the warm pool', warmTimes));
    const ratio = (p: number) => (percentile(warmTimes, p) / percentile(coldTimes, p)).toFixed(3);
    console.log(`ratio warm/cold: p50 ${ratio(50)}x, p95 ${ratio(95)}x (target: at most 0.1x)`);
  } finally {
    await warm.stop();
    await cold.stop();
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// Benchmark (not a test): the warm pool (activities/sandbox/pool.ts) against cold containers, measured in the same run
// on the same machine: an episode's sandbox acquisition (acquireSandbox) and its grading (scoreSubmission: the strict
// grader with the twins, and the isolated audit of the oracle calls, each in a fresh container), as the activities' own
// time (started → completed in the workflow's history). The cold worker has `sandbox.pool.size: 0` (the earlier path);
// the warm one `size: 1`, given time to refill between episodes, so every warm episode finds its containers. The
// grading cache is off on both, so every episode's tree is graded.
import { temporal } from '@temporalio/proto';
import { docker, policy, startTestServer, startWorker, task, testConfig, waitFor } from '../tests/helpers/temporal';
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
  for (const config of [coldConfig, warmConfig]) config.grading = { ...config.grading, cacheResults: false };
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
  /** One short episode (the task's solution, submitted); its activities' execution times in ms. */
  const episode = async (worker: typeof cold, id: string): Promise<{ acquire: number; score: number }> => {
    const handle = await env.client.workflow.start('rolloutEpisode', {
      taskQueue: worker.taskQueue,
      workflowId: id,
      args: [{ task: task(taskName), policy: policy(taskName, 'fix'), budgets: { maxTurns: 10 } }],
    });
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    return { acquire: activityMs(events, 'acquireSandbox'), score: activityMs(events, 'scoreSubmission') };
  };
  const activityMs = (events: temporal.api.history.v1.IHistoryEvent[], type: string): number => {
    const scheduled = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === type,
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
    // warm-up: bundle, image, the repository's tar; the warm worker learns its recipes (agent, grader, audit)
    await episode(cold, `pool-warmup-cold-${Date.now()}`);
    await episode(warm, `pool-warmup-warm-${Date.now()}`);
    const recipes = Number(process.env.BENCH_RECIPES ?? 3);
    const coldTimes: { acquire: number; score: number }[] = [];
    const warmTimes: { acquire: number; score: number }[] = [];
    for (let i = 0; i < episodes; i++) {
      coldTimes.push(await episode(cold, `pool-cold-${i}-${Date.now()}`));
      await waitFor('the pool to refill', async () => (await ready()) >= recipes, 60_000);
      warmTimes.push(await episode(warm, `pool-warm-${i}-${Date.now()}`));
    }
    const row = (name: string, values: number[]) =>
      `${name.padEnd(36)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ` +
      `${percentile(values, 95).toFixed(1).padStart(7)} ms   (n=${values.length})`;
    const of = (times: typeof coldTimes, key: 'acquire' | 'score') => times.map((time) => time[key]);
    console.log(`task ${taskName}`);
    console.log(row('acquire: cold create, start and seed', of(coldTimes, 'acquire')));
    console.log(row('acquire: claim from the warm pool', of(warmTimes, 'acquire')));
    console.log(row('grading: cold grader and audit', of(coldTimes, 'score')));
    console.log(row('grading: pooled grader and audit', of(warmTimes, 'score')));
    const ratio = (key: 'acquire' | 'score', p: number) =>
      (percentile(of(warmTimes, key), p) / percentile(of(coldTimes, key), p)).toFixed(3);
    console.log(
      `ratio acquire warm/cold: p50 ${ratio('acquire', 50)}x, p95 ${ratio('acquire', 95)}x (target: at most 0.1x)`,
    );
    console.log(
      `ratio grading warm/cold: p50 ${ratio('score', 50)}x, p95 ${ratio('score', 95)}x (target: at most 0.4x)`,
    );
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

// Benchmark (not a test): one sandbox host under load. Waves of concurrent scripted episodes with real containers
// (`BENCH_LOAD_WAVES`, default 64,256), each a few tool calls that mostly wait (`sleep 2; echo x`) and a submit graded
// by the strict checker, on one episode worker process (`npx agentrl worker`, configured for that many activities at
// once). Per wave: the episodes' outcomes (any failure is reported), throughput, episode and turn latencies, the worker's
// peak RSS (sampled every 500 ms from /proc), the largest workflow history, and what was left behind (containers,
// volumes of the deployment) once the worker has released everything.
//   node --import tsx bench/load.ts            BENCH_LOAD_WAVES=256 BENCH_LOAD_CALLS=3 BENCH_LOAD_TASK=off-by-one-range
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { deploymentId, labels } from '../activities/sandbox/container';
import { docker, scriptedPolicy, startTestServer, task, waitFor } from '../tests/helpers/temporal';
import { spawnWorker, stopChild, waitReady } from '../tests/helpers/worker-process';

const waves = (process.env.BENCH_LOAD_WAVES ?? '64,256').split(',').map(Number);
const calls = Number(process.env.BENCH_LOAD_CALLS ?? 3);
const taskName = process.env.BENCH_LOAD_TASK ?? 'off-by-one-range';
const EventType = temporal.api.enums.v1.EventType;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const millis = (time: { seconds?: unknown; nanos?: number | null }) =>
  Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6;

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const env = await startTestServer();
  const stateDir = mkdtempSync(join(tmpdir(), 'agentrl-load-'));
  const configFile = join(stateDir, 'load.yaml');
  const most = Math.max(...waves);
  writeFileSync(
    configFile,
    [
      'worker:',
      // every episode's turn holds an activity slot while its call sleeps
      `  maxConcurrentActivities: ${most * 2 + 16}`,
      '  maxConcurrentWorkflowTasks: 64',
      '  reapIntervalMs: 60000',
      'sandbox:',
      '  memoryMb: 256',
    ].join('\n') + '\n',
  );
  const taskQueue = `load-${Date.now()}`;
  const deployment = deploymentId(env.address, 'default', taskQueue);
  const child = spawnWorker(env.address, stateDir, taskQueue, undefined, { AGENTRL_CONFIG: configFile });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(child.pid!))), 500);
  try {
    await waitReady(stateDir, child.pid!);
    const actions = [
      ...Array.from({ length: calls }, () => ({ tool: 'bash', command: 'sleep 2; echo x' })),
      { tool: 'submit' },
    ];
    const policy = scriptedPolicy(actions);
    console.log(
      `one worker process, ${calls} calls of \`sleep 2; echo x\` and a strict grading per episode, task ${taskName}`,
    );
    console.log(
      'wave   done  failed  wall s  episodes/s  episode p50/p95 s  turn p50/p95 ms  peak RSS MB  history max  left',
    );
    for (const size of waves) {
      peakRss = rssMb(child.pid!);
      const started = Date.now();
      const handles = await Promise.all(
        Array.from({ length: size }, (_, index) =>
          env.client.workflow.start('rolloutEpisode', {
            taskQueue,
            workflowId: `load-${size}-${index}-${started}`,
            args: [{ task: task(taskName), policy, budgets: { maxTurns: calls + 2, toolTimeoutMs: '60s' } }],
          }),
        ),
      );
      const results = await Promise.all(
        handles.map((handle) =>
          handle.result().then(
            (result) => result as { outcome: string },
            (error: Error) => ({ outcome: `workflow failed: ${error.message}` }),
          ),
        ),
      );
      const wall = (Date.now() - started) / 1000;
      const failed = results.filter((result) => result.outcome !== 'submitted');
      // episode wall times and turn round trips (takeTurn scheduled → completed), and the largest history
      const episodeS: number[] = [];
      const turnMs: number[] = [];
      let historyMax = 0;
      for (const handle of handles) {
        const events = (await handle.fetchHistory()).events ?? [];
        historyMax = Math.max(historyMax, events.length);
        episodeS.push((millis(events.at(-1)!.eventTime!) - millis(events[0]!.eventTime!)) / 1000);
        const scheduled = new Map<number, number>();
        for (const event of events) {
          if (
            event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
            event.activityTaskScheduledEventAttributes?.activityType?.name === 'takeTurn'
          )
            scheduled.set(Number(event.eventId), millis(event.eventTime!));
          if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
            const from = scheduled.get(Number(event.activityTaskCompletedEventAttributes?.scheduledEventId));
            const payload = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
            const summary = payload ? defaultPayloadConverter.fromPayload<{ tool?: string }>(payload) : null;
            if (from !== undefined && summary?.tool === 'bash') turnMs.push(millis(event.eventTime!) - from);
          }
        }
      }
      // what the deployment left on the host once every episode is closed (released at its end)
      const left = await waitFor(
        'the sandboxes to go',
        async () => {
          const containers = await docker.listContainers({
            all: true,
            filters: { label: [`${labels.episode}=${deployment}`] },
          });
          return containers.length === 0 ? 0 : null;
        },
        120_000,
      ).catch(
        async () =>
          (await docker.listContainers({ all: true, filters: { label: [`${labels.episode}=${deployment}`] } })).length,
      );
      const volumes = (
        (await docker.listVolumes({ filters: { label: [`${labels.episode}=${deployment}`] } })).Volumes ?? []
      ).length;
      console.log(
        [
          String(size).padStart(4),
          String(results.length - failed.length).padStart(6),
          String(failed.length).padStart(7),
          wall.toFixed(1).padStart(7),
          (size / wall).toFixed(2).padStart(11),
          `${percentile(episodeS, 50).toFixed(1)}/${percentile(episodeS, 95).toFixed(1)}`.padStart(18),
          `${percentile(turnMs, 50).toFixed(0)}/${percentile(turnMs, 95).toFixed(0)}`.padStart(16),
          peakRss.toFixed(0).padStart(12),
          String(historyMax).padStart(12),
          `${left}c ${volumes}v`.padStart(6),
        ].join(' '),
      );
      const kinds = new Map<string, number>();
      for (const result of failed) kinds.set(result.outcome, (kinds.get(result.outcome) ?? 0) + 1);
      for (const [outcome, count] of kinds) console.log(`  ${count} x ${outcome}`);
    }
  } finally {
    clearInterval(sampler);
    await stopChild(child);
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

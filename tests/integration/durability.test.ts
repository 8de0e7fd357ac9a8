// Durability against the real dev server and Docker: a killed worker, continue-as-new, history size.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporal } from '@temporalio/proto';
import { episodeKey } from '../../activities/store/episode-records';
import type { EpisodeResult } from '../../shared/contracts/episode';
import {
  containersOf,
  policy,
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  startWorker,
  task,
  testConfig,
  useEpisodeServer,
  waitFor,
  type RunningWorker,
} from '../helpers/temporal';
import { spawnWorker, stopChild, waitReady } from '../helpers/worker-process';

// the server suggests continue-as-new past 1,000 history events (its default is several thousand), so
// that the long-episode test crosses runs with a few hundred tool calls
const suite = useEpisodeServer({
  serverArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=1000'],
});

test('kill -9 of the worker during a tool call: the call runs exactly once and no turn is lost or repeated', async () => {
  const config = testConfig(suite.env.address);
  const taskQueue = `kill-${Date.now()}`;
  const first = spawnWorker(suite.env.address, config.stateDir, taskQueue);
  let second: ChildProcess | undefined;
  try {
    await waitReady(config.stateDir, first.pid!);
    const workflowId = `kill-worker-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue,
      workflowId,
      // a short heartbeat timeout: the retry on the restarted worker comes a few seconds after the kill
      args: [
        {
          task: task('off-by-one-range'),
          policy: policy('off-by-one-range', 'slow-append'),
          timeouts: { heartbeatMs: '3s' },
        },
      ],
    });
    const result = handle.result() as Promise<EpisodeResult>;
    const journal = join(
      config.stateDir,
      'journal',
      episodeKey(`${workflowId}@${handle.firstExecutionRunId}`),
      '000000.json',
    );
    await waitFor(
      'turn 0 to start in the sandbox',
      async () => existsSync(journal) && JSON.parse(readFileSync(journal, 'utf8')).phase === 'started',
      60_000,
    );
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 1000));
    first.kill('SIGKILL');
    second = spawnWorker(suite.env.address, config.stateDir, taskQueue);
    const episode = await result;
    assert.equal(episode.outcome, 'submitted');
    const turns = readTrajectory(episode.trajectoryUri);
    assert.deepEqual(
      turns.map((turn) => turn.turn),
      [0, 1, 2],
    );
    assert.equal(turns[1]!.observation, 'x\n[exit code 0]', 'f holds exactly one line');
    assert.deepEqual(await containersOf(workflowId), []);
  } finally {
    first.kill('SIGKILL');
    if (second) await stopChild(second);
  }
});

test('a forced continue-as-new mid-episode yields the same trajectory as a run without it', async () => {
  const input = { task: task('wrong-comparison'), policy: policy('wrong-comparison', 'fix') };
  const plain = await runEpisode(suite.env, suite.worker, input);
  const handle = await suite.env.client.workflow.start('rolloutEpisode', {
    taskQueue: suite.worker.taskQueue,
    workflowId: `can-${Date.now()}`,
    args: [{ ...input, continueAsNewEveryTurns: 2 }],
  });
  const chained = (await handle.result()) as EpisodeResult;
  const firstRun = await suite.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  assert.equal(firstRun.status.name, 'CONTINUED_AS_NEW');
  const strip = (uri: string) =>
    readTrajectory(uri).map(({ turn, action, observation, status }) => ({
      turn,
      action,
      observation: observation.replace(/in \d+\.\d+s/g, 'in Xs'),
      status,
    }));
  assert.deepEqual(strip(chained.trajectoryUri), strip(plain.trajectoryUri));
  assert.deepEqual(chained.counters, plain.counters);
  assert.equal(chained.reward, plain.reward);
  assert.equal(chained.trueSuccess, plain.trueSuccess);
});

test('a 300-tool-call episode with 64 KB observations continues as new when the server suggests it and keeps history below 2 KB per turn', async () => {
  const turns = 300;
  const spec = scriptedPolicy([
    ...Array.from({ length: turns - 1 }, () => ({ tool: 'bash', command: "head -c 65536 /dev/zero | tr '\\0' y" })),
    { tool: 'submit' },
  ]);
  const workflowId = `long-${Date.now()}`;
  const result = await runEpisode(
    suite.env,
    suite.worker,
    {
      task: task('off-by-one-range'),
      policy: spec,
      budgets: { maxTurns: turns, maxTokens: 200_000_000, maxObservationBytes: 65_536, deadlineMs: '30m' },
    },
    workflowId,
  );
  assert.equal(result.outcome, 'submitted');
  assert.equal(result.counters.turns, turns);
  assert.equal(readTrajectory(result.trajectoryUri).length, turns);
  let bytes = 0;
  let runs = 0;
  for await (const execution of suite.env.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
    const history = await suite.env.client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
    bytes += temporal.api.history.v1.History.encode(history).finish().length;
    runs++;
  }
  const perTurn = bytes / turns;
  console.log(`history: ${bytes} bytes over ${runs} run(s), ${perTurn.toFixed(0)} bytes per turn`);
  assert.ok(perTurn < 2048, `history per turn is ${perTurn.toFixed(0)} bytes`);
  assert.ok(runs >= 2, `the episode continued as new when the server suggested it (${runs} run(s))`);
});

test('a host that vanished turns into sandbox_crash within a bounded time, and the reaper removes its container later', async () => {
  const config = testConfig(suite.env.address);
  const taskQueue = `vanish-${Date.now()}`;
  const host = spawnWorker(suite.env.address, config.stateDir, taskQueue);
  let orchestrator: RunningWorker | undefined;
  let reaper: RunningWorker | undefined;
  try {
    await waitReady(config.stateDir, host.pid!);
    const workflowId = `vanish-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue,
      workflowId,
      args: [
        {
          task: task('off-by-one-range'),
          policy: policy('off-by-one-range', 'sleep-loop'),
          timeouts: { heartbeatMs: '3s', hostScheduleToStartMs: '5s' },
        },
      ],
    });
    const result = handle.result() as Promise<EpisodeResult>;
    const journal = join(
      config.stateDir,
      'journal',
      episodeKey(`${workflowId}@${handle.firstExecutionRunId}`),
      '000001.json',
    );
    await waitFor('turn 1 to start', async () => existsSync(journal), 60_000);
    host.kill('SIGKILL');
    const killedAt = Date.now();
    // the workflows go on elsewhere; nothing serves the lost host's queue any more
    orchestrator = await startWorker(suite.env, testConfig(suite.env.address, config.stateDir), {
      taskQueue,
      sandboxes: false,
    });
    const episode = await result;
    assert.equal(episode.outcome, 'sandbox_crash');
    assert.equal(episode.reward, null);
    assert.match(episode.error ?? '', /stopped serving its queue/);
    assert.ok(Date.now() - killedAt < 60_000, 'bounded by the heartbeat and schedule-to-start timeouts');
    assert.equal((await containersOf(workflowId)).length, 1, 'the lost host could not release its container');
    await orchestrator.stop();
    orchestrator = undefined;
    reaper = await startWorker(suite.env, testConfig(suite.env.address, config.stateDir), { taskQueue });
    await waitFor('the reaper', async () => (await containersOf(workflowId)).length === 0, 30_000);
  } finally {
    host.kill('SIGKILL');
    await stopChild(host);
    await orchestrator?.stop();
    await reaper?.stop();
  }
});

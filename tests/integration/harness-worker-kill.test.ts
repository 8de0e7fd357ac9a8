// A harness episode whose worker is killed (kill -9) while one of its model calls is being generated: the call is
// taken over by the restarted worker within the heartbeat timeout, not after the generation's 15-minute limit, and the
// relaunched harness gets it from the record. The call is held in flight by its policy server being down (the real
// embedded SmolLM2 server behind vllm:, closed and opened again), so the kill lands during it every time.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadChatTokenizer, modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import { createCausalLmServer } from '../../serving/causal-lm-server';
import { episodeProgressQuery } from '../../workflows/messages';
import { containersOf, task, testConfig, useEpisodeServer, waitFor, type EpisodeResult } from '../helpers/temporal';
import { killChild, spawnWorker, stopChild, waitReady } from '../helpers/worker-process';

const suite = useEpisodeServer();
const model = 'smollm2-135m-instruct';
let server: Server;
let port = 0;

before(async () => {
  ({ server } = await createCausalLmServer({
    name: model,
    tokenizer: loadChatTokenizer(model),
    graphDir: join(modelCacheDir(), 'onnx', model),
    version: 'base',
  }));
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  port = (server.address() as AddressInfo).port;
});
after(() => closeServer());

function closeServer(): Promise<void> {
  if (!server.listening) return Promise.resolve();
  const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  server.closeAllConnections();
  return closed;
}

test('kill -9 of the worker during a model call: the restarted worker answers it within the heartbeat timeout', async () => {
  const config = testConfig(suite.env.address);
  const taskQueue = `harness-kill-${Date.now()}`;
  const first = spawnWorker(suite.env.address, config.stateDir, taskQueue);
  let second: ChildProcess | undefined;
  try {
    await waitReady(config.stateDir, first.pid!);
    const workflowId = `harness-kill-worker-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue,
      workflowId,
      args: [
        {
          task: task('wrong-comparison'),
          policy: `vllm:http://127.0.0.1:${port}`,
          harness: 'mini-swe-agent',
          sampling: { chat: { tokenizer: model, maxActionTokens: 16 } },
          // one generated call; the relaunched harness's next call meets the limit and ends the episode
          budgets: { maxTurns: 1 },
          timeouts: { heartbeatMs: '5s' },
        },
      ],
    });
    // the policy was described at the start; from now on its server is down, so the harness's first call waits
    await waitFor(
      'the harness to run',
      async () => (await handle.query(episodeProgressQuery)).phase === 'running',
      120_000,
    );
    await closeServer();
    await waitFor(
      'the first model call to be generating',
      async () =>
        (await handle.describe()).raw.pendingActivities?.some(
          (activity) => activity.activityType?.name === 'generateCall',
        ),
      180_000,
    );
    await killChild(first);
    second = spawnWorker(suite.env.address, config.stateDir, taskQueue);
    await new Promise<void>((resolveListen) => server.listen(port, '127.0.0.1', resolveListen));
    // the heartbeat timeout, the new worker's start and a generation; not the generation's 15-minute limit
    await waitFor(
      'the model call to be answered on the restarted worker',
      async () => (await generationsOf(workflowId)) > 0,
      120_000,
    );
    const result = (await handle.result()) as EpisodeResult;
    assert.equal(result.outcome, 'turn_limit', result.error ?? '');
    assert.equal(result.counters.harness?.launches, 2, 'the harness was started again');
    assert.equal(result.counters.harness?.replayed, 1, 'the relaunch got the answered call from the record');
    assert.equal(await generationsOf(workflowId), 1, 'the call was generated once');
    assert.deepEqual(await containersOf(workflowId), []);
  } finally {
    await killChild(first);
    if (second) await stopChild(second);
  }
});

/** The episode's completed generateCall activities. */
async function generationsOf(workflowId: string): Promise<number> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  let completed = 0;
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes) scheduled.set(String(event.eventId), attributes.activityType?.name ?? '');
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.get(String(done.scheduledEventId)) === 'generateCall') completed++;
  }
  return completed;
}

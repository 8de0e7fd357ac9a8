// Each way an episode can end is its own outcome, with its own counter; nothing is left behind.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import {
  containersOf,
  docker,
  policy,
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  task,
  useEpisodeServer,
  volumesOf,
  waitFor,
} from '../helpers/temporal';
import { episodeProgressQuery } from '../../workflows/messages';

const suite = useEpisodeServer();

const offByOne = task('off-by-one-range');

describe('episode outcomes', { concurrency: 3 }, () => {
  test('killing the container from outside mid-episode gives sandbox_crash', async () => {
    const workflowId = `kill-${Date.now()}`;
    const running = runEpisode(
      suite.env,
      suite.worker,
      { task: offByOne, policy: policy('off-by-one-range', 'sleep-loop') },
      workflowId,
    );
    const [agent] = await waitFor('the agent container', async () => {
      const list = (await containersOf(workflowId)).filter(
        (c) => c.Labels['agentrl.role'] === 'agent' && c.State === 'running',
      );
      return list.length ? list : null;
    });
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 2500));
    await docker.getContainer(agent!.Id).kill();
    const result = await running;
    assert.equal(result.outcome, 'sandbox_crash');
    assert.equal(result.reward, null, 'an environment failure has no reward');
    assert.equal(result.trueSuccess, null);
    assert.ok(result.counters.turns >= 1);
    assert.deepEqual(await containersOf(workflowId), []);
  });

  test('cancelling an episode releases its sandbox', async () => {
    const workflowId = `cancel-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue: suite.worker.taskQueue,
      workflowId,
      args: [{ task: offByOne, policy: policy('off-by-one-range', 'sleep-loop') }],
    });
    await waitFor('the agent container', async () =>
      (await containersOf(workflowId)).some((c) => c.State === 'running'),
    );
    const progress = await waitFor('a turn in progress', async () => {
      const answer = await handle.query(episodeProgressQuery);
      return answer.phase === 'running' && answer.counters.turns >= 1 ? answer : null;
    });
    assert.equal(progress.taskId, 'off-by-one-range');
    await handle.cancel();
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
    );
    assert.deepEqual(await containersOf(workflowId), []);
    assert.deepEqual(await volumesOf(workflowId), []);
  });

  test('a memory bomb by the agent gives agent_crash with reward 0', async () => {
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: policy('off-by-one-range', 'memory-bomb'),
    });
    assert.equal(result.outcome, 'agent_crash');
    assert.equal(result.reward, 0);
    assert.equal(result.trueSuccess, false);
    assert.match(readTrajectory(result.trajectoryUri)[0]!.observation, /out of memory/);
    assert.deepEqual(await containersOf(result.workflowId), []);
  });

  test('a tree that cannot be parked (a sparse file larger than the volume) ends as agent_crash with reward 0', async () => {
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: scriptedPolicy([
        { tool: 'bash', command: 'truncate -s 2G notes.bin && ls -l notes.bin | wc -l' },
        { tool: 'submit' },
      ]),
      segment: { maxTurns: 1 },
    });
    assert.equal(result.outcome, 'agent_crash', JSON.stringify(result.error));
    assert.equal(result.reward, 0);
    assert.equal(result.trueSuccess, false);
    assert.match(result.error ?? '', /^over_limits: .*(larger than|more than)/);
    assert.deepEqual(await containersOf(result.workflowId), []);
  });

  test('the turn limit gives turn_limit, and the final state is still scored', async () => {
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: policy('off-by-one-range', 'many-turns'),
      budgets: { maxTurns: 4 },
    });
    assert.equal(result.outcome, 'turn_limit');
    assert.equal(result.counters.turns, 4);
    assert.equal(result.counters.turnLimitHits, 1);
    assert.equal(result.reward, 0);
    assert.equal(readTrajectory(result.trajectoryUri).length, 4);
  });

  test('the token limit gives token_limit', async () => {
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: policy('off-by-one-range', 'big-output'),
      budgets: { maxTokens: 4000 },
    });
    assert.equal(result.outcome, 'token_limit');
    assert.equal(result.counters.tokenLimitHits, 1);
    assert.ok(result.counters.tokens >= 4000);
    assert.equal(result.counters.truncatedOutputs, 1);
    assert.match(readTrajectory(result.trajectoryUri)[0]!.observation, /bytes truncated/);
  });

  test('the deadline gives timeout', async () => {
    const started = Date.now();
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: policy('off-by-one-range', 'sleep-loop'),
      budgets: { deadlineMs: '5s' },
    });
    assert.equal(result.outcome, 'timeout');
    assert.equal(result.counters.deadlineHits, 1);
    assert.ok(Date.now() - started < 30_000, 'the deadline ends the episode promptly');
  });

  test('malformed and unknown tool calls are observations and counted tool errors', async () => {
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: policy('off-by-one-range', 'malformed'),
    });
    assert.equal(result.outcome, 'submitted');
    assert.equal(result.counters.toolErrors, 3);
    const turns = readTrajectory(result.trajectoryUri);
    assert.match(turns[0]!.observation, /unknown command "not"/);
    assert.match(turns[1]!.observation, /unknown tool "teleport"/);
    assert.match(turns[2]!.observation, /command/);
  });

  test('a tool call past its timeout has its whole process group killed', async () => {
    const spec = scriptedPolicy([
      { tool: 'bash', command: '(sleep 300 &) ; sleep 301 & sleep 302' },
      { tool: 'bash', command: 'ps -eo args | grep -c "^sleep 30" || true' },
      { tool: 'submit' },
    ]);
    const result = await runEpisode(suite.env, suite.worker, {
      task: offByOne,
      policy: spec,
      budgets: { toolTimeoutMs: '1500ms' },
    });
    assert.equal(result.counters.toolTimeouts, 1);
    const turns = readTrajectory(result.trajectoryUri);
    assert.match(turns[0]!.observation, /timed out/);
    // `(sleep 300 &)` left the group by double-forking into a new parent but not a new session: it is gone too
    assert.match(turns[1]!.observation, /^0\n/);
  });

  test('a workflow started with {} runs a bundled example', async () => {
    const result = await runEpisode(suite.env, suite.worker, {});
    assert.equal(result.taskId, 'wrong-comparison');
    assert.equal(result.outcome, 'submitted');
    assert.equal(result.reward, 1);
  });

  test('episodes are searchable by run, task, outcome and reward', async () => {
    const runId = `search-${Date.now()}`;
    const result = await runEpisode(suite.env, suite.worker, {
      task: task('swapped-return'),
      policy: policy('swapped-return', 'fix'),
      runId,
    });
    const query = `AgentrlRunId = "${runId}" AND AgentrlTaskId = "swapped-return" AND AgentrlOutcome = "submitted" AND AgentrlReward = 1`;
    const found = await waitFor('the episode in visibility', async () => {
      const ids: string[] = [];
      for await (const execution of suite.env.client.workflow.list({ query })) ids.push(execution.workflowId);
      return ids.length ? ids : null;
    });
    assert.deepEqual(found, [result.workflowId]);
  });

  test('an invalid task is rejected before any container starts, naming the file and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-badtask-'));
    cpSync(offByOne, dir, { recursive: true });
    writeFileSync(join(dir, 'task.yaml'), 'id: Not A Valid Id\nprompt: fix it\n');
    const workflowId = `bad-task-${Date.now()}`;
    await assert.rejects(
      runEpisode(suite.env, suite.worker, { task: dir, policy: policy('off-by-one-range', 'fix') }, workflowId),
      (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError);
        // the workflow fails with the activity's failure, whose cause is the InvalidTask application failure
        const activityFailure = error.cause as Error & { cause?: Error };
        const message = activityFailure.cause?.message ?? activityFailure.message;
        assert.match(message, /task\.yaml: id: must be lowercase/);
        return true;
      },
    );
    assert.deepEqual(await containersOf(workflowId), []);
  });

  test('a bad input field is rejected with its name', async () => {
    await assert.rejects(runEpisode(suite.env, suite.worker, { checker: 'lenient' }), (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError);
      assert.match(String((error.cause as Error).message), /episode input: checker/);
      return true;
    });
  });
});

test('the reaper removes containers whose episode is closed', async () => {
  const { createHardenedContainer, deploymentId, sandboxName } = await import('../../activities/sandbox/container');
  const deployment = deploymentId(
    suite.worker.config.temporal.address,
    suite.worker.config.temporal.namespace,
    suite.worker.taskQueue,
  );
  const workflowId = `never-started-${Date.now()}`;
  const { container } = await createHardenedContainer(docker, {
    name: sandboxName(deployment, workflowId),
    deployment,
    image: suite.worker.config.sandbox.image,
    workflowId,
    episodeId: workflowId,
    runId: 'reaper-test',
    role: 'agent',
    sandbox: suite.worker.config.sandbox,
  });
  await container.start();
  // the worker's reaper runs every 5 s in tests; a workflow the server does not know is closed
  await waitFor(
    'the reaper',
    async () => (await containersOf(workflowId)).length === 0 && (await volumesOf(workflowId)).length === 0,
    30_000,
  );
});

test('removing a sandbox that another caller is removing succeeds (docker answers 409 to all but one)', async () => {
  const { createHardenedContainer, deploymentId, removeSandbox, sandboxName } =
    await import('../../activities/sandbox/container');
  const deployment = deploymentId(
    suite.worker.config.temporal.address,
    suite.worker.config.temporal.namespace,
    suite.worker.taskQueue,
  );
  const workflowId = `removal-race-${Date.now()}`;
  const name = sandboxName(deployment, workflowId);
  const { container, volumes } = await createHardenedContainer(docker, {
    name,
    deployment,
    image: suite.worker.config.sandbox.image,
    workflowId,
    episodeId: workflowId,
    runId: 'removal-race',
    role: 'agent',
    sandbox: suite.worker.config.sandbox,
  });
  await container.start();
  // as when a cancelled episode's release and its grader's own clean-up remove the same container
  const removals = await Promise.allSettled([1, 2, 3].map(() => removeSandbox(docker, name, volumes)));
  assert.deepEqual(
    removals.map((removal) => removal.status),
    ['fulfilled', 'fulfilled', 'fulfilled'],
    JSON.stringify(removals.map((removal) => (removal.status === 'rejected' ? String(removal.reason) : 'ok'))),
  );
  assert.equal((await containersOf(workflowId)).length, 0);
  assert.equal((await volumesOf(workflowId)).length, 0);
});

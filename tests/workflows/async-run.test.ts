// An asynchronous trainingRun's orchestration against the real dev server with stubbed activities:
// admission within the staleness bound, batches cut as groups complete, stale groups dropped and
// counted, versions reaching the episodes in flight, parking and resuming, continue-as-new with
// episodes in flight, cancellation letting every episode go.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TakeTurnInput } from '../../activities/tools/take-turn';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { seededSample } from '../../shared/math/random';
import type { AsyncStepMetrics } from '../../shared/contracts/run-metrics';
import { withStubbedWorkers, turnSummary, type StubActivities, type StubbedWorkers } from '../helpers/stubs';
import { startTestServer, waitFor } from '../helpers/temporal';
import { stubTrainTasks, trainingStubs, type EpisodePlan } from '../helpers/training-stubs';

let env: TestWorkflowEnvironment;
before(async () => {
  env = await startTestServer();
});
after(async () => {
  await env?.teardown();
});

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
const reward1: EpisodePlan = (task, seed) => (seed % 2 === 0 ? 'reward-1' : 'reward-0');
const input = (runId: string, fields: Record<string, unknown> = {}) => ({
  runId,
  tasks: '/stub/tasks',
  evaluation: { tasks: '' },
  iterations: 3,
  tasksPerIteration: 2,
  groupSize: 2,
  concurrency: 4,
  warmStart: { episodes: 0, epochs: 1 },
  policyServer: 'http://stub.invalid:1',
  seed: 0,
  credit: { stopCredit: 0 },
  mode: 'async',
  ...fields,
});

const withWorkers = (stubs: StubActivities, body: (workers: StubbedWorkers) => Promise<void>) =>
  withStubbedWorkers(env, stubs, body);

/** The task of a stubbed episode, from the prompt reference the stubs give it. */
const taskOfTurn = (turn: TakeTurnInput) => turn.promptRef!.split(':')[1]!;

describe('asynchronous trainingRun (stubbed activities)', () => {
  test('η = 0 trains, step by step, the task draws and groups of the synchronous run, every token fresh', async () => {
    const { stubs, records } = trainingStubs(reward1);
    await withWorkers(stubs, async (workers) => {
      await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: 'fast-async-eta0',
        args: [input('fast-async-eta0', { async: { maxStaleness: 0 } })],
      });
      const asyncBatches = records.batches.map((batch) => ({
        base: batch.baseStep,
        groups: [...new Set(batch.episodes.map((episode) => episode.groupId.split(':')[1]))].sort(),
      }));
      assert.deepEqual(
        asyncBatches.map((batch) => batch.base),
        [0, 1, 2],
      );
      // each step's groups are the synchronous iteration's draw
      for (const [index, batch] of asyncBatches.entries())
        assert.deepEqual(batch.groups, seededSample(stubTrainTasks, 2, index).sort(), `step ${index}`);
      assert.deepEqual(
        records.steps.map((step) => [step.step, step.maxStaleness, step.offPolicy]),
        [
          [1, 0, 'none'],
          [2, 0, 'none'],
          [3, 0, 'none'],
        ],
      );
      // every episode of a batch sampled the version its step starts from: admission paused while training
      const children = workers.calls.takeTurn as TakeTurnInput[];
      const versionsOf = (base: number) =>
        new Set(
          records.batches[base]!.episodes.flatMap((episode) =>
            children
              .filter((turn) => episode.episodeId.startsWith(turn.episodeId.split('@')[0]!))
              .map((turn) => turn.policy.version),
          ),
        );
      assert.deepEqual([...versionsOf(0)], ['published-v0']);
      assert.deepEqual([...versionsOf(1)], ['published-v1']);
      assert.deepEqual([...versionsOf(2)], ['published-v2']);
      const lines = records.metrics.filter((line) => line.async);
      assert.equal(lines.length, 3);
      for (const line of lines) assert.equal(line.async!.stale, 0);
    });
  });

  test('a slow group admitted early is staler than η when its batch is cut: dropped and counted; no trained group is staler', async () => {
    const { stubs, records } = trainingStubs(reward1);
    // the first group's episodes take 4 s a turn, the others none: it completes steps after it was admitted
    const slow: StubActivities = {
      ...stubs,
      async takeTurn(turn: TakeTurnInput) {
        if (turn.episodeId.includes('.g0.')) {
          for (let waited = 0; waited < 4000; waited += 500) {
            Context.current().heartbeat();
            await sleep(500);
          }
        }
        return stubs.takeTurn!(turn);
      },
    };
    await withWorkers(slow, async (workers) => {
      const runId = 'fast-async-stale';
      await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId, { async: { maxStaleness: 1, groupsPerStep: 1 }, iterations: 4, concurrency: 4 })],
      });
      const lines = records.metrics.filter((line) => line.async);
      assert.equal(lines.length, 4);
      const stale = lines.reduce((sum, line) => sum + line.async!.stale, 0);
      assert.ok(stale >= 1, JSON.stringify(lines.map((line) => line.async)));
      // no batch holds a group whose oldest version is more than η behind its step's base
      const versionStep = (version: string) => Number(version.replace('published-v', ''));
      const children = workers.calls.takeTurn as TakeTurnInput[];
      for (const batch of records.batches) {
        for (const episode of batch.episodes) {
          const versions = children
            .filter((turn) => turn.episodeId.startsWith(episode.episodeId.split('@')[0]!))
            .map((turn) => versionStep(turn.policy.version));
          assert.ok(
            batch.baseStep! - Math.min(...versions) <= 1,
            `${episode.episodeId} in the batch of base ${batch.baseStep}: versions ${versions.join(', ')}`,
          );
        }
      }
    });
  });

  test('episodes park after their segment, resume on the next published version, and their turns record both versions', async () => {
    const { stubs, records } = trainingStubs(reward1);
    const parked: string[] = [];
    const restored: unknown[] = [];
    const segmented: StubActivities = {
      ...stubs,
      // three turns before submitting, slow enough for a step to be published meanwhile
      async takeTurn(turn: TakeTurnInput) {
        await sleep(taskOfTurn(turn) === 'alpha' ? 1500 : 50);
        // every turn goes through the stub, which records its version as the real one records the turn's context
        const submitted = await stubs.takeTurn!(turn);
        return turn.turn < 2 ? turnSummary(turn.turn, 'ok') : submitted;
      },
      async parkSandbox(park) {
        parked.push(park.episodeId);
        return {
          ref: `sha256:${'3'.repeat(64)}`,
          digest: 'd',
          entries: 1,
          bytes: 1,
          root: { mode: 0o755, uid: 1000, gid: 1000 },
        };
      },
      async acquireSandbox(acquire) {
        if (acquire.restore) restored.push(acquire.restore);
        return {
          hostId: 'stub-host',
          containerId: `id-${acquire.episodeId}`,
          containerName: `stub-${acquire.episodeId}-${acquire.restore?.segment ?? 0}`,
          volumes: [],
        };
      },
    };
    await withWorkers(segmented, async (workers) => {
      const runId = 'fast-async-park';
      await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId, { async: { segment: { maxTurns: 1 }, maxStaleness: 2 }, iterations: 2 })],
      });
      assert.ok(parked.length > 0);
      assert.equal(restored.length, parked.length, 'every parked episode was resumed in a restored sandbox');
      const lines = records.metrics.filter((line) => line.async);
      const sum = (key: keyof AsyncStepMetrics) =>
        lines.reduce((total, line) => total + (line.async![key] as number), 0);
      assert.equal(sum('parked'), sum('resumed') + lines.at(-1)!.async!.parkedNow);
      // some episode sampled its first turn under one version and a later turn under the next
      const turns = workers.calls.takeTurn as TakeTurnInput[];
      const byEpisode = new Map<string, string[]>();
      for (const turn of turns)
        byEpisode.set(turn.episodeId, [...(byEpisode.get(turn.episodeId) ?? []), turn.policy.version]);
      assert.ok(
        [...byEpisode.values()].some((versions) => new Set(versions).size > 1),
        JSON.stringify([...byEpisode.values()]),
      );
      // each step counts the episodes it trains on whose turns sampled more than one published version
      const spanning = records.batches.map(
        (batch) =>
          batch.episodes.filter((episode) => {
            const versions = byEpisode.get(episode.episodeId) ?? [];
            const published = versions.filter((version) => batch.versions[version] !== undefined);
            return episode.outcome === 'submitted' && new Set(published).size > 1;
          }).length,
      );
      assert.ok(
        spanning.some((count) => count > 0),
        `no trained episode spans versions: ${spanning.join(', ')}`,
      );
      assert.deepEqual(
        lines.map((line) => line.async!.spanningVersions),
        spanning,
      );
      // the run continued as new after its first step with episodes in flight, and they reported to its next run
      const executions: string[] = [];
      for await (const execution of env.client.workflow.list({ query: `WorkflowId = "${runId}"` }))
        executions.push(execution.status.name);
      assert.ok(executions.includes('CONTINUED_AS_NEW'), executions.join(','));
    });
  });

  test('cancelling an asynchronous run lets every episode go, parked ones included, and reports cancelled', async () => {
    const { stubs } = trainingStubs(reward1);
    const released: string[] = [];
    const hanging: StubActivities = {
      ...stubs,
      async takeTurn(turn: TakeTurnInput) {
        // gamma's episodes act forever; the others park after one turn (a segment) and wait
        if (taskOfTurn(turn) === 'gamma') {
          for (;;) {
            Context.current().heartbeat();
            await Promise.race([Context.current().cancelled, sleep(200)]);
          }
        }
        return turnSummary(turn.turn, 'ok');
      },
      async parkSandbox() {
        return {
          ref: `sha256:${'3'.repeat(64)}`,
          digest: 'd',
          entries: 1,
          bytes: 1,
          root: { mode: 0o755, uid: 1000, gid: 1000 },
        };
      },
      async releaseSandbox(release) {
        released.push(release.sandbox.containerName);
      },
    };
    await withWorkers(hanging, async (workers) => {
      const runId = 'fast-async-cancel';
      const handle = await env.client.workflow.start('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId, { async: { segment: { maxTurns: 1 } }, tasksPerIteration: 3, concurrency: 6 })],
      });
      await waitFor(
        'episodes to park and others to act',
        async () => {
          let parkedNow = 0;
          for await (const execution of env.client.workflow.list({
            query: `AgentrlRunId = "${runId}" AND AgentrlPhase = "parked" AND ExecutionStatus = "Running"`,
          }))
            parkedNow += execution ? 1 : 0;
          return parkedNow >= 2;
        },
        60_000,
      );
      await handle.cancel();
      await assert.rejects(handle.result(), (error: unknown) => error instanceof WorkflowFailedError);
      // every episode of the run has ended, and every container it held was released
      await waitFor(
        'every episode to end',
        async () => {
          for await (const execution of env.client.workflow.list({
            query: `AgentrlRunId = "${runId}" AND ExecutionStatus = "Running"`,
          }))
            return !execution;
          return true;
        },
        60_000,
      );
      const acquired = (workers.calls.acquireSandbox ?? []).length;
      assert.ok(acquired >= 4);
      assert.equal(new Set(released).size, acquired, "one release per container, the parked episodes' at their park");
      const results: EpisodeResult[] = [];
      for await (const execution of env.client.workflow.list({
        query: `AgentrlRunId = "${runId}" AND ExecutionStatus = "Completed"`,
      })) {
        results.push((await env.client.workflow.getHandle(execution.workflowId).result()) as EpisodeResult);
      }
      assert.ok(
        results.every((result) => result.outcome === 'abandoned'),
        JSON.stringify(results.map((result) => result.outcome)),
      );
    });
  });
});

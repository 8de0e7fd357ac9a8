// Records the workflow histories that tests/workflows/replay.test.ts replays. Run after an intended
// change of workflow logic: node --import tsx tests/workflows/record-histories.ts [NAME...]
// Episode histories run real containers (Docker); training-run histories run on stubbed activities.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { startStubbedWorkers, turnSummary } from '../helpers/stubs';
import { policy, scriptedPolicy, startTestServer, startWorker, task, waitFor } from '../helpers/temporal';
import { trainingStubs } from '../helpers/training-stubs';
import { projectRoot } from '../../workers/config';
import { episodeProgressQuery, resumeSignal } from '../../workflows/messages';

const episodeCases: Record<string, Record<string, unknown>> = {
  'fix-strict': { task: task('wrong-comparison'), policy: policy('wrong-comparison', 'fix') },
  'malformed-then-turn-limit': {
    task: task('off-by-one-range'),
    policy: scriptedPolicy(['not json', { tool: 'bash', command: 'echo hi' }, { tool: 'bash', command: 'echo again' }]),
    budgets: { maxTurns: 3 },
  },
  // parks after two turns; the recorder resumes it once it is parked
  'parked-then-resumed': {
    task: task('wrong-comparison'),
    policy: policy('wrong-comparison', 'fix'),
    segment: { maxTurns: 2 },
  },
};

/**
 * A two-iteration run with a warm start, evaluations and stop credit: its first execution and the one it continued as.
 */
const trainingInput = {
  runId: 'history-training-run',
  tasks: '/stub/tasks',
  evaluation: { tasks: '/stub/eval', samples: 1, every: 1 },
  iterations: 2,
  tasksPerIteration: 2,
  groupSize: 2,
  warmStart: { episodes: 2, epochs: 1 },
  policyServer: 'http://stub.invalid:1',
  seed: 0,
  credit: { stopCredit: 5 },
};

async function save(name: string, handle: WorkflowHandle): Promise<void> {
  const { History } = temporal.api.history.v1;
  // protobuf's own JSON form (64-bit ints and bytes as strings); History.fromObject reads it back
  const json = History.toObject(History.fromObject(await handle.fetchHistory()), {
    longs: String,
    enums: String,
    bytes: String,
  });
  writeFileSync(join(projectRoot, 'tests', 'histories', `${name}.json`), `${JSON.stringify(json, null, 1)}\n`);
  console.log(`recorded ${name}`);
}

async function recordEpisodes(env: TestWorkflowEnvironment, names: string[]): Promise<void> {
  const worker = await startWorker(env);
  try {
    for (const name of names) {
      const handle = await env.client.workflow.start('rolloutEpisode', {
        taskQueue: worker.taskQueue,
        workflowId: `history-${name}`,
        args: [episodeCases[name]],
      });
      if (episodeCases[name]!.segment) {
        await waitFor(
          'the episode to park',
          async () => (await handle.query(episodeProgressQuery).catch(() => null))?.phase === 'parked',
          120_000,
        );
        await handle.signal(resumeSignal, { segment: null });
      }
      await handle.result();
      await save(name, handle);
    }
  } finally {
    await worker.stop();
  }
}

async function recordTrainingRun(env: TestWorkflowEnvironment): Promise<void> {
  const { stubs } = trainingStubs((taskName, seed) =>
    seed % 2 === 0 ? 'reward-1' : taskName === 'beta' ? 'sandbox_crash' : 'reward-0',
  );
  const workers = await startStubbedWorkers(env, stubs);
  try {
    const handle = await env.client.workflow.start('trainingRun', {
      taskQueue: workers.taskQueue,
      workflowId: trainingInput.runId,
      args: [trainingInput],
    });
    await handle.result();
    await save('training-run-first', env.client.workflow.getHandle(trainingInput.runId, handle.firstExecutionRunId));
    await save('training-run-last', env.client.workflow.getHandle(trainingInput.runId));
  } finally {
    await workers.stop();
  }
}

/** An asynchronous run of three steps with parked episodes, continuing as new with episodes in flight. */
const asyncInput = {
  runId: 'history-async-run',
  tasks: '/stub/tasks',
  evaluation: { tasks: '/stub/eval', samples: 1, every: 1 },
  iterations: 2,
  tasksPerIteration: 2,
  groupSize: 2,
  warmStart: { episodes: 0, epochs: 1 },
  policyServer: 'http://stub.invalid:1',
  seed: 0,
  credit: { stopCredit: 0 },
  mode: 'async',
  async: { maxStaleness: 1, segment: { maxTurns: 1 } },
};

async function recordAsyncRun(env: TestWorkflowEnvironment): Promise<void> {
  const { stubs } = trainingStubs((_, seed) => (seed % 2 === 0 ? 'reward-1' : 'reward-0'));
  // two turns each, so that every training episode parks once
  const workers = await startStubbedWorkers(env, {
    ...stubs,
    takeTurn: async (turn) => (turn.turn === 0 ? turnSummary(0, 'ok') : stubs.takeTurn!(turn)),
  });
  try {
    const handle = await env.client.workflow.start('trainingRun', {
      taskQueue: workers.taskQueue,
      workflowId: asyncInput.runId,
      args: [asyncInput],
    });
    await handle.result();
    await save('async-run-first', env.client.workflow.getHandle(asyncInput.runId, handle.firstExecutionRunId));
    await save('async-run-last', env.client.workflow.getHandle(asyncInput.runId));
  } finally {
    await workers.stop();
  }
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const wanted = (name: string) => names.length === 0 || names.includes(name);
  const env = await startTestServer();
  try {
    const episodes = Object.keys(episodeCases).filter(wanted);
    if (episodes.length) await recordEpisodes(env, episodes);
    if (wanted('training-run')) await recordTrainingRun(env);
    if (wanted('async-run')) await recordAsyncRun(env);
  } finally {
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// trainingRun's orchestration against the real dev server with stubbed activities (no container, no
// trainer process): which episodes run with which policy, how their outcomes are counted, what each
// batch and trainer step receives, and how a resumed run continues.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { seededSample } from '../../shared/math/random';
import type { TrainingRunResult } from '../../workflows/training-run';
import { withStubbedWorkers, type StubActivities, type StubbedWorkers } from '../helpers/stubs';
import { startTestServer } from '../helpers/temporal';
import { stubTrainTasks, trainingStubs, type EpisodePlan } from '../helpers/training-stubs';

let env: TestWorkflowEnvironment;
before(async () => {
  env = await startTestServer();
});
after(async () => {
  await env?.teardown();
});

const plans: Record<string, Record<number, ReturnType<EpisodePlan>>> = {
  alpha: { 0: 'reward-1', 1: 'sandbox_crash', 2: 'reward-0' },
  beta: { 0: 'reward-1', 1: 'reward-0', 2: 'policy_error' },
  gamma: { 0: 'reward-0', 1: 'reward-1', 2: 'reward-1' },
  omega: { 0: 'reward-1' },
};
const plan: EpisodePlan = (task, seed) => plans[task]?.[seed % 10_000] ?? 'reward-0';
const name = (path: string) => path.split('/').at(-1)!;
const input = (runId: string, fields: Record<string, unknown> = {}) => ({
  runId,
  tasks: '/stub/tasks',
  evaluation: { tasks: '/stub/eval', samples: 1 },
  iterations: 1,
  tasksPerIteration: 2,
  groupSize: 3,
  warmStart: { episodes: 2, epochs: 3 },
  policyServer: 'http://stub.invalid:1',
  seed: 0,
  credit: { stopCredit: 0 },
  ...fields,
});

const withWorkers = (stubs: StubActivities, body: (workers: StubbedWorkers) => Promise<void>) =>
  withStubbedWorkers(env, stubs, body);

describe('trainingRun orchestration (stubbed activities)', () => {
  test('episodes, outcomes, batches and steps are accounted for; iterations sample the published policy, pinned', async () => {
    const { stubs, records } = trainingStubs(plan);
    await withWorkers(stubs, async (workers) => {
      const runId = 'fast-accounting';
      const result = (await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId)],
      })) as TrainingRunResult;
      const drawn = seededSample(stubTrainTasks, 2, 0);

      // the warm start imitates two demonstrations, then one policy-gradient step, each published
      assert.deepEqual(
        records.steps.map((step) => [step.step, step.stepId, step.objective, step.epochs]),
        [
          [1, `${runId}-step-1`, 'imitation', 3],
          [2, `${runId}-step-2`, 'policy_gradient', 4],
        ],
      );
      assert.equal(records.steps[1]!.referenceStep, 1, 'the policy-gradient step is anchored to the warm start');
      assert.ok(
        records.steps.every((step) => step.keepCheckpoints === undefined),
        'every checkpoint kept by default',
      );
      assert.deepEqual(
        records.published.map((ref) => ref.split('/').at(-1)),
        ['v0', 'v1', 'v2'],
      );
      assert.deepEqual(result, {
        runId,
        runRef: `file:///stub/runs/${runId}`,
        steps: 2,
        policyVersion: 'published-v2',
        reportRef: `file:///stub/runs/${runId}/report.md`,
      });

      // the warm start's batch: two demonstrations, grouped by task; the iteration's: every episode, failures included
      const [demo, iteration] = records.batches;
      assert.equal(demo!.objective, 'imitation');
      assert.deepEqual(
        demo!.episodes.map((episode) => episode.groupId),
        stubTrainTasks.slice(0, 2),
      );
      assert.equal(iteration!.objective, 'policy_gradient');
      assert.deepEqual(
        iteration!.episodes.map((episode) => episode.groupId),
        drawn.flatMap((task) => [0, 1, 2].map(() => `0:${task}`)),
      );
      const expected = drawn.flatMap((task) => [0, 1, 2].map((seed) => plan(name(task), seed)));
      const outcomeOf = {
        'reward-1': 'submitted',
        'reward-0': 'submitted',
        sandbox_crash: 'sandbox_crash',
        policy_error: 'policy_error',
      } as const;
      assert.deepEqual(
        iteration!.episodes.map((episode) => episode.outcome),
        expected.map((planned) => outcomeOf[planned]),
      );
      assert.deepEqual(
        iteration!.episodes.map((episode) => episode.reward),
        expected.map((planned) => (planned === 'reward-1' ? 1 : planned === 'reward-0' ? 0 : null)),
      );

      // the iteration's metrics count every episode once, by outcome; means over those that have a reward
      const [warm, line, final] = records.metrics;
      // the warm start's line: its two demonstrations, no evaluation before it unless asked for
      assert.deepEqual([warm!.iteration, warm!.train!.episodes, warm!.eval, warm!.step], [-1, 2, null, 1]);
      // the iteration's solved episodes (paid and confirmed) are recorded for later warm starts, with their tasks
      assert.deepEqual(
        records.solved.map((entry) => [entry.iteration, entry.episodes.map((episode) => episode.task).sort()]),
        [
          [
            0,
            drawn
              .flatMap((task) => [0, 1, 2].filter((seed) => plan(name(task), seed) === 'reward-1').map(() => task))
              .sort(),
          ],
        ],
      );
      const outcomes: Record<string, number> = {};
      for (const planned of expected) outcomes[outcomeOf[planned]] = (outcomes[outcomeOf[planned]] ?? 0) + 1;
      const rewards = expected
        .filter((planned) => planned.startsWith('reward'))
        .map((planned) => (planned === 'reward-1' ? 1 : 0));
      assert.equal(line!.iteration, 0);
      assert.equal(line!.train!.episodes, 6);
      assert.deepEqual(line!.train!.outcomes, outcomes);
      assert.equal(line!.train!.meanReward, rewards.reduce((a: number, b: number) => a + b, 0) / rewards.length);
      assert.equal(line!.policyVersion, 'published-v1', 'the iteration sampled the warm-started policy');
      assert.equal(line!.step, 2);
      assert.equal(line!.eval, null, 'no evaluation before the steps without evaluation.every');
      assert.equal(final!.iteration, 1);
      assert.deepEqual([final!.eval!.episodes, final!.eval!.trueSuccess, final!.train], [1, 1, null]);

      // the run's state moves on, and each published version is numbered by its step
      const state = records.states.at(-1)!;
      assert.equal(state.iteration, 1);
      assert.equal(state.warmStarted, true);
      assert.deepEqual(state.versions, { 'published-v0': 0, 'published-v1': 1, 'published-v2': 2 });
      // iteration and evaluation episodes name the published version they sample
      const policies = (workers.calls.prepareEpisode as { policy: string }[]).map((call) => call.policy);
      assert.deepEqual([...new Set(policies)].sort(), [
        'completions:http://stub.invalid:1#published-v1',
        'completions:http://stub.invalid:1#published-v2',
        'demo:format',
      ]);
      // each episode is a child with a deterministic id; one whose policy could not be prepared failed as a workflow
      const children = await Promise.all(
        drawn.map((task) => env.client.workflow.getHandle(`${runId}.it0.${name(task)}.2`).describe()),
      );
      assert.deepEqual(
        children.map((child) => child.status.name),
        drawn.map((task) => (plan(name(task), 2) === 'policy_error' ? 'FAILED' : 'COMPLETED')),
      );
    });
  });

  test('a real model by name: its prepared weights as v0, demo:solve, chat batches, vllm: episodes pinned, publications that name the version', async () => {
    const { stubs, records } = trainingStubs(plan);
    await withWorkers(stubs, async (workers) => {
      const runId = 'fast-real-model';
      const model = 'smollm2-135m-instruct';
      const result = (await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId, { model: { name: model }, groupSize: 2, warmStart: { episodes: 2 }, keepCheckpoints: 1 })],
      })) as TrainingRunResult;
      assert.deepEqual(records.inits, [{ runRef: `file:///stub/runs/${runId}`, seed: 0, model }]);
      assert.equal(result.policyVersion, `${runId}-step-2`);
      // every publication goes through the vLLM sequence and names its version: the base, then each step's
      assert.deepEqual(
        records.publications.map((publication) => [publication.api, publication.version, publication.policyRef]),
        [
          ['vllm', `${model}-base`, `model://${model}`],
          ['vllm', `${runId}-step-1`, `file:///stub/runs/${runId}/policies/v1`],
          ['vllm', `${runId}-step-2`, `file:///stub/runs/${runId}/policies/v2`],
        ],
      );
      // the trainer gets the model's name, never a toy size; the warm start its own learning rate
      assert.deepEqual(
        records.steps.map((step) => [step.model, step.modelConfig, step.objective, step.optimizer?.lr]),
        [
          [model, undefined, 'imitation', 1e-4],
          [model, undefined, 'policy_gradient', 1e-5],
        ],
      );
      assert.equal(records.steps[1]!.referenceStep, 1);
      // the trainer removes what the run does not keep
      assert.deepEqual(
        records.steps.map((step) => step.keepCheckpoints),
        [1, 1],
      );
      assert.ok(
        records.batches.every(
          (batch) =>
            batch.agentInterface === 'chat-tools' && batch.chatTokenizer === model && batch.vocabSize === undefined,
        ),
      );
      const calls = workers.calls.prepareEpisode as {
        policy: string;
        sampling: { chat?: { tokenizer: string; maxActionTokens: number } };
      }[];
      // a chat model imitates only the demonstrations that were paid and confirmed (planned reward-1), of two tasks
      // sampled from the three
      const demos = (workers.calls.prepareEpisode as { policy: string; task: string; sampling: { seed: number } }[])
        .filter((call) => call.policy === 'demo:solve')
        .map((call) => ({ task: call.task, solved: plan(name(call.task), call.sampling.seed) === 'reward-1' }));
      assert.equal(new Set(demos.map((demo) => demo.task)).size, 2);
      assert.ok(demos.some((demo) => demo.solved) && demos.some((demo) => !demo.solved), JSON.stringify(demos));
      assert.deepEqual(
        records.batches[0]!.episodes.map((episode) => episode.groupId),
        demos.filter((demo) => demo.solved).map((demo) => demo.task),
      );
      assert.deepEqual([...new Set(calls.map((call) => call.policy))].sort(), [
        'demo:solve',
        `vllm:http://stub.invalid:1#${runId}-step-1`,
        `vllm:http://stub.invalid:1#${runId}-step-2`,
      ]);
      // the presets' chat options (the served model states its own window)
      assert.ok(
        calls.every((call) => call.sampling.chat?.tokenizer === model && call.sampling.chat.maxActionTokens === 96),
        JSON.stringify(calls[0]),
      );
      assert.deepEqual(records.states.at(-1)!.versions, {
        [`${model}-base`]: 0,
        [`${runId}-step-1`]: 1,
        [`${runId}-step-2`]: 2,
      });
    });
  });

  test('a resumed run continues from its saved state with fresh episode ids, and republishes its policy first', async () => {
    const { stubs, records } = trainingStubs(plan);
    await withWorkers(stubs, async (workers) => {
      const runId = 'fast-resume';
      await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: runId,
        args: [input(runId, { evaluation: { tasks: '' } })],
      });
      const saved = records.states.at(-1)!;
      records.published.length = 0;
      // the same run asked for two iterations: setupRun finds the saved state (iteration 1)
      await env.client.workflow.execute('trainingRun', {
        taskQueue: workers.taskQueue,
        workflowId: `${runId}-again`,
        args: [input(runId, { evaluation: { tasks: '' }, iterations: 2 })],
      });
      assert.equal(records.published[0], saved.policy.policyRef, 'the saved policy is served again before sampling');
      assert.equal(records.states.at(-1)!.epoch, 1);
      assert.equal(records.states.at(-1)!.iteration, 2);
      assert.deepEqual(
        records.steps.map((step) => step.step),
        [1, 2, 3],
        'no step is repeated',
      );
      const drawn = seededSample(stubTrainTasks, 2, 7919);
      const child = await env.client.workflow.getHandle(`${runId}.r1.it1.${name(drawn[0]!)}.0`).describe();
      assert.equal(child.status.name, 'COMPLETED');
    });
  });

  test('bad input and a trainer result that breaks the contract fail the run with the field named', async () => {
    const { stubs } = trainingStubs(plan);
    const broken = {
      ...stubs,
      async trainOnBatch() {
        return { stepId: 'x', step: 1 } as never;
      },
    };
    await withWorkers(broken, async (workers) => {
      await assert.rejects(
        env.client.workflow.execute('trainingRun', {
          taskQueue: workers.taskQueue,
          workflowId: 'fast-bad-input',
          args: [{ groupSize: 1 }],
        }),
        (error: unknown) => error instanceof WorkflowFailedError && /groupSize/.test(String(error.cause?.message)),
      );
      await assert.rejects(
        env.client.workflow.execute('trainingRun', {
          taskQueue: workers.taskQueue,
          workflowId: 'fast-bad-result',
          args: [input('fast-bad-result', { evaluation: { tasks: '' } })],
        }),
        (error: unknown) =>
          error instanceof WorkflowFailedError &&
          /trainOnBatch result: policyVersion/.test(String(error.cause?.message)),
      );
    });
  });
});

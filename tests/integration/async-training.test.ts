// Asynchronous trainingRun end to end: real episodes in containers with the embedded onnxruntime
// policy, the PyTorch trainer, weights published while episodes act; parked episodes resumed on new
// versions; the staleness bound read back from the batch files; the behaviour log-probs of an episode
// that spans two versions recomputed under each token's own version; cancellation and resumption.
import { fileRef, localPathOf } from '../../activities/store/local-copy';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { decodeSafetensors } from '../../activities/training/safetensors';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { formatPolicySpec } from '../../shared/contracts/policy-spec';
import { seededSample } from '../../shared/math/random';
import type { TrainingRunState } from '../../shared/contracts/run/state';
import { projectRoot } from '../../workers/config';
import { waitFor, localFile } from '../helpers/temporal';
import { python, readMetrics, runContainers, runFolder, taskSet, useTrainingEnvironment } from '../helpers/training';
import { episodeProgressQuery, resumeSignal } from '../../workflows/messages';

const suite = useTrainingEnvironment();

/** policy_versions and loss_mask of a batch file, row by row. */
function batchVersions(path: string): { versions: number[][]; mask: number[][] } {
  const { tensors } = decodeSafetensors(readFileSync(path));
  const [rows, length] = tensors.policy_versions!.shape as [number, number];
  const row = (values: number[], index: number) => values.slice(index * length, (index + 1) * length);
  return {
    versions: Array.from({ length: rows }, (_, index) => row(tensors.policy_versions!.values, index)),
    mask: Array.from({ length: rows }, (_, index) => row(tensors.loss_mask!.values, index)),
  };
}

/** The largest staleness of the trained tokens of a batch trained from `base`. */
function batchStaleness(path: string, base: number): number {
  const { versions, mask } = batchVersions(path);
  return Math.max(
    0,
    ...versions.flatMap((row, index) =>
      row.filter((version, t) => mask[index]![t] === 1 && version >= 0).map((version) => base - version),
    ),
  );
}

const small = (runId: string, fields: Record<string, unknown>) => ({
  runId,
  evaluation: { tasks: '' },
  tasksPerIteration: 2,
  groupSize: 2,
  concurrency: 4,
  credit: { stopCredit: 0 },
  policyServer: suite.policyServer,
  seed: 4,
  mode: 'async',
  budgets: { maxTurns: 6 },
  ...fields,
});

describe('asynchronous trainingRun', () => {
  let spanRunDir = '';

  test('parked episodes resume on newer versions; no trained token is staler than η (from the batch files); stale groups are counted', async () => {
    const runId = 'ci-async-park';
    const input = small(runId, {
      tasks: taskSet(['ari-avg-06', 'cmp-covers-01']),
      iterations: 3,
      async: { groupsPerStep: 1, maxStaleness: 1, segment: { maxTurns: 2 } },
      warmStart: { episodes: 4, epochs: 2 },
      loss: { offPolicy: 'decoupled' },
    });
    const result = (await suite.env.client.workflow.execute('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    })) as { runRef: string; steps: number };
    spanRunDir = runFolder(result);
    assert.equal(result.steps, 4, 'the warm start and three policy-gradient steps');
    const lines = readMetrics(runFolder(result)).filter((line) => line.async);
    assert.equal(lines.length, 3);
    // each batch names the step its trainer step starts from
    const batches = readdirSync(join(runFolder(result), 'batches'))
      .filter((name) => name.startsWith('step-'))
      .sort();
    assert.ok(batches.length >= 1);
    for (const name of batches) {
      const path = join(runFolder(result), 'batches', name);
      const base = Number(JSON.parse(decodeSafetensors(readFileSync(path)).metadata.baseStep!));
      const { versions, mask } = batchVersions(path);
      assert.ok(
        batchStaleness(path, base) <= 1,
        `${name} (base ${base}): a token staler than η = 1: ${JSON.stringify(versions.map((row, index) => [...new Set(row.filter((_, t) => mask[index]![t] === 1))]))}`,
      );
    }
    for (const line of lines) {
      assert.ok(line.async!.staleness.max <= 1, JSON.stringify(line.async));
      assert.equal(typeof line.async!.stale, 'number');
      // a k3 estimate: at least 0, up to float32 rounding
      assert.ok(line.training === null || line.training.mismatchKl! >= -1e-6, JSON.stringify(line.training));
    }
    const sum = (key: 'parked' | 'resumed' | 'spanningVersions') =>
      lines.reduce((total, line) => total + line.async![key], 0);
    assert.ok(sum('parked') > 0 && sum('resumed') > 0, JSON.stringify(lines.map((line) => line.async)));
    await waitFor("the run's containers to be released", async () => (await runContainers(runId)) === 0, 60_000);
  });

  test("an episode parked under v1 resumes after v2 is published: its turns record v1 then v2, its batch row both, and every behaviour log-prob is the trainer's under its own version", async () => {
    // the run above published its warm start (step 1) and its steps; serve step 1, then publish step 2 while the
    // episode is parked
    const onnx = (step: number) => join(spanRunDir, 'policies', `v${step}`, 'policy.onnx');
    const load = async (step: number) =>
      (
        (await (
          await fetch(`${suite.policyServer}/v1/load_weights`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model_path: onnx(step) }),
          })
        ).json()) as { model: string }
      ).model;
    const v1 = await load(1);
    const tasks = taskSet(['swp-min-max-08']);
    const workflowId = `ci-span-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue: suite.worker.taskQueue,
      workflowId,
      args: [
        {
          task: join(tasks, 'swp-min-max-08'),
          policy: formatPolicySpec({ kind: 'completions', url: suite.policyServer, version: v1 }),
          segment: { maxTurns: 2 },
          budgets: { maxTurns: 5 },
          runId: 'ci-span',
        },
      ],
    });
    await waitFor(
      'the episode to park',
      async () => (await handle.query(episodeProgressQuery).catch(() => null))?.phase === 'parked',
      180_000,
    );
    const v2 = await load(2);
    await handle.signal(resumeSignal, { policyVersion: v2, segment: null });
    const episode = (await handle.result()) as EpisodeResult;
    assert.deepEqual(episode.policyVersions, [v1, v2]);
    assert.equal(episode.parks, 1);
    const turns = readFileSync(localFile(episode.trajectoryUri), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { turn: number; policyVersion: string });
    assert.deepEqual(
      turns.slice(0, 2).map((turn) => turn.policyVersion),
      [v1, v1],
    );
    assert.ok(turns.length > 2 && turns.slice(2).every((turn) => turn.policyVersion === v2), JSON.stringify(turns));

    const batches = createBuildBatchActivities({ store: createArtifactStore(suite.worker.config.artifactsDir) });
    const built = await batches.buildBatch({
      runRef: fileRef(spanRunDir),
      name: `span-${Date.now()}`,
      objective: 'policy_gradient',
      estimator: 'grpo',
      truncation: 'zero',
      versions: { [v1]: 1, [v2]: 2 },
      vocabSize: 404,
      baseStep: 2,
      // a group of the episode with itself, so that it keeps its row
      episodes: [0, 1].map(() => ({
        episodeId: episode.episodeId,
        groupId: 'span',
        outcome: episode.outcome,
        reward: episode.reward,
        trueSuccess: episode.trueSuccess,
      })),
    });
    assert.equal(built.spanningVersions, 2);
    const { versions, mask } = batchVersions(localPathOf(built.batchRef)!);
    assert.deepEqual([...new Set(versions[0]!.filter((_, t) => mask[0]![t] === 1))].sort(), [1, 2]);
    const check = JSON.parse(
      execFileSync(
        python,
        [join(projectRoot, 'tests', 'fixtures', 'batch_logprobs.py'), localPathOf(built.batchRef)!, spanRunDir, '1'],
        { encoding: 'utf8' },
      ),
    ) as { maxDifference: number; byVersion: Record<string, number> };
    assert.ok(check.byVersion['1']! > 0 && check.byVersion['2']! > 0, JSON.stringify(check));
    assert.ok(check.maxDifference < 1e-3, `recorded and recomputed log-probs differ by ${check.maxDifference}`);
  });

  test("η = 0: every trained token comes from the version its step starts from, and each step trains the synchronous run's task draw", async () => {
    const runId = 'ci-async-eta0';
    const names = ['ari-avg-06', 'cmp-covers-01', 'obo-head-03'];
    const input = small(runId, {
      tasks: taskSet(names),
      iterations: 2,
      async: { maxStaleness: 0 },
      warmStart: { episodes: 0, epochs: 1 },
    });
    const result = (await suite.env.client.workflow.execute('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    })) as { runRef: string; steps: number };
    assert.equal(result.steps, 2);
    const state = JSON.parse(readFileSync(join(runFolder(result), 'state.json'), 'utf8')) as TrainingRunState;
    for (const step of [0, 1]) {
      const path = join(runFolder(result), 'batches', `step-${String(step).padStart(4, '0')}.safetensors`);
      assert.equal(batchStaleness(path, step), 0);
      const { versions, mask } = batchVersions(path);
      assert.ok(
        versions.every((row, index) =>
          row.every((version, t) => mask[index]![t] !== 1 || version === step || version === -1),
        ),
      );
      // the groups are the synchronous iteration's draw
      const metadata = decodeSafetensors(readFileSync(path)).metadata;
      const groups = new Set(
        (JSON.parse(metadata.groupIds!) as string[]).map((group) => group.split(':')[1]!.split('/').at(-1)),
      );
      const drawn = new Set(seededSample(state.trainTasks, 2, 4 * 7919 + step).map((task) => task.split('/').at(-1)));
      for (const group of groups) assert.ok(drawn.has(group), `${group} not in the draw of step ${step}`);
    }
  });

  test('cancelling an asynchronous run releases every container, parked episodes included, and --resume continues it', async () => {
    const runId = 'ci-async-cancel';
    const input = small(runId, {
      tasks: taskSet(['obo-head-03', 'swp-min-max-08']),
      iterations: 2,
      async: { groupsPerStep: 2, maxStaleness: 1, segment: { maxTurns: 1 } },
      warmStart: { episodes: 0, epochs: 1 },
    });
    const handle = await suite.env.client.workflow.start('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    });
    await waitFor(
      'an episode of the run to park',
      async () => {
        for await (const execution of suite.env.client.workflow.list({
          query: `AgentrlRunId = "${runId}" AND AgentrlPhase = "parked" AND ExecutionStatus = "Running"`,
        }))
          return execution;
        return null;
      },
      180_000,
    );
    await handle.cancel();
    await assert.rejects(handle.result());
    await waitFor(
      'every episode of the run to end',
      async () => {
        for await (const execution of suite.env.client.workflow.list({
          query: `AgentrlRunId = "${runId}" AND ExecutionStatus = "Running"`,
        }))
          return !execution;
        return true;
      },
      120_000,
    );
    await waitFor(
      "the cancelled run's containers to be released",
      async () => (await runContainers(runId)) === 0,
      60_000,
    );
    const runDir = join(suite.worker.config.artifactsDir, 'runs', runId);
    const saved = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as TrainingRunState;
    assert.equal(saved.pool, undefined, 'the pool of episodes is not part of the saved state');
    // started again with the same input: it continues from its last completed step
    const result = (await suite.env.client.workflow.execute('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    })) as { steps: number };
    assert.equal(result.steps, 2);
    assert.deepEqual(
      readMetrics(runDir)
        .filter((line) => line.async)
        .map((line) => line.iteration),
      [0, 1],
    );
    await waitFor(
      "the resumed run's containers to be released",
      async () => (await runContainers(runId)) === 0,
      60_000,
    );
  });
});

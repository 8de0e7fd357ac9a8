// trainingRun end to end: real episodes in containers with the embedded onnxruntime policy, the
// strict checker, batches, the Python PyTorch trainer on its own queue, weights published to the
// policy server; then a cancelled run resumed from its last completed step.
import { localPathOf } from '../../activities/store/local-copy';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { stopDecisions } from '../../shared/compact-actions/context';
import { policyTokenizer } from '../../shared/math/tokenizer';
import { formerFlatNames } from '../../shared/contracts/run/input';
import type { TrainingProgress } from '../../shared/contracts/run/progress';
import type { TrainingRunState } from '../../shared/contracts/run/state';
import { trainingProgressQuery } from '../../workflows/messages';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { projectRoot } from '../../workers/config';
import { waitFor } from '../helpers/temporal';
import { python, readMetrics, runContainers, runFolder, taskSet, useTrainingEnvironment } from '../helpers/training';

const suite = useTrainingEnvironment();

/** Starts a small run without warm start or evaluation and waits until its progress satisfies `until`. */
async function startRunUntil(
  runId: string,
  tasks: string[],
  seed: number,
  what: string,
  until: (progress: TrainingProgress) => boolean,
) {
  const input = {
    runId,
    tasks: taskSet(tasks),
    evaluation: { tasks: '' },
    iterations: 2,
    tasksPerIteration: 2,
    groupSize: 2,
    concurrency: 2,
    warmStart: { episodes: 0, epochs: 1 },
    policyServer: suite.policyServer,
    seed,
  };
  const handle = await suite.env.client.workflow.start('trainingRun', {
    taskQueue: suite.worker.taskQueue,
    workflowId: runId,
    args: [input],
  });
  await waitFor(
    what,
    async () => {
      const progress = await handle.query(trainingProgressQuery).catch(() => null);
      return progress !== null && until(progress);
    },
    300_000,
  );
  return { handle, input };
}

describe('trainingRun', () => {
  test('two iterations: episodes, batches, trainer steps and published weights, with metrics, manifest and report', async () => {
    const runId = 'ci-two-iterations';
    const input = {
      runId,
      tasks: taskSet(['ari-avg-06', 'cmp-covers-01']),
      evaluation: { tasks: taskSet(['swp-min-max-08']), samples: 2, every: 1 },
      iterations: 2,
      tasksPerIteration: 2,
      groupSize: 2,
      concurrency: 3,
      warmStart: { episodes: 4, epochs: 2 },
      policyServer: suite.policyServer,
      seed: 3,
    };
    const result = (await suite.env.client.workflow.execute('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    })) as { runRef: string; steps: number; policyVersion: string; reportRef: string };
    const runDir = runFolder(result);

    // warm start + one step per iteration; the server now serves the last step's weights
    assert.equal(result.steps, 3);
    const served = (await (await fetch(`${suite.policyServer}/v1/models`)).json()) as { data: { id: string }[] };
    assert.equal(served.data[0]!.id, result.policyVersion);
    assert.deepEqual(readdirSync(join(runDir, 'steps')).sort(), [
      `${runId}-step-1.json`,
      `${runId}-step-2.json`,
      `${runId}-step-3.json`,
    ]);

    const lines = readMetrics(runDir);
    assert.deepEqual(
      lines.map((line) => line.iteration),
      [-1, 0, 1, 2],
    );
    // the warm start's line: its four demonstrations and its imitation step
    const [warm, ...metrics] = lines;
    assert.equal(warm!.train!.episodes, 4);
    assert.ok(warm!.training && Number.isFinite(warm!.training.loss) && warm!.batch!.rows > 0);
    for (const line of metrics.slice(0, 2)) {
      assert.equal(line.train!.episodes, 4);
      assert.equal(
        Object.values(line.train!.outcomes).reduce((a, b) => a + b, 0),
        4,
      );
      assert.equal(line.eval!.episodes, 2);
      assert.ok(line.batch!.rows <= 4 && line.batch!.generatedTokens > 0);
      assert.ok(line.training && Number.isFinite(line.training.loss));
      // the policy-gradient steps are anchored (loss.klCoef's default) to the warm-started step 1: the k3
      // estimate is measured, and positive once an update has moved the policy from the anchor
      if (line.training.skipped) assert.equal(line.training.klRef, null, JSON.stringify(line.training));
      else {
        const klRef = line.training.klRef;
        assert.ok(typeof klRef === 'number' && Number.isFinite(klRef) && klRef > 0, JSON.stringify(line.training));
      }
      // every policy-gradient step measures the training-inference mismatch before its first update:
      // the toy model on onnxruntime and on PyTorch agree closely on the tokens the step's weights generated
      const mismatch = line.training.mismatch!;
      assert.ok(
        mismatch &&
          mismatch.meanAbsRatioDev <= mismatch.maxAbsRatioDev &&
          mismatch.meanAbsRatioDev < 1e-2 &&
          mismatch.kl > -1e-9,
        JSON.stringify(line.training),
      );
      assert.ok(line.time.sandboxS > 0 && line.time.testsS >= 0 && line.time.inferenceS > 0 && line.time.trainingS > 0);
    }
    // training episodes grade every passed stop point (credit.stopCredit's default); their counts add up in the metrics
    const children = await Promise.all(
      ['ari-avg-06', 'cmp-covers-01'].flatMap((name) =>
        [0, 1].map(
          (sample) =>
            suite.env.client.workflow.getHandle(`${runId}.it0.${name}.${sample}`).result() as Promise<EpisodeResult>,
        ),
      ),
    );
    const stops = children.flatMap((child) => child.stops ?? []);
    assert.ok(
      stops.every((stop) => (stop.passed ? stop.probe === 0 || stop.probe === 1 : stop.probe === null)),
      JSON.stringify(stops),
    );
    const counted = metrics[0]!.train!.stops!;
    assert.deepEqual(
      [counted.afterPass + counted.afterFail, counted.probed],
      [stops.length, stops.filter((stop) => stop.passed).length],
    );
    assert.equal(
      counted.submittedAfterPass + counted.submittedAfterFail,
      stops.filter((stop) => stop.submitted).length,
    );
    // each stop point followed by an action is credited at that action's first token, which is `submit` exactly when it
    // submitted
    const records = createEpisodeRecords(createArtifactStore(suite.worker.config.artifactsDir));
    let decided = 0;
    for (const child of children) {
      const { context } = (await records.lastContext(child.episodeId))!;
      const decisions = stopDecisions(context, child.stops ?? []);
      assert.equal(
        decisions.length,
        (child.stops ?? []).filter((stop) => stop.turn + 1 < child.counters.turns).length,
        child.workflowId,
      );
      for (const decision of decisions)
        assert.equal(
          context.ids[decision.position] === policyTokenizer.encode('submit')[0],
          decision.submitted,
          JSON.stringify(decision),
        );
      decided += decisions.length;
    }
    assert.ok(decided > 0, 'the sampled episodes reached stop points');
    // probes take time of their own, kept out of the tests' time and off the episodes' deadlines
    assert.equal(metrics[0]!.time.probesS! > 0, counted.probed > 0, JSON.stringify(metrics[0]!.time));
    assert.ok(
      children.every((child) => (child.timings.probeMs ?? 0) > 0 === (child.stops ?? []).some((stop) => stop.passed)),
    );
    // the final line: the last policy on the evaluation tasks only
    assert.equal(metrics[2]!.train, null);
    assert.equal(
      (JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as { referenceStep: number }).referenceStep,
      1,
    );
    assert.equal(metrics[2]!.eval!.episodes, 2);

    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
      config: Record<string, unknown>;
      taskSets: { train: { sha256: string; count: number } };
      codeVersion: string;
      policyVersions: { step: number }[];
    };
    assert.equal(manifest.config.seed, 3);
    assert.equal(manifest.taskSets.train.count, 2);
    assert.match(manifest.taskSets.train.sha256, /^[0-9a-f]{64}$/);
    assert.match(manifest.codeVersion, /^[0-9a-f]{16}$/);
    assert.deepEqual(
      manifest.policyVersions.map((entry) => entry.step),
      [0, 1, 2, 3],
    );
    assert.equal(result.policyVersion, `${runId}-step-3`);
    assert.match(readFileSync(localPathOf(result.reportRef)!, 'utf8'), new RegExp(`\\| 0 \\| ${runId}-step-1 \\|`));
    assert.match(readFileSync(join(runDir, 'reward.svg'), 'utf8'), /^<svg/);
    // the same figures as TensorBoard scalars, read by TensorBoard's own reader: a point per iteration
    const scalars = JSON.parse(
      execFileSync(python, [join(projectRoot, 'tests', 'fixtures', 'read_tensorboard.py'), runDir], {
        encoding: 'utf8',
      }),
    ) as Record<string, [number, number][]>;
    for (const tag of [
      'train/meanReward',
      'train/trueSuccess',
      'eval/meanReward',
      'training/loss',
      'training/klK3',
      'training/gradNorm',
      'time/wallS',
      'time/inferenceS',
      'batch/rows',
    ])
      assert.ok(scalars[tag], `${tag} among ${Object.keys(scalars).sort().join(', ')}`);
    assert.ok(Object.keys(scalars).some((tag) => tag.startsWith('train/outcomes/')));
    assert.deepEqual(
      scalars['train/meanReward']!.map(([step]) => step),
      lines.filter((line) => line.train?.meanReward != null).map((line) => line.iteration + 1),
    );
    const first = metrics.find((line) => line.training)!;
    assert.ok(
      Math.abs(scalars['training/loss']!.find(([step]) => step === first.iteration + 1)![1] - first.training!.loss) <
        1e-4,
      'the values are the metrics lines',
    );

    // the recorded behaviour log-probs are what the trainer computes for the policy that sampled them
    // (iteration 0 sampled with the warm-started step 1)
    const check = JSON.parse(
      execFileSync(
        python,
        [
          join(projectRoot, 'tests', 'fixtures', 'batch_logprobs.py'),
          join(runDir, 'batches', 'iteration-0000.safetensors'),
          join(runDir, 'checkpoints', 'step-1.pt'),
          '1',
        ],
        { encoding: 'utf8' },
      ),
    ) as { maxDifference: number; tokens: number };
    assert.ok(check.tokens > 0);
    assert.ok(check.maxDifference < 1e-3, `recorded and recomputed log-probs differ by ${check.maxDifference}`);

    await waitFor("the run's containers to be released", async () => (await runContainers(runId)) === 0, 60_000);
  });

  test('a cancelled run releases its containers and resumes from its last completed step', async () => {
    const runId = 'ci-cancel-resume';
    // cancel while the second iteration samples: iteration 0 is complete, iteration 1 is not
    const { handle, input } = await startRunUntil(
      runId,
      ['obo-head-03', 'swp-min-max-08'],
      5,
      'iteration 1 to sample',
      (progress) => progress.iteration === 1 && progress.phase === 'sampling' && progress.episodesDone >= 1,
    );
    await handle.cancel();
    await assert.rejects(handle.result());
    await waitFor(
      "the cancelled run's containers to be released",
      async () => (await runContainers(runId)) === 0,
      60_000,
    );
    const runDir = join(suite.worker.config.artifactsDir, 'runs', runId);
    const saved = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as TrainingRunState;
    assert.equal(saved.iteration, 1);
    assert.equal(saved.policy.step, 1);

    // another config is refused with the differing field named, and nothing of the run is touched
    await assert.rejects(
      suite.env.client.workflow.execute('trainingRun', {
        taskQueue: suite.worker.taskQueue,
        workflowId: `${runId}-other`,
        args: [{ ...input, optimizer: { lr: 3e-3 } }],
      }),
      (error: Error) => {
        const messages: string[] = [];
        for (let cause: Error | undefined = error; cause; cause = cause.cause as Error | undefined)
          messages.push(cause.message);
        return /another config \(optimizer\.lr\)/.test(messages.join(' | '));
      },
    );
    assert.deepEqual(JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')), saved);
    // a manifest from before the input's blocks (every field at one level) and before a field existed (here
    // stopCredit) resumes, the field at its default
    const manifestPath = join(runDir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { config: Record<string, unknown> };
    const flat: Record<string, unknown> = { ...manifest.config };
    for (const [old, now] of Object.entries(formerFlatNames)) {
      const [block, field] = now.split('.') as [string, string];
      const fields = manifest.config[block] as Record<string, unknown> | undefined;
      if (fields && field in fields) flat[old] = fields[field];
      delete flat[block];
    }
    delete flat.stopCredit;
    manifest.config = flat;
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));

    const result = (await suite.env.client.workflow.execute('trainingRun', {
      taskQueue: suite.worker.taskQueue,
      workflowId: runId,
      args: [input],
    })) as { runRef: string; steps: number };
    assert.equal(result.steps, 2);
    const metrics = readMetrics(runDir).filter((line) => line.iteration >= 0);
    // each iteration recorded once, each step applied once
    assert.deepEqual(
      metrics.map((line) => line.iteration),
      [0, 1],
    );
    assert.deepEqual(readdirSync(join(runDir, 'steps')).sort(), [`${runId}-step-1.json`, `${runId}-step-2.json`]);
    assert.equal(metrics[1]!.train!.episodes, 4);
    await waitFor(
      "the resumed run's containers to be released",
      async () => (await runContainers(runId)) === 0,
      60_000,
    );
  });
});

// The loss guards' names and defaults against the golden cases the trainer's tests also read
// (shared/golden/loss.json, written by trainer/agentrl_reference/golden_loss.py), and how a run's
// input and a trainer step's input take them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  KlEstimators,
  LossAggregations,
  RatioLevels,
  TrainOnBatchInput,
  trainerDefaults,
} from '../../shared/contracts/trainer-contract';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import { projectRoot } from '../../workers/config';

const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'loss.json'), 'utf8')) as {
  aggregations: string[];
  kl_estimator_names: string[];
  ratio_levels: string[];
  defaults: { clip_ratio_c: number; log_ratio_clamp: number };
  cases: { name: string; clip_ratio_c?: number | null; expected: { metrics: { clip_fraction_lower: number } } }[];
};

test('the aggregations, KL estimators and ratio levels are the golden file’s, by name', () => {
  assert.deepEqual([...LossAggregations].sort(), [...golden.aggregations].sort());
  assert.deepEqual([...KlEstimators].sort(), [...golden.kl_estimator_names].sort());
  assert.deepEqual([...RatioLevels].sort(), [...golden.ratio_levels].sort());
  // Dr. GRPO's fixed-length normalisation has its own name; seq_mean_token_sum stays verl's seq-mean-token-sum
  assert.ok(LossAggregations.includes('seq_mean_token_sum_norm') && LossAggregations.includes('seq_mean_token_sum'));
});

test('dual-clip c = 3 and the log-ratio clamp 20 are the defaults on both sides', () => {
  assert.equal(trainerDefaults.clipRatioC, golden.defaults.clip_ratio_c);
  assert.equal(trainerDefaults.logRatioClamp, golden.defaults.log_ratio_clamp);
  assert.equal(golden.defaults.clip_ratio_c, 3);
  // the golden cases exercise dual-clip binding and switched off
  const binding = golden.cases.find((c) => c.name === 'dual-clip caps a negative advantage');
  const off = golden.cases.find((c) => c.name === 'dual-clip off');
  assert.ok(binding && binding.expected.metrics.clip_fraction_lower > 0);
  assert.ok(off && off.clip_ratio_c === null && off.expected.metrics.clip_fraction_lower === 0);
});

test("a run's guards default to the trainer's and bad values are refused at the field", () => {
  const { loss } = TrainingRunInput.parse({ runId: 'guards', tasks: 'tasks/suite/train' });
  assert.equal(loss.clipRatioC, 3);
  assert.equal(loss.logRatioClamp, 20);
  assert.equal(loss.ratioLevel, 'token');
  assert.equal(loss.klEstimator, 'k3');
  const off = TrainingRunInput.parse({ runId: 'off', tasks: 'tasks/suite/train', loss: { clipRatioC: null } });
  assert.equal(off.loss.clipRatioC, null);
  for (const [field, value] of [
    ['clipRatioC', 1],
    ['logRatioClamp', 100],
    ['klEstimator', 'k4'],
    ['ratioLevel', 'turn'],
    ['aggregation', 'seq-mean-token-sum'],
  ] as const) {
    const parsed = TrainingRunInput.safeParse({ runId: 'bad', tasks: 'tasks/suite/train', loss: { [field]: value } });
    assert.equal(parsed.success, false, field);
    assert.deepEqual(parsed.error.issues[0]!.path, ['loss', field]);
  }
  const step = {
    runRef: 'file:///tmp/run',
    stepId: 's1',
    step: 2,
    batchRef: 'file:///tmp/batch.safetensors',
    seed: 0,
  };
  assert.ok(
    TrainOnBatchInput.safeParse({ ...step, clipRatioC: null, ratioLevel: 'sequence', lossScaleFactor: 768 }).success,
  );
  assert.equal(TrainOnBatchInput.safeParse({ ...step, logRatioClamp: 0 }).success, false);
});

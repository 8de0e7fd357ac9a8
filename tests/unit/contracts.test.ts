// The trainer's contract: the JSON Schema file the Python worker reads is the zod source, generated;
// both sides judge the golden inputs alike (trainer/tests/test_contract.py reads the same file).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { contractFiles } from '../../scripts/generate-contracts';
import { defaultTaskQueue, trainingQueue } from '../../shared/names/task-queues';
import {
  InitPolicyResult,
  nonRetryableTrainerErrors,
  TrainerErrorTypes,
  TrainOnBatchInput,
} from '../../shared/contracts/trainer-contract';
import { PublishedPolicy } from '../../shared/contracts/run/state';
import { projectRoot } from '../../workers/config';

interface GoldenCase {
  input: Record<string, unknown>;
  field: string;
  unknown?: string;
}
const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'trainer-inputs.json'), 'utf8')) as {
  trainOnBatch: {
    base: Record<string, unknown>;
    valid: Record<string, unknown>[];
    invalid: GoldenCase[];
    missing: string[];
  };
};
const { base, valid, invalid, missing } = golden.trainOnBatch;

describe('the trainer contract', () => {
  test('shared/contracts/ holds exactly what npm run contracts generates from the zod source', () => {
    for (const [path, text] of Object.entries(contractFiles())) {
      assert.equal(readFileSync(join(projectRoot, path), 'utf8'), text, `${path} is stale: run npm run contracts`);
    }
  });

  test('the training queue derives from the base queue, and the file names the default one', () => {
    assert.equal(trainingQueue('agentrl-episodes'), 'agentrl-episodes-training');
    assert.equal(trainingQueue('test-1'), 'test-1-training');
    const document = JSON.parse(
      readFileSync(join(projectRoot, 'shared', 'contracts', 'trainer.schema.json'), 'utf8'),
    ) as { taskQueue: { default: string }; errorTypes: unknown };
    assert.equal(document.taskQueue.default, trainingQueue(defaultTaskQueue));
    assert.deepEqual(document.errorTypes, TrainerErrorTypes);
    assert.deepEqual(nonRetryableTrainerErrors, [
      'InvalidInput',
      'StepConflict',
      'CheckpointUnreadable',
      'NonFiniteUpdate',
    ]);
  });

  test('golden valid inputs pass', () => {
    for (const fields of valid)
      assert.ok(TrainOnBatchInput.safeParse({ ...base, ...fields }).success, JSON.stringify(fields));
  });

  test('golden invalid inputs fail at the named field', () => {
    for (const { input, field, unknown } of invalid) {
      const parsed = TrainOnBatchInput.safeParse({ ...base, ...input });
      assert.equal(parsed.success, false, JSON.stringify(input));
      const issue = parsed.error.issues[0]!;
      assert.equal(issue.path.join('.') || '(root)', field, JSON.stringify(input));
      if (unknown) assert.deepEqual((issue as { keys?: string[] }).keys, [unknown]);
    }
    for (const field of missing) {
      const { [field]: _dropped, ...rest } = base;
      const issue = TrainOnBatchInput.safeParse(rest).error?.issues[0];
      assert.equal(issue?.path.join('.'), field, `${field} is required`);
    }
  });

  test('results and saved runs recorded with local paths (onnxPath, policyPath, runDir) read them as file:// references', () => {
    const now = { step: 0, policyVersion: 'v0', policyRef: 'file:///run/policies/v0' };
    for (const old of ['onnxPath', 'policyPath'])
      assert.deepEqual(InitPolicyResult.parse({ step: 0, policyVersion: 'v0', [old]: '/run/policies/v0' }), now);
    assert.deepEqual(InitPolicyResult.parse(now), now);
    assert.deepEqual(PublishedPolicy.parse({ step: 2, version: 'v2', onnxPath: '/p' }), {
      step: 2,
      version: 'v2',
      policyRef: 'file:///p',
    });
    assert.equal(
      PublishedPolicy.safeParse({ step: 2, version: 'v2' }).success,
      false,
      'the reference is still required',
    );
    assert.equal(
      PublishedPolicy.safeParse({ step: 2, version: 'v2', policyRef: 'relative/p' }).success,
      false,
      'a relative path is no reference',
    );
    const generated = JSON.parse(readFileSync(join(projectRoot, 'shared', 'contracts', 'trainer.schema.json'), 'utf8'));
    assert.deepEqual(generated.activities.initPolicy.result.required, ['step', 'policyVersion', 'policyRef']);
  });

  test('trainer inputs carry store references, never local paths', () => {
    const base = { stepId: 's', step: 1, seed: 0, modelConfig: {} };
    for (const [runRef, ok] of [
      ['s3://bucket/prefix/runs/r', true],
      ['file:///abs/runs/r', true],
      ['/abs/runs/r', false],
      ['runs/r', false],
      ['s3://', false],
    ] as const)
      assert.equal(
        TrainOnBatchInput.safeParse({ ...base, runRef, batchRef: `${runRef}/batches/b.safetensors` }).success,
        ok,
        runRef,
      );
  });
});

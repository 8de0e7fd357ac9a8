// The TensorBoard event file's framing: CRC-32C as TFRecord computes it, records that frame themselves,
// and the same bytes every time the same metrics are written (TensorBoard's reader reading it: the
// training integration test).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32c, tensorboardEvents } from '../../activities/training/tensorboard';
import type { IterationMetrics } from '../../shared/contracts/run-metrics';

const line = (iteration: number, loss: number): IterationMetrics => ({
  iteration,
  step: iteration + 1,
  policyVersion: `v${iteration + 1}`,
  train: null,
  eval: null,
  batch: null,
  training: { loss } as IterationMetrics['training'],
  time: { sandboxS: 1, testsS: 0, probesS: 0, inferenceS: 0.5, trainingS: 2, wallS: 10 },
});

describe('TensorBoard event files', () => {
  test('CRC-32C of the standard check string', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
  });
  test('records frame themselves, one per iteration after the version record; rewriting gives the same bytes', () => {
    const file = tensorboardEvents([line(1, 0.25), line(0, 0.5)], 1_700_000_000);
    const lengths: number[] = [];
    for (let offset = 0; offset < file.length;) {
      const length = Number(file.readBigUInt64LE(offset));
      lengths.push(length);
      offset += 8 + 4 + length + 4;
      assert.ok(offset <= file.length);
    }
    assert.equal(lengths.length, 3);
    assert.ok(file.includes(Buffer.from('brain.Event:2')) && file.includes(Buffer.from('training/loss')));
    assert.deepEqual(tensorboardEvents([line(0, 0.5), line(1, 0.25)], 1_700_000_000), file);
    // a new iteration appends: what a reader has read stays as it was
    const longer = tensorboardEvents([line(0, 0.5), line(1, 0.25), line(2, 0.125)], 1_700_000_000);
    assert.deepEqual(longer.subarray(0, file.length), file);
  });
});

// `npx agentrl train`'s table: every iteration's row once and in order, also those its once-a-second poll
// cannot see (the last iterations of a run that ends within a second of its step, a run followed after it
// started). The workflow handle here is a fake (a query answer and a result on a timer): the timing of a real
// run's end against the poll cannot be caused on demand. The rows it misses come from a real store's metrics.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mock, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { writeMetrics } from '../../activities/training/run-records';
import { followTrainingRun } from '../../cli/training';
import type { IterationMetrics } from '../../shared/contracts/run-metrics';
import type { TrainingProgress } from '../../shared/contracts/run/progress';

const line = (iteration: number): IterationMetrics => ({
  iteration,
  step: iteration + 1,
  policyVersion: `v${iteration + 1}`,
  train: null,
  eval: null,
  batch: null,
  training: null,
  time: { sandboxS: 1, testsS: 0, probesS: 0, inferenceS: 0.5, trainingS: 2, wallS: 10 + iteration },
});

async function follow(lines: number, seenByPoll: number, resultAfterMs: number): Promise<number[]> {
  const runRef = `file://${mkdtempSync(join(tmpdir(), 'agentrl-test-table-'))}/runs/r`;
  await writeMetrics(
    runRef,
    Array.from({ length: lines }, (_, index) => line(index)),
  );
  const progress: TrainingProgress = {
    runId: 'r',
    phase: 'sampling',
    iteration: seenByPoll + 1,
    iterations: lines,
    episodesDone: 0,
    episodesTotal: 8,
    step: seenByPoll + 1,
    policyVersion: null,
    last: line(seenByPoll),
  };
  const handle = {
    workflowId: 'r',
    query: async () => progress,
    result: () =>
      new Promise((resolve) => setTimeout(() => resolve({ runId: 'r', runRef, steps: lines }), resultAfterMs)),
    cancel: async () => undefined,
  } as unknown as WorkflowHandle;
  const printed = mock.method(console, 'log', () => undefined);
  try {
    await followTrainingRun(handle, { json: false, log: () => undefined, runRef });
  } finally {
    printed.mock.restore();
  }
  return printed.mock.calls
    .map((call) => String(call.arguments[0]))
    .filter((text) => /^\s+\d+ /.test(text))
    .map((text) => Number(text.trim().split(/\s+/)[0]));
}

test('the rows of iterations that end after the last poll are printed from the metrics, in order', async () => {
  // the poll sees iteration 0; iterations 1 and 2 end before the next one
  assert.deepEqual(await follow(3, 0, 1_500), [0, 1, 2]);
});

test('a run followed after it started prints its earlier iterations before the one the poll sees', async () => {
  assert.deepEqual(await follow(5, 3, 1_500), [0, 1, 2, 3, 4]);
});

test('a run that ends before the first poll still prints every row', async () => {
  assert.deepEqual(await follow(2, 1, 10), [0, 1]);
});

// Checked-in histories replay through the current workflow code: a nondeterministic change fails here.
// Record them again after an intended change of workflow logic: node --import tsx tests/workflows/record-histories.ts
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/temporal';

const dir = join(__dirname, '..', 'histories');

test('recorded histories of both workflows replay without nondeterminism', async () => {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort();
  const bundle = await workflowBundle();
  const types = new Set<string>();
  for (const file of files) {
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    types.add(history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?');
    await Worker.runReplayHistory({ workflowBundle: bundle }, history, file.replace(/\.json$/, ''));
  }
  assert.deepEqual([...types].sort(), ['rolloutEpisode', 'trainingRun'], `histories: ${files.join(', ')}`);
  assert.ok(
    files.length >= 4,
    'episode and training-run histories are checked in (tests/workflows/record-histories.ts)',
  );
});

// Checked-in histories replay through the current workflow code: a nondeterministic change fails here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/temporal';

const dir = join(__dirname, '..', 'histories');

test('recorded episode histories replay without nondeterminism', async () => {
  const files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  assert.ok(files.length >= 2, 'histories are checked in (scripts/record-histories.ts)');
  const bundle = await workflowBundle();
  for (const file of files) {
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: bundle }, history, file.replace(/\.json$/, ''));
  }
});

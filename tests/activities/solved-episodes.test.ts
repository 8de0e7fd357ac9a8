// The record of a run's solved training episodes (solved.jsonl) and what a later run's warm start may take of it:
// never an episode of a task the later run evaluates on, never another model's tokens, never a run that is not there.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createRunActivities } from '../../activities/training/run-activities';
import { runRefOf, writeManifest } from '../../activities/training/run-records';

test("a later run's warm start takes the earlier runs' solved episodes of its own training tasks only", async () => {
  const store = createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-solved-')));
  const runs = createRunActivities({ projectRoot: process.cwd(), store, codeVersion: 'test' });
  const manifest = (runId: string, model: string) =>
    writeManifest(runRefOf(store, runId), {
      runId,
      config: { model: { name: model } },
      taskSets: { train: { path: 't', count: 3, sha256: 'x' }, eval: { path: 'e', count: 1, sha256: 'y' } },
      codeVersion: 'test',
      createdAt: new Date(0).toISOString(),
      policyVersions: [],
    });
  const solved = (episodeId: string, task: string, iteration: number) => ({
    episodeId,
    task,
    iteration,
    policyVersion: `v${iteration}`,
  });
  await manifest('earlier', 'smollm2-135m-instruct');
  const runRef = runRefOf(store, 'earlier');
  await runs.recordSolved({
    runRef,
    iteration: 0,
    episodes: [solved('e1', '/tasks/train/a', 0), solved('e2', '/tasks/train/b', 0)],
  });
  // a retried iteration replaces its own lines, never another iteration's
  await runs.recordSolved({ runRef, iteration: 1, episodes: [solved('e3', '/tasks/train/c', 1)] });
  await runs.recordSolved({ runRef, iteration: 1, episodes: [solved('e4', '/elsewhere/held-1', 1)] });

  const taken = await runs.earlierSolved({
    runs: ['earlier'],
    // b is not trained here; held-1 is (by its path) but evaluated on under the same folder name
    trainTasks: ['/tasks/train/a', '/tasks/train/c', '/elsewhere/held-1'],
    evalTasks: ['/tasks/heldout/held-1'],
    model: 'smollm2-135m-instruct',
  });
  assert.deepEqual(
    taken.map((line) => line.episodeId),
    ['e1'],
    'a: trained here; b: not a training task here; e3 replaced by the retry; e4: an evaluation task by name',
  );

  await manifest('toy-run', 'toy');
  await assert.rejects(
    runs.earlierSolved({ runs: ['toy-run'], trainTasks: [], evalTasks: [], model: 'smollm2-135m-instruct' }),
    /run toy-run trained toy, not smollm2-135m-instruct/,
  );
  await assert.rejects(
    runs.earlierSolved({ runs: ['missing'], trainTasks: [], evalTasks: [], model: 'smollm2-135m-instruct' }),
    /warmStart.solvedFrom: no run missing/,
  );
});

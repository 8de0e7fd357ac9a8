// The activities that need no sandbox, one at a time in Temporal's MockActivityEnvironment (an
// activity context without a server): what they return is what the workflow's schemas accept, and
// a deterministic fault is a non-retryable failure of the right type, so that no retry is wasted.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import Dockerode from 'dockerode';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecordActivities } from '../../activities/store/episode-records';
import { createPrepareEpisodeActivities } from '../../activities/tasks/prepare-episode';
import { PolicySummary, TaskSummary } from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import { defaultProtectedPaths } from '../../shared/paths/protected-paths';
import { projectRoot } from '../../workers/config';

const store = () => createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-activity-store-')));
const prepare = () =>
  createPrepareEpisodeActivities({
    store: store(),
    docker: new Dockerode(),
    projectRoot,
    defaultImage: 'agentrl-base:latest',
  });
/** Runs one activity in a mock activity context, keeping its types. */
const run = <I, O>(env: MockActivityEnvironment, activity: (input: I) => Promise<O>, input: I): Promise<O> =>
  env.run<[I], O, typeof activity>(activity, input);
const failureOf = async (promise: Promise<unknown>): Promise<ApplicationFailure> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, got ${String(error)}`);
    return error;
  }
  assert.fail('the activity did not fail');
};

describe('prepareEpisode (single activity)', () => {
  test('a bundled task and a scripted policy: summaries the workflow schemas accept, content in the store', async () => {
    const env = new MockActivityEnvironment();
    const activities = prepare();
    const { task, policy } = await run(env, activities.prepareEpisode, {
      task: 'tasks/off-by-one-range',
      policy: 'scripted:examples/policies/off-by-one-range/fix.jsonl',
    });
    assert.deepEqual(TaskSummary.parse(task), task);
    assert.deepEqual(PolicySummary.parse(policy), policy);
    assert.equal(task.id, 'off-by-one-range');
    assert.deepEqual(task.protectedPaths, [...defaultProtectedPaths]);
    assert.match(task.snapshotRef, /^sha256:[0-9a-f]{64}$/);
    assert.equal(policy.kind, 'scripted');
    // the same inputs give the same references: a retried preparation changes nothing
    const again = await run(env, activities.prepareEpisode, {
      task: 'tasks/off-by-one-range',
      policy: 'scripted:examples/policies/off-by-one-range/fix.jsonl',
    });
    assert.deepEqual([again.task.snapshotRef, again.policy.ref], [task.snapshotRef, policy.ref]);
  });

  test('a task folder that is not one fails non-retryable as InvalidTask, naming the file', async () => {
    const env = new MockActivityEnvironment();
    const failure = await failureOf(
      env.run(prepare().prepareEpisode, { task: 'tasks/no-such-task', policy: 'random:' }),
    );
    assert.equal(failure.type, ErrorTypes.invalidTask);
    assert.equal(failure.nonRetryable, true);
    assert.match(failure.message, /tasks\/no-such-task: task folder does not exist/);
  });

  test('a policy spec that is not one fails non-retryable as InvalidPolicy', async () => {
    const env = new MockActivityEnvironment();
    const failure = await failureOf(
      env.run(prepare().prepareEpisode, { task: 'tasks/off-by-one-range', policy: 'nonsense:x' }),
    );
    assert.equal(failure.type, ErrorTypes.invalidPolicy);
    assert.equal(failure.nonRetryable, true);
    assert.match(failure.message, /^policy: /);
  });

  test('currentPolicyVersion of a policy that no server serves is its prepared version', async () => {
    const env = new MockActivityEnvironment();
    const activities = prepare();
    const { policy } = await run(env, activities.prepareEpisode, { task: 'tasks/off-by-one-range', policy: 'random:' });
    assert.equal(await run(env, activities.currentPolicyVersion, { policy }), policy.version);
  });
});

describe('writeTrajectory (single activity)', () => {
  test('an episode with no turns yet writes an empty trajectory, at the same place every time', async () => {
    const env = new MockActivityEnvironment();
    const records = createEpisodeRecordActivities({ store: store() });
    const first = await run(env, records.writeTrajectory, { episodeId: 'wf@run' });
    assert.equal(await run(env, records.writeTrajectory, { episodeId: 'wf@run' }), first);
    assert.match(first, /trajectory\.jsonl$/);
  });
});

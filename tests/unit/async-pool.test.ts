// The asynchronous run's pool on its own (shared/math/async-pool.ts): admission within the staleness
// bound, parks and resumes, environment failures sampled again, groups and evaluations completed,
// the cap on parked episodes, idle time, and the state carried across continue-as-new validated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  activeCount,
  applyEvent,
  AsyncPool,
  emptyPool,
  groupStaleness,
  mayAdmitGroup,
  parkedOverCap,
  parkedToResume,
  recordResult,
  tick,
  type PoolEpisode,
} from '../../shared/math/async-pool';
import { failedEpisodeResult, type EpisodeResult } from '../../shared/contracts/episode';
import { firstRunId, Outcomes, resampleAfter, resampledId } from '../../shared/contracts/outcomes';
import { summariseEpisodes } from '../../shared/contracts/run-metrics';

const member = (id: string, group: number | null, index: number, attempt = 0): PoolEpisode => ({
  id,
  task: 'tasks/t',
  policy: 'completions:http://x#v1',
  sample: index,
  group,
  member: index,
  attempt,
});
const result = (workflowId: string, outcome: EpisodeResult['outcome'], reward: number | null = 1): EpisodeResult => ({
  ...failedEpisodeResult({
    workflowId,
    episodeId: `${workflowId}@r`,
    runId: 'run',
    taskId: 't',
    checker: 'strict',
    outcome: Outcomes.sandboxCrash,
    error: '',
  }),
  outcome,
  reward,
  trueSuccess: reward === null ? null : reward === 1,
  policyVersion: 'v1',
});
const rules = { groupSize: 2, summarise: summariseEpisodes };
/** A pool with one admitted group of two, both running. */
const poolWithGroup = () => {
  const pool = emptyPool(0, 1_000);
  pool.admitted = 1;
  pool.groups[0] = { task: 'tasks/t', results: {} };
  pool.running['g0.0'] = member('g0.0', 0, 0);
  pool.running['g0.1'] = member('g0.1', 0, 1);
  return pool;
};

describe('the asynchronous pool', () => {
  test('admits groups while the sampler is at most η steps ahead of the trainer, and no more than the run needs', () => {
    const pool = emptyPool(0, 0);
    const rule = { stopping: false, iterations: 3, groupsPerStep: 2, iteration: 0, maxStaleness: 1 };
    const admitted: number[] = [];
    while (mayAdmitGroup(pool, rule)) admitted.push(pool.admitted++);
    assert.deepEqual(admitted, [0, 1, 2, 3], '(0 + 1 + 1) steps of 2 groups');
    pool.dropped = 1;
    assert.equal(mayAdmitGroup(pool, rule), true, 'a group dropped as stale frees its place');
    pool.admitted = 6;
    pool.dropped = 0;
    assert.equal(mayAdmitGroup(pool, { ...rule, iteration: 2 }), false, 'three steps of two need six groups');
    assert.equal(mayAdmitGroup(emptyPool(0, 0), { ...rule, stopping: true }), false, 'a stopping run admits none');
  });

  test('parks and resumes are counted; a report of an episode the pool let go of changes nothing', () => {
    const pool = poolWithGroup();
    assert.equal(applyEvent(pool, { kind: 'parked', workflowId: 'g0.0' }, 2_000), null);
    assert.deepEqual(pool.parked['g0.0'], { sinceMs: 2_000, resumeSent: false });
    assert.equal(activeCount(pool), 1);
    applyEvent(pool, { kind: 'resumed', workflowId: 'g0.0' }, 3_000);
    assert.deepEqual([pool.parked, pool.window.parked, pool.window.resumed], [{}, 1, 1]);
    const before = structuredClone(pool);
    assert.equal(
      applyEvent(pool, { kind: 'finished', workflowId: 'gone', result: result('gone', 'submitted') }, 0),
      null,
    );
    assert.deepEqual(pool, before);
  });

  test('a group is ready when its last member reports; results are kept by member', () => {
    const pool = poolWithGroup();
    const first = applyEvent(pool, { kind: 'finished', workflowId: 'g0.1', result: result('g0.1', 'submitted', 0) }, 0);
    assert.ok(first);
    assert.equal(recordResult(pool, first.entry, first.result, rules), 'member');
    assert.deepEqual(pool.ready, []);
    const last = applyEvent(pool, { kind: 'finished', workflowId: 'g0.0', result: result('g0.0', 'submitted', 1) }, 0)!;
    assert.equal(recordResult(pool, last.entry, last.result, rules), 'ready');
    assert.deepEqual(pool.ready, [0]);
    assert.deepEqual(Object.keys(pool.groups[0]!.results).sort(), ['0', '1']);
    assert.deepEqual([pool.running, pool.window.finished], [{}, 2]);
  });

  test('the one resampling rule: environment failures only, twice at most, ids from the first run', () => {
    assert.deepEqual(
      ['sandbox_crash', 'policy_error', 'grader_error', 'agent_crash', 'submitted', 'timeout'].map((outcome) =>
        resampleAfter(outcome as EpisodeResult['outcome'], 0),
      ),
      [true, true, true, false, false, false],
    );
    assert.deepEqual([resampleAfter('sandbox_crash', 1), resampleAfter('sandbox_crash', 2)], [true, false]);
    assert.equal(resampledId('run.it0.t.1', 2), 'run.it0.t.1.again-2');
    assert.equal(firstRunId('run.it0.t.1.again-2'), 'run.it0.t.1');
    assert.equal(firstRunId('run.it0.t.1'), 'run.it0.t.1');
  });

  test('an environment failure runs again first, under a new id, at most maxResamples times', () => {
    const pool = poolWithGroup();
    let entry = pool.running['g0.0']!;
    for (const expected of ['g0.0.again-1', 'g0.0.again-2']) {
      delete pool.running[entry.id];
      assert.equal(recordResult(pool, entry, result(entry.id, 'sandbox_crash', null), rules), 'resampled');
      assert.equal(pool.queue[0]!.id, expected);
      entry = pool.queue.shift()!;
    }
    // the third failure stays: the group keeps it as an environment failure (never trained on)
    assert.equal(recordResult(pool, entry, result(entry.id, 'policy_error', null), rules), 'member');
    assert.equal(pool.groups[0]!.results[0]!.outcome, 'policy_error');
    assert.equal(recordResult(pool, member('e', null, 0), result('e', 'abandoned', null), rules), 'ignored');
    assert.equal(pool.window.abandoned, 1, 'an abandoned episode is counted');
  });

  test('an evaluation collects its results and is summarised when complete', () => {
    const pool = emptyPool(0, 0);
    pool.evaluation = { label: 'eval-0', version: 'v1', total: 2, results: [] };
    assert.equal(recordResult(pool, member('e0', null, 0), result('e0', 'submitted', 1), rules), 'evaluation');
    assert.equal(recordResult(pool, member('e1', null, 1), result('e1', 'submitted', 0), rules), 'evaluated');
    assert.equal(pool.evaluation, null);
    assert.equal(pool.evaluated!.version, 'v1');
    assert.deepEqual([pool.evaluated!.metrics.episodes, pool.evaluated!.metrics.meanReward], [2, 0.5]);
  });

  test('parked episodes: the oldest beyond the cap resume at once; all of them when nothing else can run', () => {
    const pool = emptyPool(0, 0);
    for (const [id, since] of [
      ['a', 30],
      ['b', 10],
      ['c', 20],
    ] as const) {
      pool.running[id] = member(id, 0, 0);
      pool.parked[id] = { sinceMs: since, resumeSent: false };
    }
    assert.deepEqual(parkedOverCap(pool, 1), ['b', 'c']);
    pool.parked.b!.resumeSent = true;
    assert.deepEqual(parkedOverCap(pool, 2), ['c'], 'one already told to resume is not told again');
    const idle = { trainingBusy: false, groupsPerStep: 1, concurrency: 1 };
    assert.deepEqual(parkedToResume(pool, idle), ['c']);
    assert.deepEqual(parkedToResume(pool, { ...idle, concurrency: 5 }), ['c', 'a']);
    assert.deepEqual(parkedToResume(pool, { ...idle, trainingBusy: true }), [], 'a step is coming');
    pool.queue.push(member('q', 1, 0));
    assert.deepEqual(parkedToResume(pool, idle), [], 'an episode waits to start');
  });

  test('idle time accrues only while no episode acts', () => {
    const pool = emptyPool(0, 1_000);
    tick(pool, 1_500);
    pool.running.x = member('x', 0, 0);
    tick(pool, 2_500);
    pool.parked.x = { sinceMs: 2_500, resumeSent: false };
    tick(pool, 2_700);
    assert.deepEqual([pool.window.samplerIdleMs, pool.window.lastTickMs], [700, 2_700]);
  });

  test("a group's staleness is that of its oldest turn; versions the run never published are ignored", () => {
    const versions = { v1: 1, v2: 2, v3: 3 };
    const sampled = (policyVersion: string, policyVersions?: string[]) => ({ policyVersion, policyVersions });
    assert.equal(groupStaleness([sampled('v3'), sampled('v2', ['v1', 'v2'])], versions, 3), 2);
    assert.equal(groupStaleness([sampled('v3'), sampled('warm-start')], versions, 3), 0);
  });

  test('the pool carried across continue-as-new is validated', () => {
    const pool = poolWithGroup();
    pool.groups[0]!.results[0] = result('g0.0', 'submitted');
    assert.deepEqual(AsyncPool.parse(structuredClone(pool)), pool);
    assert.throws(() => AsyncPool.parse({ ...pool, queue: [{ id: 'x' }] }), /queue/);
  });
});

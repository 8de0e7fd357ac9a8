// The critic's side of the batch: turn boundaries against the golden GAE cases the trainer also reads
// (shared/golden/gae.json), the truncation bootstrap, and critic estimators' rows (the trainer computes the
// advantages from its values).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { criticEstimatorNames } from '../../shared/math/advantages';
import { buildBatchRows, turnIds, type EpisodeTokens } from '../../shared/math/batch';
import { CriticEstimators } from '../../shared/contracts/trainer-contract';
import { effectiveStopCredit, probesStops } from '../../shared/contracts/run/credit';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import type { Outcome } from '../../shared/contracts/outcomes';
import { projectRoot } from '../../workers/config';

const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'gae.json'), 'utf8')) as {
  estimators: string[];
  cases: { name: string; estimator: string; loss_mask: number[][]; turn_ids?: number[][]; last_values?: number[] }[];
};

test('the critic estimators are the golden file’s and the trainer contract’s', () => {
  assert.deepEqual([...criticEstimatorNames], golden.estimators);
  assert.deepEqual([...CriticEstimators], golden.estimators);
});

test('turn boundaries: each run of action tokens is a turn, as the golden per-turn cases say', () => {
  const perTurn = golden.cases.filter((c) => c.turn_ids);
  assert.ok(perTurn.length >= 2);
  for (const c of perTurn)
    c.loss_mask.forEach((mask, row) => assert.deepEqual(turnIds(mask), c.turn_ids![row], c.name));
  // with the actions' starts (the compact language's markers), a turn runs to the next one's start
  assert.deepEqual(turnIds([0, 1, 1, 0, 1, 0, 1, 1], [1, 6]), [-1, 0, 0, -1, 0, -1, 1, 1]);
});

const episode = (id: string, outcome: Outcome, reward: number | null, group = 'g'): EpisodeTokens => ({
  episodeId: id,
  groupId: group,
  outcome,
  reward,
  tokenIds: [1, 2, 3, 4],
  lossMask: [0, 1, 1, 0],
  behaviourLogprobs: [0, -0.5, -0.5, 0],
  policyVersions: [-1, 1, 1, -1],
});

test('truncation bootstrap keeps a cut episode at reward 0 and marks it; the same as zero but for the mark', () => {
  const episodes = [
    episode('done', 'submitted', 1),
    episode('cut', 'turn_limit', null),
    episode('alone', 'submitted', 0, 'other'),
  ];
  const bootstrap = buildBatchRows(episodes, { estimator: 'gae', truncation: 'bootstrap' });
  const zero = buildBatchRows(episodes, { estimator: 'gae', truncation: 'zero' });
  assert.deepEqual(
    bootstrap.rows.map((row) => [row.episodeId, row.reward, row.bootstrap ?? false]),
    [
      ['done', 1, false],
      ['cut', 0, true],
      ['alone', 0, false],
    ],
  );
  assert.deepEqual(
    zero.rows.map((row) => [row.episodeId, row.reward, row.bootstrap ?? false]),
    [
      ['done', 1, false],
      ['cut', 0, false],
      ['alone', 0, false],
    ],
  );
  assert.equal(bootstrap.counts.truncatedBootstrapped, 1);
  // a critic needs no group: the episode alone in its group stays; its advantage is the trainer's to compute
  assert.equal(bootstrap.counts.groupsDropped, 0);
  assert.ok(bootstrap.rows.every((row) => row.advantage === 0));
  assert.throws(
    () => buildBatchRows(episodes, { estimator: 'grpo', truncation: 'bootstrap' }),
    /truncation bootstrap needs a critic \(estimator gae or gae_turn\), not grpo/,
  );
});

test('a run asks for the bootstrap only with a critic estimator, and names the critic’s settings', () => {
  const refused = TrainingRunInput.safeParse({ runId: 'c', tasks: 'x', credit: { truncation: 'bootstrap' } });
  assert.equal(refused.success, false);
  assert.deepEqual(refused.error.issues[0]!.path, ['credit', 'truncation']);
  assert.match(refused.error.issues[0]!.message, /needs estimator "gae" or "gae_turn", not "grpo"/);
  const run = TrainingRunInput.parse({
    runId: 'c',
    tasks: 'x',
    credit: { estimator: 'gae_turn', truncation: 'bootstrap', critic: { gamma: 0.99, valueClip: null } },
  });
  assert.deepEqual(run.credit.critic, { gamma: 0.99, valueClip: null });
  const bad = TrainingRunInput.safeParse({ runId: 'c', tasks: 'x', credit: { critic: { lambda: 2 } } });
  assert.deepEqual(bad.error?.issues[0]?.path, ['credit', 'critic', 'lambda']);
});

test('a critic estimator credits the stop decisions itself: no stop credit and no probes', () => {
  const run = (estimator: string) =>
    TrainingRunInput.parse({ runId: 's', tasks: 'x', credit: { estimator, stopCredit: 5 } }).credit;
  assert.equal(effectiveStopCredit(run('gae')), 0);
  assert.equal(effectiveStopCredit(run('gae_turn')), 0);
  assert.equal(effectiveStopCredit(run('grpo')), 5);
  assert.equal(effectiveStopCredit(run('gigpo')), 5);
});

test('a privileged critic needs the stop probes even without stop credit', () => {
  const run = (credit: object) => TrainingRunInput.parse({ runId: 'p', tasks: 'x', credit }).credit;
  assert.equal(probesStops(run({ estimator: 'gae', critic: { privileged: true } })), true);
  assert.equal(probesStops(run({ estimator: 'gae' })), false);
  assert.equal(probesStops(run({ estimator: 'grpo' })), true, 'stop credit 5 by default');
  assert.equal(probesStops(run({ estimator: 'grpo', stopCredit: 0 })), false);
});

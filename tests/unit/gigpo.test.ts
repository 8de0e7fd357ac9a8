// GiGPO's step groups and advantages against the golden cases the Python reference writes
// (shared/golden/gigpo.json, trainer/agentrl_reference/gigpo.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { computeGroupAdvantages } from '../../shared/math/advantages';
import { type GigpoEpisode, type GigpoOptions, defaultGigpoOptions, gigpoAdvantages } from '../../shared/math/gigpo';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import { projectRoot } from '../../workers/config';

interface Case {
  name: string;
  episodes: GigpoEpisode[];
  omega?: number;
  gamma?: number;
  normalise?: GigpoOptions['normalise'];
  expected: { episode: number[]; actions: number[][]; step: number[][]; stepGroups: number; groupedActions: number };
}
const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'gigpo.json'), 'utf8')) as {
  defaults: GigpoOptions;
  tolerance: number;
  cases: Case[];
};

const close = (actual: number[], expected: number[], what: string) => {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((value, index) =>
    assert.ok(Math.abs(value - expected[index]!) <= golden.tolerance, `${what}[${index}]`),
  );
};

test('the defaults are the golden file’s (omega 1, gamma 0.95, std)', () => {
  assert.deepEqual(defaultGigpoOptions, golden.defaults);
});

for (const c of golden.cases) {
  test(`golden: ${c.name}`, () => {
    const options = { ...golden.defaults, ...(c.omega !== undefined ? { omega: c.omega } : {}) };
    if (c.gamma !== undefined) options.gamma = c.gamma;
    if (c.normalise !== undefined) options.normalise = c.normalise;
    const result = gigpoAdvantages(c.episodes, options);
    close(result.episode, c.expected.episode, 'episode');
    result.actions.forEach((actions, index) => close(actions, c.expected.actions[index]!, `actions[${index}]`));
    result.step.forEach((step, index) => close(step, c.expected.step[index]!, `step[${index}]`));
    assert.equal(result.stepGroups, c.expected.stepGroups);
    assert.equal(result.groupedActions, c.expected.groupedActions);
  });
}

test('with no repeated state every action carries exactly its episode’s GRPO advantage', () => {
  const c = golden.cases.find((entry) => entry.name === 'no repeated state is GRPO')!;
  const grpo = computeGroupAdvantages(
    'grpo',
    c.episodes.map((episode) => episode.reward),
  );
  gigpoAdvantages(c.episodes, golden.defaults).actions.forEach((actions, index) =>
    actions.forEach((value) => assert.equal(value, grpo[index])),
  );
});

test('bad options and rewards are refused by name', () => {
  assert.throws(() => gigpoAdvantages([], { ...defaultGigpoOptions, gamma: 0 }), /gamma must lie in \(0, 1\]/);
  assert.throws(() => gigpoAdvantages([], { ...defaultGigpoOptions, omega: -1 }), /omega must be >= 0/);
  assert.throws(
    () => gigpoAdvantages([{ reward: Number.NaN, states: ['start'] }], defaultGigpoOptions),
    /rewards must be finite/,
  );
});

test('a run names gigpo as its estimator with its options, for the toy model and a chat model alike', () => {
  const run = TrainingRunInput.parse({ runId: 'g', tasks: 'tasks/suite/train', credit: { estimator: 'gigpo' } });
  assert.deepEqual(run.credit.gigpo, defaultGigpoOptions);
  const tuned = TrainingRunInput.parse({
    runId: 'g',
    tasks: 'x',
    credit: { estimator: 'gigpo', gigpo: { omega: 0.5 } },
  });
  assert.deepEqual(tuned.credit.gigpo, { ...defaultGigpoOptions, omega: 0.5 });
  const chat = TrainingRunInput.safeParse({
    runId: 'g',
    tasks: 'x',
    credit: { estimator: 'gigpo' },
    model: { name: 'smollm2-135m-instruct' },
  });
  assert.equal(chat.success, true, chat.error?.message);
  const bad = TrainingRunInput.safeParse({ runId: 'g', tasks: 'x', credit: { gigpo: { gamma: 0 } } });
  assert.deepEqual(bad.error?.issues[0]?.path, ['credit', 'gigpo', 'gamma']);
});

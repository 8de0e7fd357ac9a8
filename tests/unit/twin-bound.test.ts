// The survival bound a task is held to counts only the tests that decide it, and counts a deciding
// test without a twin as survivable with certainty.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decidingBound, type TwinPlan } from '../../activities/checker/twins';

const twin = (of: string, group: string) => ({
  kind: 'twin' as const,
  of,
  group,
  path: 'tests/test_x.py',
  lines: [1, 1] as [number, number],
});

const plan: TwinPlan = {
  files: {},
  tests: {
    'tests/test_x.py::test_a1': { kind: 'real', id: 'tests/test_x.py::test_visible_passing' },
    'tests/test_x.py::test_a2': twin('tests/test_x.py::test_visible_passing', 'f(1) == 1'),
    'tests/test_x.py::test_b1': twin('tests/test_x.py::test_fixed', 'f(2) == 4'),
    'tests/test_x.py::test_b2': twin('tests/test_x.py::test_fixed', 'f(2) == 4'),
    'tests/test_x.py::test_c1': twin('tests/test_x.py::test_hidden', 'f(3) == 9'),
    'tests/test_x.py::test_c2': twin('tests/test_x.py::test_hidden_too', 'f(3) == 9'),
    'tests/test_x.py::test_d': { kind: 'real', id: 'tests/test_x.py::test_raises' },
  },
  groups: {
    'f(1) == 1': { values: 1000, real: true },
    'f(2) == 4': { values: 10, real: true },
    'f(3) == 9': { values: 20, real: true },
  },
  survival: 1 / (1000 * 10 * 20),
  uncovered: ['tests/test_x.py::test_raises'],
  unparsed: [],
};

describe('the bound over the deciding tests', () => {
  test('each twin group of a deciding test counts once, a passing-at-start test not at all', () => {
    const { bound, untwinned } = decidingBound(plan, [
      'tests/test_x.py::test_fixed',
      'tests/test_x.py::test_hidden',
      'tests/test_x.py::test_hidden_too',
    ]);
    assert.equal(bound, 1 / (10 * 20));
    assert.deepEqual(untwinned, []);
    assert.ok(plan.survival < bound, 'the old figure counted the visible group the unfixed code answers');
  });

  test('a deciding test without a twin is survivable with certainty and named', () => {
    const { bound, untwinned } = decidingBound(plan, ['tests/test_x.py::test_raises']);
    assert.equal(bound, 1);
    assert.deepEqual(untwinned, ['tests/test_x.py::test_raises']);
    const mixed = decidingBound(plan, ['tests/test_x.py::test_raises', 'tests/test_x.py::test_fixed']);
    assert.deepEqual([mixed.bound, mixed.untwinned], [0.1, ['tests/test_x.py::test_raises']]);
  });
});

describe('the bound counts the assertion a deciding test failed at', () => {
  const ranged: TwinPlan = { ...plan, checkRanges: { 'tests/test_x.py::test_fixed': [12, 13] } };

  test('a deciding test whose failing assertion is not its twinned one is untwinned, with the line and why', () => {
    // the test failed before the fix at line 20 (a new assertion through the package's helper, say), but its
    // twin changes line 12, which the unfixed code passes: a forger of that helper survives with certainty
    const { bound, untwinned, reasons } = decidingBound(ranged, ['tests/test_x.py::test_fixed'], {
      'tests/test_x.py::test_fixed': 20,
    });
    assert.equal(bound, 1);
    assert.deepEqual(untwinned, ['tests/test_x.py::test_fixed']);
    assert.match(reasons['tests/test_x.py::test_fixed']!, /line 20, which fails before the fix, has no must-fail twin/);
  });

  test('a failing line inside the twinned check counts its group; no recorded line counts it too', () => {
    for (const failing of [{ 'tests/test_x.py::test_fixed': 13 }, {}] as Record<string, number>[])
      assert.equal(decidingBound(ranged, ['tests/test_x.py::test_fixed'], failing).bound, 1 / 10);
  });

  test('a raise check counts 2/k: its judgement excuses one other class', () => {
    const raising: TwinPlan = {
      ...plan,
      groups: { ...plan.groups, 'f(2) == 4': { values: 10, real: true, check: 'raise' } },
    };
    assert.equal(decidingBound(raising, ['tests/test_x.py::test_fixed']).bound, 2 / 10);
  });
});

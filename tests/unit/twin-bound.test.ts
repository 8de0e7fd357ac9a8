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

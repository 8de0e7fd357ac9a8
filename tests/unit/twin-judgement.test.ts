// How a run of twinned modules is judged: a forged report only on evidence no honest solution gives, and a raise
// twin excused when an honest exception derives from the expected class and exactly one other.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HarnessResult } from '../../activities/checker/grading';
import { judgeTwins, type TwinPlan } from '../../activities/checker/twins';

const path = 'tests/test_x.py';
const files = { [path]: Buffer.from('') };
const twin = (of: string | null, check: 'value' | 'raise' | 'input' | 'fresh', variant?: string) => ({
  kind: 'twin' as const,
  of,
  group: `group of ${of}`,
  path,
  lines: [10, 11] as [number, number],
  check,
  ...(variant ? { variant } : {}),
});
const real = (id: string) => ({ kind: 'real' as const, id });
const plan = (tests: TwinPlan['tests']): TwinPlan => ({
  files: {},
  tests,
  groups: {},
  survival: 1,
  uncovered: [],
  unparsed: [],
});
const run = (outcomes: Record<string, 'passed' | 'failed at its check' | 'failed elsewhere'>): HarnessResult => ({
  exitCode: 1,
  timedOut: false,
  report: {
    tests: Object.entries(outcomes).map(([nodeid, outcome]) =>
      outcome === 'passed'
        ? { nodeid, outcome: 'passed' as const }
        : {
            nodeid,
            outcome: 'failed' as const,
            crash: { path, line: outcome === 'failed at its check' ? 10 : 3, message: 'AssertionError' },
          },
    ),
    collectErrors: [],
  },
  output: '',
  outputTruncated: false,
  durationMs: 1,
});

describe('judging twins', () => {
  test('a value twin passing beside its passing real sibling is a forged report', () => {
    const verdict = judgeTwins(
      run({ [`${path}::r`]: 'passed', [`${path}::t`]: 'passed' }),
      plan({ [`${path}::r`]: real('a'), [`${path}::t`]: twin('a', 'value') }),
      ['a'],
      files,
    );
    assert.equal(verdict.ok, false);
    assert.equal(verdict.forged?.kind, 'forged_report');
  });

  test('what an honest wrong fix can give fails the run but is never called forged', () => {
    // a fix that raises on valid inputs too passes the input twins; a wrong answer hits a fresh call's wrong value
    const verdict = judgeTwins(
      run({ [`${path}::r`]: 'passed', [`${path}::i`]: 'passed', [`${path}::f`]: 'passed' }),
      plan({
        [`${path}::r`]: real('a'),
        [`${path}::i`]: twin('a', 'input', 'ValueError'),
        [`${path}::f`]: twin(null, 'fresh'),
      }),
      ['a'],
      files,
    );
    assert.equal(verdict.ok, false);
    assert.equal(verdict.forged, null);
    assert.equal(verdict.notFailed.length, 2);
  });

  test('a raise twin of the one other class an honest exception derives from is excused; two classes are not', () => {
    const tests = {
      [`${path}::r`]: real('a'),
      [`${path}::t1`]: twin('a', 'raise', 'ValueError'),
      [`${path}::t2`]: twin('a', 'raise', 'KeyError'),
      [`${path}::t3`]: twin('a', 'raise', 'OSError'),
    };
    const one = judgeTwins(
      run({
        [`${path}::r`]: 'passed',
        [`${path}::t1`]: 'passed',
        [`${path}::t2`]: 'failed at its check',
        [`${path}::t3`]: 'failed at its check',
      }),
      plan(tests),
      ['a'],
      files,
    );
    assert.deepEqual([one.ok, one.forged, one.notFailed], [true, null, []]);
    const two = judgeTwins(
      run({
        [`${path}::r`]: 'passed',
        [`${path}::t1`]: 'passed',
        [`${path}::t2`]: 'passed',
        [`${path}::t3`]: 'failed at its check',
      }),
      plan(tests),
      ['a'],
      files,
    );
    assert.equal(two.ok, false);
    assert.equal(two.notFailed.length, 2);
    assert.equal(two.forged, null, 'a class of many bases is not shown forged, only failed');
  });
});

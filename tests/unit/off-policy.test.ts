// Staleness of trained tokens against the golden cases the trainer also reads (shared/golden/off-policy.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  defaultIsCap,
  OffPolicyModes,
  rowStaleness,
  summariseStaleness,
  tokenStaleness,
} from '../../shared/math/off-policy';
import { projectRoot } from '../../workers/config';

interface StalenessCase {
  name: string;
  base: number;
  maxStaleness: number;
  policy_versions: number[][];
  loss_mask: number[][];
  expected: {
    max: number;
    mean: number;
    histogram: number[];
    tokens: number;
    rowMax: number[];
    staleRows: number[];
    newer: boolean;
  };
}
const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'off-policy.json'), 'utf8')) as {
  modes: string[];
  defaultIsCap: number;
  tolerance: number;
  staleness: StalenessCase[];
};

test("the modes and the default cap are the trainer's", () => {
  assert.deepEqual(golden.modes, [...OffPolicyModes]);
  assert.equal(golden.defaultIsCap, defaultIsCap);
});

for (const item of golden.staleness) {
  test(`staleness: ${item.name}`, () => {
    const values = item.policy_versions.flatMap((versions, row) =>
      tokenStaleness(versions, item.loss_mask[row]!, item.base),
    );
    const summary = summariseStaleness(values);
    assert.equal(summary.tokens, item.expected.tokens);
    assert.equal(summary.max, item.expected.max);
    assert.ok(Math.abs(summary.mean - item.expected.mean) < golden.tolerance);
    assert.deepEqual(summary.histogram, item.expected.histogram);
    const rows = item.policy_versions.map((versions, row) => rowStaleness(versions, item.loss_mask[row]!, item.base));
    assert.deepEqual(rows, item.expected.rowMax);
    assert.deepEqual(
      rows.flatMap((value, row) => (value > item.maxStaleness ? [row] : [])),
      item.expected.staleRows,
    );
    assert.equal(
      values.some((value) => value < 0),
      item.expected.newer,
    );
  });
}

// Evaluation figures: pass@k.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { passAtK } from '../../shared/math/metrics';

describe('pass@k', () => {
  test('matches the closed form and its edge cases', () => {
    // 1 − C(n−c, k) / C(n, k)
    assert.equal(passAtK(10, 0, 1), 0);
    assert.equal(passAtK(10, 10, 5), 1);
    assert.ok(Math.abs(passAtK(4, 1, 1) - 0.25) < 1e-12);
    assert.ok(Math.abs(passAtK(4, 1, 2) - 0.5) < 1e-12, '1 − C(3,2)/C(4,2) = 1 − 3/6');
    assert.ok(Math.abs(passAtK(5, 2, 2) - 0.7) < 1e-12, '1 − C(3,2)/C(5,2) = 1 − 3/10');
    assert.equal(passAtK(3, 2, 2), 1, 'fewer wrong samples than k: always a hit');
    assert.throws(() => passAtK(2, 1, 3), /needs at least 3 samples per task/);
  });
});

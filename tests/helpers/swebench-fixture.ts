// A small project with a real git history, and SWE-bench-style instances of its bug fixes: what a user
// brings to `task import swebench` (a clone and a JSONL file), made here so the tests need no network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const base = {
  'tinycalc/__init__.py': [
    '"""Small numeric helpers."""',
    '',
    '',
    'def clamp(value, low, high):',
    '    """value limited to [low, high]."""',
    '    if value < low:',
    '        return low',
    '    if value > high:',
    '        return value',
    '    return value',
    '',
    '',
    'def mean(values):',
    '    """The arithmetic mean; ValueError for no values."""',
    '    return sum(values) / len(values)',
    '',
    '',
    'def window(values, size):',
    '    """The runs of `size` consecutive values, as tuples."""',
    '    return [tuple(values[i : i + size]) for i in range(len(values) - size + (1 if size < 3 else 0))]',
    '',
    '',
    'def same(left, right):',
    '    """Whether two iterables hold the same items in the same order (a helper the tests use)."""',
    '    return list(left) == list(right)',
    '',
    '',
    'def contains(items, item):',
    '    """Whether item is one of items (a helper the tests use)."""',
    '    return item in list(items)',
    '',
  ].join('\n'),
  'tests/test_calc.py': [
    'import os',
    '',
    'import pytest',
    '',
    'from tinycalc import clamp, mean',
    '',
    '',
    'def test_clamp_inside():',
    '    assert clamp(5, 0, 10) == 5',
    '',
    '',
    'def test_clamp_below():',
    '    assert clamp(-3, 0, 10) == 0',
    '',
    '',
    'def test_mean():',
    '    assert mean([1, 2, 3]) == 2',
    '',
    '',
    '@pytest.mark.parametrize("values, expected", [([4], 4), ([1, 3], 2)])',
    'def test_mean_rows(values, expected):',
    '    assert mean(values) == expected',
    '',
    '',
    'def test_needs_a_network():',
    '    # environment-dependent: fails in any sandbox, whatever the code does',
    '    assert os.environ.get("TINYCALC_NETWORK") == "yes"',
    '',
    '',
    'def test_window():',
    '    from tinycalc import contains, same, window',
    '',
    '    assert window([1, 2, 3], 2) == [(1, 2), (2, 3)]',
    '',
  ].join('\n'),
};

const clampFix = `diff --git a/tinycalc/__init__.py b/tinycalc/__init__.py
--- a/tinycalc/__init__.py
+++ b/tinycalc/__init__.py
@@ -6,7 +6,7 @@ def clamp(value, low, high):
     if value < low:
         return low
     if value > high:
-        return value
+        return high
     return value
 
 
`;

const clampTests = `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -13,6 +13,14 @@ def test_clamp_below():
     assert clamp(-3, 0, 10) == 0
 
 
+def test_clamp_above():
+    assert clamp(42, 0, 10) == 10
+
+
+def test_clamp_at_high():
+    assert clamp(10, 0, 10) == 10
+
+
 def test_mean():
     assert mean([1, 2, 3]) == 2
 
`;

const meanFix = `diff --git a/tinycalc/__init__.py b/tinycalc/__init__.py
--- a/tinycalc/__init__.py
+++ b/tinycalc/__init__.py
@@ -12,4 +12,6 @@ def clamp(value, low, high):
 
 def mean(values):
     """The arithmetic mean; ValueError for no values."""
+    if not values:
+        raise ValueError("mean of no values")
     return sum(values) / len(values)
`;

const meanTests = `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -17,6 +17,11 @@ def test_mean():
     assert mean([1, 2, 3]) == 2
 
 
+def test_mean_of_nothing():
+    with pytest.raises(ValueError):
+        mean([])
+
+
 @pytest.mark.parametrize("values, expected", [([4], 4), ([1, 3], 2)])
 def test_mean_rows(values, expected):
     assert mean(values) == expected
`;

const windowFix = `diff --git a/tinycalc/__init__.py b/tinycalc/__init__.py
--- a/tinycalc/__init__.py
+++ b/tinycalc/__init__.py
@@ -20,7 +20,7 @@ def mean(values):
 
 def window(values, size):
     """The runs of \`size\` consecutive values, as tuples."""
-    return [tuple(values[i : i + size]) for i in range(len(values) - size + (1 if size < 3 else 0))]
+    return [tuple(values[i : i + size]) for i in range(len(values) - size + 1)]
 
 
 def same(left, right):
`;

/** The fix's test patch adds one assertion to test_window, whose older assertion the unfixed code passes. */
const windowTests = (assertion: string) => `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -35,3 +35,4 @@ def test_window():
     from tinycalc import contains, same, window
 
     assert window([1, 2, 3], 2) == [(1, 2), (2, 3)]
+    ${assertion}
`;

/** A clone of `example/tinycalc` under `<repos>/example__tinycalc`, and its base commit. */
export function makeTinycalcClone(): { repos: string; commit: string } {
  const repos = mkdtempSync(join(tmpdir(), 'agentrl-repos-'));
  const clone = join(repos, 'example__tinycalc');
  for (const [path, content] of Object.entries(base)) {
    mkdirSync(dirname(join(clone, path)), { recursive: true });
    writeFileSync(join(clone, path), content);
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', clone, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@e',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@e',
      },
    })
      .toString()
      .trim();
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'tinycalc');
  return { repos, commit: git('rev-parse', 'HEAD') };
}

const passToPass = [
  'tests/test_calc.py::test_clamp_inside',
  'tests/test_calc.py::test_clamp_below',
  'tests/test_calc.py::test_mean',
  'tests/test_calc.py::test_mean_rows[values0-4]',
  'tests/test_calc.py::test_mean_rows[values1-2]',
];

/** SWE-bench-style instances of tinycalc's two fixes (lists as JSON strings, as SWE-bench ships them). */
export function tinycalcInstances(commit: string): Record<string, unknown>[] {
  const instance = (id: string, problem: string, patch: string, testPatch: string, failToPass: string[]) => ({
    instance_id: id,
    repo: 'example/tinycalc',
    base_commit: commit,
    problem_statement: problem,
    patch,
    test_patch: testPatch,
    FAIL_TO_PASS: JSON.stringify(failToPass),
    PASS_TO_PASS: JSON.stringify(passToPass),
    version: '1.0',
    created_at: '2026-01-01T00:00:00Z',
  });
  return [
    instance(
      'example__tinycalc-1',
      'clamp(42, 0, 10) returns 42: a value above the range is not limited.',
      clampFix,
      clampTests,
      ['tests/test_calc.py::test_clamp_above'],
    ),
    instance('example__tinycalc-2', 'mean([]) raises ZeroDivisionError instead of ValueError.', meanFix, meanTests, [
      'tests/test_calc.py::test_mean_of_nothing',
    ]),
    // FAIL_TO_PASS lists a test that passes before the patch: validation must refuse it, naming the test
    instance('example__tinycalc-3', 'clamp at the high end.', clampFix, clampTests, [
      'tests/test_calc.py::test_clamp_above',
      'tests/test_calc.py::test_clamp_at_high',
    ]),
    // the assertion that decides goes through the package's own helper: a membership (no must-fail twin) ...
    instance(
      'example__tinycalc-4',
      'window([1, 2, 3, 4], 3) drops the last run.',
      windowFix,
      windowTests('assert contains(window([1, 2, 3, 4], 3), (2, 3, 4))'),
      ['tests/test_calc.py::test_window'],
    ),
    // ... and an equality (twinned like assertEqual: a forged helper passes its must-fail twin too)
    instance(
      'example__tinycalc-5',
      'window([1, 2, 3, 4], 3) drops the last run.',
      windowFix,
      windowTests('assert same(window([1, 2, 3, 4], 3), [(1, 2, 3), (2, 3, 4)])'),
      ['tests/test_calc.py::test_window'],
    ),
  ];
}

// The checker's rules that need no container: protected paths, tamper kinds, reward rules, kept folders.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dropPathConflicts } from '../../activities/checker/changes';
import { allExpectedPassed } from '../../activities/checker/grading';
import { defaultProtectedPaths, protectedPathMatcher } from '../../shared/protected-paths';
import { forgesPass, tamperKindList } from '../../shared/tamper';

describe('protected paths', () => {
  const isProtected = protectedPathMatcher(defaultProtectedPaths);
  test('tests, test configuration, import hooks and git are protected', () => {
    for (const path of ['tests/test_a.py', 'test_top.py', 'pkg/a_test.py', 'pkg/tests/helpers.py', 'test/data.json', 'conftest.py', 'sub/conftest.py', 'pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml', 'sitecustomize.py', 'lib/usercustomize.py', 'x.pth', '.git/config']) {
      assert.ok(isProtected(path), path);
    }
  });
  test('ordinary code is not', () => {
    for (const path of ['pkg/__init__.py', 'pkg/testing.py', 'contest.py', 'pytest.py', 'README.md', 'latest/x.py', 'gitignore']) assert.ok(!isProtected(path), path);
  });
  test('a task can name its own globs', () => {
    const custom = protectedPathMatcher(['spec/**', '*.lock']);
    assert.ok(custom('spec/a/b.py'));
    assert.ok(custom('poetry.lock'));
    assert.ok(!custom('src/poetry.lock'));
    assert.ok(!custom('tests/test_a.py'));
  });
});

describe('tamper kinds', () => {
  test('exactly the kinds that can forge a pass zero the reward', () => {
    const forging = tamperKindList.filter((kind) => forgesPass(kind.kind)).map((kind) => kind.kind).sort();
    assert.deepEqual(forging, ['always_true_eq', 'compiled_module', 'dynamic_code', 'exit_at_import', 'forged_report', 'over_limits', 'runner_internals', 'shadowing_module', 'unanalysable']);
    assert.ok(!forgesPass('test_edit'));
    assert.ok(!forgesPass('no_such_kind'));
  });
});

describe('grading rules', () => {
  const result = (exitCode: number | null, tests: [string, string][], timedOut = false) => ({
    exitCode, timedOut, output: '', outputTruncated: false, durationMs: 1,
    report: { tests: tests.map(([nodeid, outcome]) => ({ nodeid, outcome: outcome as 'passed' })), collectErrors: [] },
  });
  test('reward needs every expected id passed and a zero exit', () => {
    assert.ok(allExpectedPassed(result(0, [['a', 'passed'], ['b', 'passed']]), ['a', 'b']));
    assert.ok(!allExpectedPassed(result(1, [['a', 'passed'], ['b', 'passed']]), ['a', 'b']), 'a non-zero exit fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']]), ['a', 'b']), 'a missing test fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed'], ['b', 'skipped']]), ['a', 'b']), 'a skipped test fails');
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']], true), ['a']), 'a timeout fails');
    assert.ok(!allExpectedPassed({ ...result(0, []), report: null }, ['a']), 'no report fails');
  });
  test('an agent file that clashes with a kept folder is dropped', () => {
    const files: Record<string, Buffer> = { tests: Buffer.from('x'), 'tests/test_a.py': Buffer.from(''), 'pkg/__init__.py': Buffer.from(''), 'pkg/__init__.py/x': Buffer.from('') };
    dropPathConflicts(files, new Set(['tests', 'pkg/__init__.py/x']));
    assert.deepEqual(Object.keys(files).sort(), ['pkg/__init__.py', 'tests/test_a.py']);
  });
});

// One normalisation of repository paths for every classification (shared/paths/repo-paths.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { protectedPathMatcher, defaultProtectedPaths } from '../../shared/paths/protected-paths';
import { pathKey } from '../../shared/paths/repo-paths';

test('the key folds separators, dot segments, case, Unicode forms and format characters', () => {
  assert.equal(pathKey('tests\\test_x.py'), 'tests/test_x.py');
  assert.equal(pathKey('./pkg//../tests/./Test_X.py'), 'tests/test_x.py');
  assert.equal(pathKey('ｔｅｓｔｓ/test_x.py'), 'tests/test_x.py', 'fullwidth letters (NFKC)');
  assert.equal(pathKey('te\u200bsts/test_x.py'), 'tests/test_x.py', 'a zero-width space');
  assert.equal(pathKey('cafe\u0301.py'), pathKey('caf\u00e9.py'), 'decomposed and composed forms');
  assert.equal(pathKey('bad\ufffdname.py'), 'bad\ufffdname.py', 'undecodable bytes stay a replacement character');
});

test('a protected path is protected however it is spelled', () => {
  const isProtected = protectedPathMatcher(defaultProtectedPaths);
  for (const path of [
    'tests/test_pager.py',
    'Tests/test_pager.py',
    'tests\\test_pager.py',
    'pkg/../tests/x.py',
    'ｔｅｓｔｓ/x.py',
    'Conftest.py',
    'tes\u200bts/x.py',
    'pkg/TEST_thing.py',
  ]) {
    assert.equal(isProtected(path), true, path);
  }
  for (const path of ['pager/__init__.py', 'pager/testing_utils.py', 'docs/contest.md'])
    assert.equal(isProtected(path), false, path);
});

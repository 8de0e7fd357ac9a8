// The checker's rules that need no container: protected paths, tamper kinds, reward rules, kept folders.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dropPathConflicts } from '../../activities/checker/changes';
import { allExpectedPassed } from '../../activities/checker/grading';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkerScript } from '../../activities/checker/scripts';
import { checkerPathRules, classifyPath, CheckerPathRules, protectedGlobsOf } from '../../shared/paths/checker-paths';
import { defaultProtectedPaths, protectedPathMatcher } from '../../shared/paths/protected-paths';
import { forgesPass, tamperKindList } from '../../shared/names/tamper';

describe('protected paths', () => {
  const isProtected = protectedPathMatcher(defaultProtectedPaths);
  test('tests, test configuration, import hooks and git are protected', () => {
    for (const path of [
      'tests/test_a.py',
      'test_top.py',
      'pkg/a_test.py',
      'pkg/tests/helpers.py',
      'test/data.json',
      'conftest.py',
      'sub/conftest.py',
      'pytest.ini',
      'tox.ini',
      'setup.cfg',
      'pyproject.toml',
      'sitecustomize.py',
      'lib/usercustomize.py',
      'x.pth',
      '.git/config',
    ]) {
      assert.ok(isProtected(path), path);
    }
  });
  test('ordinary code is not', () => {
    for (const path of [
      'pkg/__init__.py',
      'pkg/testing.py',
      'contest.py',
      'pytest.py',
      'README.md',
      'latest/x.py',
      'gitignore',
    ])
      assert.ok(!isProtected(path), path);
  });
  test('a task can name its own globs', () => {
    const custom = protectedPathMatcher(['spec/**', '*.lock']);
    assert.ok(custom('spec/a/b.py'));
    assert.ok(custom('poetry.lock'));
    assert.ok(!custom('src/poetry.lock'));
    assert.ok(!custom('tests/test_a.py'));
  });
});

/** The tamper detector's classification of paths (activities/checker/python/detect-tamper.py), under a rules file. */
function pythonClassify(paths: string[], checkerPathsFile?: string): ReturnType<typeof classifyPath>[] {
  const run = spawnSync('python3', ['-I', checkerScript('detect-tamper.py')], {
    input: JSON.stringify({ classify: paths, ...(checkerPathsFile ? { checkerPathsFile } : {}) }),
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return (JSON.parse(run.stdout) as { paths: ({ path: string } & ReturnType<typeof classifyPath>)[] }).paths.map(
    ({ test, config, startup }) => ({ test, config, startup }),
  );
}

describe('one list of test and configuration paths for both languages (shared/checker-paths.json)', () => {
  const paths = [
    'tests/test_a.py',
    'test_top.py',
    'pkg/a_test.py',
    'pkg/tests/helpers.py',
    'test/data.json',
    'conftest.py',
    'sub/conftest.py',
    'pytest.ini',
    '.pytest.ini',
    'pytest.toml',
    'sub/.pytest.toml',
    'tox.ini',
    'setup.cfg',
    'pyproject.toml',
    'sitecustomize.py',
    'lib/usercustomize.py',
    'x.pth',
    'Tests/Test_Upper.PY',
    'pkg/__init__.py',
    'pkg/testing.py',
    'contest.py',
    'pytest.py',
    'README.md',
    'latest/x.py',
    'spec/x.py',
    'checks_spec.py',
    'noxfile.py',
  ];

  test('the TypeScript rules and the tamper detector classify every path alike', () => {
    assert.deepEqual(
      pythonClassify(paths),
      paths.map((path) => classifyPath(path)),
    );
  });

  test('every configuration file the detector knows is protected by default (pytest.toml and .pytest.ini among them)', () => {
    const isProtected = protectedPathMatcher(defaultProtectedPaths);
    for (const name of checkerPathRules.configFiles) assert.ok(isProtected(`sub/${name}`), name);
    for (const name of ['.pytest.ini', 'pytest.toml', '.pytest.toml']) assert.ok(isProtected(name), name);
  });

  test('a changed rules file changes both sides', () => {
    const rules: CheckerPathRules = {
      ...checkerPathRules,
      testFiles: [...checkerPathRules.testFiles, '*_spec.py'],
      testDirs: [...checkerPathRules.testDirs, 'spec'],
      configFiles: [...checkerPathRules.configFiles, 'noxfile.py'],
    };
    const file = join(mkdtempSync(join(tmpdir(), 'agentrl-rules-')), 'checker-paths.json');
    writeFileSync(file, JSON.stringify(rules));
    const python = pythonClassify(paths, file);
    assert.deepEqual(
      python,
      paths.map((path) => classifyPath(path, rules)),
    );
    const index = (path: string) => paths.indexOf(path);
    assert.deepEqual(
      [python[index('spec/x.py')]!.test, python[index('checks_spec.py')]!.test, python[index('noxfile.py')]!.config],
      [true, true, true],
    );
    assert.deepEqual(
      pythonClassify(['spec/x.py', 'noxfile.py']),
      [
        { test: false, config: false, startup: false },
        { test: false, config: false, startup: false },
      ],
      'not without the change',
    );
    const isProtected = protectedPathMatcher(protectedGlobsOf(rules));
    assert.ok(isProtected('spec/x.py') && isProtected('a/checks_spec.py') && isProtected('noxfile.py'));
  });

  test('a malformed rules file is refused with the field named', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentrl-rules-')), 'checker-paths.json');
    writeFileSync(file, JSON.stringify({ ...checkerPathRules, testDirs: ['a/b'] }));
    const run = spawnSync('python3', ['-I', checkerScript('detect-tamper.py')], {
      input: JSON.stringify({ classify: ['x.py'], checkerPathsFile: file }),
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /testDirs must be a list of file names/);
    assert.throws(() => CheckerPathRules.parse({ ...checkerPathRules, testDirs: ['a/b'] }), /testDirs/);
  });
});

describe('tamper kinds', () => {
  test('exactly the kinds that can forge a pass zero the reward', () => {
    const forging = tamperKindList
      .filter((kind) => forgesPass(kind.kind))
      .map((kind) => kind.kind)
      .sort();
    assert.deepEqual(forging, [
      'always_true_eq',
      'compiled_module',
      'dynamic_code',
      'exit_at_import',
      'forged_report',
      'over_limits',
      'runner_internals',
      'shadowing_module',
      'stdlib_patch',
      'unanalysable',
      'verifier_output',
    ]);
    assert.ok(!forgesPass('test_edit'));
    assert.ok(!forgesPass('no_such_kind'));
  });
});

describe('grading rules', () => {
  const result = (exitCode: number | null, tests: [string, string][], timedOut = false) => ({
    exitCode,
    timedOut,
    output: '',
    outputTruncated: false,
    durationMs: 1,
    report: { tests: tests.map(([nodeid, outcome]) => ({ nodeid, outcome: outcome as 'passed' })), collectErrors: [] },
  });
  test('reward needs every expected id passed and a zero exit', () => {
    assert.ok(
      allExpectedPassed(
        result(0, [
          ['a', 'passed'],
          ['b', 'passed'],
        ]),
        ['a', 'b'],
      ),
    );
    assert.ok(
      !allExpectedPassed(
        result(1, [
          ['a', 'passed'],
          ['b', 'passed'],
        ]),
        ['a', 'b'],
      ),
      'a non-zero exit fails',
    );
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']]), ['a', 'b']), 'a missing test fails');
    assert.ok(
      !allExpectedPassed(
        result(0, [
          ['a', 'passed'],
          ['b', 'skipped'],
        ]),
        ['a', 'b'],
      ),
      'a skipped test fails',
    );
    assert.ok(!allExpectedPassed(result(0, [['a', 'passed']], true), ['a']), 'a timeout fails');
    assert.ok(!allExpectedPassed({ ...result(0, []), report: null }, ['a']), 'no report fails');
  });
  test('an agent file that clashes with a kept folder is dropped', () => {
    const files: Record<string, Buffer> = {
      tests: Buffer.from('x'),
      'tests/test_a.py': Buffer.from(''),
      'pkg/__init__.py': Buffer.from(''),
      'pkg/__init__.py/x': Buffer.from(''),
    };
    dropPathConflicts(files, new Set(['tests', 'pkg/__init__.py/x']));
    assert.deepEqual(Object.keys(files).sort(), ['pkg/__init__.py', 'tests/test_a.py']);
  });
});

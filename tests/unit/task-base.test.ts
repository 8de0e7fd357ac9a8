// base.yaml: a task that names its trees (an upstream tree plus its own patch) reads exactly as one that
// holds them, for our folders and Harbor's; its digest follows the base; bad bases are named.
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { harborImageNames } from '../../activities/images/harbor-image';
import { readHarborFolder } from '../../activities/tasks/harbor';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { applyPatch, readTree } from '../../activities/tasks/task-files';
import { validationDigest } from '../../activities/tasks/validation-digest';
import { projectRoot } from '../../workers/config';

const bundled = join(projectRoot, 'tasks', 'off-by-one-range');
// the bug of off-by-one-range planted in a tree that has the fix, as a task's base.patch writes it
const plantBug = [
  'diff --git a/repo/pager/__init__.py b/repo/pager/__init__.py',
  '--- a/repo/pager/__init__.py',
  '+++ b/repo/pager/__init__.py',
  '@@ -16,4 +16,4 @@ def get_page(items, number, page_size):',
  '         raise ValueError("page numbers start at 1")',
  '     start = (number - 1) * page_size',
  '     end = start + page_size',
  '-    return list(items[start:end])',
  '+    return list(items[start:end - 1])',
  '',
].join('\n');

const writeTree = (dir: string, files: Record<string, Buffer>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
};

/** off-by-one-range as it is, and as a task naming `upstream/pager` (the fixed project) with the bug as its patch. */
function namedTask(): { held: string; named: string; upstream: string } {
  const root = mkdtempSync(join(tmpdir(), 'agentrl-base-'));
  const held = join(root, 'tasks', 'held');
  const named = join(root, 'tasks', 'named');
  const upstream = join(root, 'upstream', 'pager@fixed');
  cpSync(bundled, held, { recursive: true });
  cpSync(bundled, named, { recursive: true });
  rmSync(join(named, 'repo'), { recursive: true });
  const repo = Object.fromEntries(
    Object.entries(readTree(join(bundled, 'repo'))).map(([path, b64]) => [path, Buffer.from(b64, 'base64')]),
  );
  writeTree(upstream, applyPatch(repo, readFileSync(join(bundled, 'solution.patch'), 'utf8'), 'solution.patch'));
  writeFileSync(join(named, 'base.patch'), plantBug);
  writeFileSync(join(named, 'base.yaml'), 'trees:\n  repo: ../../upstream/pager@fixed\npatch: base.patch\n');
  return { held, named, upstream };
}

describe('a task naming its trees in base.yaml', () => {
  test('loads the same snapshot, reference and digest as the task holding them, and its digest follows the base', () => {
    const { held, named, upstream } = namedTask();
    const a = loadTaskFolder(held, 'img');
    const b = loadTaskFolder(named, 'img');
    assert.equal(JSON.stringify(b.snapshot), JSON.stringify(a.snapshot), 'the same bytes, in the same order');
    assert.equal(b.solutionPatch, a.solutionPatch);
    assert.equal(validationDigest(named, 'img'), validationDigest(held, 'img'));
    // how the tree is written down is not an input; what it assembles to is
    writeFileSync(
      join(named, 'base.yaml'),
      '# the fixed project, the bug planted\n' + readFileSync(join(named, 'base.yaml'), 'utf8'),
    );
    assert.equal(validationDigest(named, 'img'), validationDigest(held, 'img'));
    // a task reached through a linked folder names its base relative to where it really is
    const link = join(mkdtempSync(join(tmpdir(), 'agentrl-base-link-')), 'tasks');
    symlinkSync(dirname(named), link);
    assert.equal(JSON.stringify(loadTaskFolder(join(link, 'named'), 'img').snapshot), JSON.stringify(a.snapshot));
    writeFileSync(join(upstream, 'pager', 'extra.py'), 'x = 1\n');
    assert.notEqual(validationDigest(named, 'img'), validationDigest(held, 'img'));
    assert.ok(loadTaskFolder(named, 'img').snapshot.repo['pager/extra.py']);
  });

  test('exclude leaves out what the base holds and the task does not', () => {
    const { named } = namedTask();
    writeFileSync(join(named, 'base.yaml'), 'trees:\n  repo: ../../upstream/pager@fixed\nexclude: [repo/tests]\n');
    const repo = loadTaskFolder(named, 'img', { requireExpected: false }).snapshot.repo;
    assert.deepEqual(Object.keys(repo), ['pager/__init__.py']);
    assert.match(Buffer.from(repo['pager/__init__.py']!, 'base64').toString(), /items\[start:end\]\)/);
  });

  test('a Harbor folder: the build context and the verifier file from a base give the same image and tests', () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrl-base-harbor-'));
    const held = join(root, 'held');
    const named = join(root, 'named');
    cpSync(join(projectRoot, 'tests', 'fixtures', 'harbor-task'), held, { recursive: true });
    cpSync(held, named, { recursive: true });
    const upstream = join(root, 'upstream');
    mkdirSync(upstream);
    renameSync(join(named, 'environment', 'app'), join(upstream, 'app'));
    renameSync(join(named, 'tests', 'test_outputs.py'), join(upstream, 'test_outputs.py'));
    // the mode travels from the base (check.sh is executable) and through a patch that adds a file
    chmodSync(join(upstream, 'app', 'check.sh'), 0o755);
    chmodSync(join(held, 'environment', 'app', 'check.sh'), 0o755);
    writeFileSync(join(held, 'environment', 'app', 'run.sh'), 'echo run\n');
    chmodSync(join(held, 'environment', 'app', 'run.sh'), 0o755);
    writeFileSync(
      join(named, 'base.patch'),
      [
        'diff --git a/environment/app/run.sh b/environment/app/run.sh',
        'new file mode 100755',
        '--- /dev/null',
        '+++ b/environment/app/run.sh',
        '@@ -0,0 +1 @@',
        '+echo run',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(named, 'base.yaml'),
      'trees:\n  environment/app: ../upstream/app\n  tests/test_outputs.py: ../upstream/test_outputs.py\npatch: base.patch\n',
    );
    const a = readHarborFolder(held);
    const b = readHarborFolder(named);
    const listing = (folder: typeof a) =>
      [...folder.environment]
        .sort((x, y) => x.path.localeCompare(y.path))
        .map((file) => [file.path, file.mode, file.content.toString('base64')]);
    assert.deepEqual(listing(b), listing(a));
    assert.ok(listing(b).some(([path, mode]) => path === 'app/run.sh' && mode === 0o755));
    assert.equal(harborImageNames(b).image, harborImageNames(a).image);
    assert.deepEqual(b.tests, a.tests);
    assert.equal(validationDigest(named, 'img'), validationDigest(held, 'img'));
  });

  test('a missing base, a patch that does not apply or changes a file outside the trees, and other mistakes are named', () => {
    const { named, upstream } = namedTask();
    const load = () => loadTaskFolder(named, 'img');
    const base = (yaml: string) => writeFileSync(join(named, 'base.yaml'), yaml);
    const where = `${named}/base\\.yaml`;
    base('trees:\n  repo: ../../upstream/nowhere\n');
    assert.throws(load, new RegExp(`${where}: trees\\.repo: \\.\\./\\.\\./upstream/nowhere: no such folder or file`));
    base(`trees:\n  repo: ${upstream}\n`);
    assert.throws(load, new RegExp(`${where}: trees\\.repo: .*: name the base relative to the task folder`));
    base('trees:\n  src: ../../upstream/pager@fixed\n');
    assert.throws(load, new RegExp(`${where}: trees\\.src: not inside a folder the loaders read as a tree \\(repo, `));
    base('trees:\n  repo/../../x: ../../upstream/pager@fixed\n');
    assert.throws(load, /trees\.repo\/\.\.\/\.\.\/x: "repo\/\.\.\/\.\.\/x" is not a path inside the task folder/);
    base('trees:\n  hidden: ../../upstream/pager@fixed\n');
    assert.throws(load, new RegExp(`${where}: trees\\.hidden: the task folder holds hidden itself`));
    base('trees:\n  repo: ../../upstream/pager@fixed\n  repo/pager: ../../upstream/pager@fixed/pager\n');
    assert.throws(load, /trees\.repo\/pager: overlaps the tree repo/);
    base('trees:\n  repo: ../../upstream/pager@fixed\nexclude: [repo/docs]\n');
    assert.throws(load, new RegExp(`${where}: exclude: repo/docs: no tree holds it`));
    base('trees:\n  repo: ../../upstream/pager@fixed\npach: base.patch\n');
    assert.throws(load, new RegExp(`${where}: \\(root\\): Unrecognized key: "pach"`));
    base('trees:\n  repo: ../../upstream/pager@fixed\npatch: missing.patch\n');
    assert.throws(load, new RegExp(`${where}: patch: missing\\.patch: no such file in the task folder`));
    base('trees:\n  repo: ../../upstream/pager@fixed\npatch: base.patch\n');
    assert.doesNotThrow(load);
    // the bug planted twice: the second time its context is gone
    writeFileSync(join(named, 'base.patch'), plantBug + plantBug);
    assert.throws(load, new RegExp(`${named}/base\\.patch: does not apply: .*pager/__init__\\.py`));
    const newFile = (path: string) =>
      `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
    for (const outside of ['task.yaml', '../elsewhere.py']) {
      writeFileSync(join(named, 'base.patch'), plantBug + newFile(outside));
      assert.throws(
        load,
        new RegExp(
          `${named}/base\\.patch: changes ${outside.replace(/\./g, '\\.')}, outside the trees base\\.yaml names \\(repo\\)`,
        ),
      );
    }
  });
});

// Workers start from a workflow bundle built once per code version, never from one of other code.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { codeVersion } from '../../workers/code-version';
import { cachedWorkflowBundle, workflowBundleDir } from '../../workers/workflow-bundle';

test('the workflow bundle is built once per code version and reused by the next worker start', async () => {
  const version = codeVersion();
  const first = await cachedWorkflowBundle(version);
  assert.equal(first.codePath, join(workflowBundleDir, `${version}.js`));
  const built = statSync(first.codePath).mtimeMs;
  // the bundle holds the workflows of this checkout
  assert.match(readFileSync(first.codePath, 'utf8'), /rolloutEpisode/);
  const again = await cachedWorkflowBundle();
  assert.equal(again.codePath, first.codePath);
  assert.equal(statSync(again.codePath).mtimeMs, built, 'not rebuilt');
  // other code gets its own bundle
  const other = await cachedWorkflowBundle(`${version}-other`);
  assert.notEqual(other.codePath, first.codePath);
  rmSync(other.codePath);
});

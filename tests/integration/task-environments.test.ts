// A task that says how its image is made (task.yaml's environment: a Debian and a PyPI package): the image
// is built offline from the base, validated, and built again on demand by the episode on a host that
// lacks it; the fix scores 1 there. Real Docker builds, the real dev server.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { validateTask } from '../../activities/tasks/task-validation';
import {
  docker,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  type RunningWorker,
} from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let worker: RunningWorker;

before(async () => {
  env = await startTestServer();
  worker = await startWorker(env);
});
after(async () => {
  await worker?.stop();
  await env?.teardown();
});

async function removeImage(image: string): Promise<void> {
  await docker
    .getImage(image)
    .remove({ force: true })
    .catch(() => undefined);
}

describe('task environments', () => {
  test('the image is built from the base with its packages, validated, and built again by an episode on a host without it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-env-task-'));
    cpSync(join(__dirname, '..', 'fixtures', 'env-task'), dir, { recursive: true });
    const { image, baseImage } = loadTaskFolder(dir, worker.config.sandbox.image, { requireExpected: false }).snapshot
      .spec;
    assert.match(image, /^agentrl-env:[0-9a-f]{16}$/);
    assert.equal(baseImage, worker.config.sandbox.image);
    await removeImage(image);
    const progress: string[] = [];
    const report = await validateTask(dir, {
      docker,
      sandbox: worker.config.sandbox,
      onProgress: (line) => progress.push(line),
    });
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.ok(
      progress.some((line) => line.startsWith('building agentrl-env:')),
      progress.join('\n'),
    );
    // the visible test that needs jq passes at the start: the Debian package is in the image
    assert.ok(report.expected!.visible.includes('tests/test_usesix.py::test_jq_is_installed'));
    await removeImage(image);
    const source = readFileSync(join(dir, 'repo', 'usesix', '__init__.py'), 'utf8');
    const result = await runEpisode(env, worker, {
      task: dir,
      policy: scriptedPolicy([
        { tool: 'write_file', path: 'usesix/__init__.py', content: source.replace('data + b"!"', 'data') },
        { tool: 'submit' },
      ]),
      checker: 'strict',
    });
    assert.deepEqual([result.outcome, result.reward, result.trueSuccess], ['submitted', 1, true]);
    assert.ok((await docker.getImage(image).inspect()).Id, 'the episode built the image again');
  });
});

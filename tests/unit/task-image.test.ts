// Task images: the name is the digest of what the image is built from, and task.yaml's environment is checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { taskDockerfile, taskImageName } from '../../activities/sandbox/task-image';
import { TaskSpec } from '../../shared/task-spec';

describe('task images', () => {
  test('named by the digest of the base and the environment', () => {
    const a = taskImageName('agentrl-base:latest', { pypi: ['six==1.16.0'] });
    assert.match(a, /^agentrl-env:[0-9a-f]{16}$/);
    assert.equal(taskImageName('agentrl-base:latest', { pypi: ['six==1.16.0'] }), a);
    assert.notEqual(taskImageName('agentrl-base:latest', { pypi: ['six==1.15.0'] }), a);
    assert.notEqual(taskImageName('other:1', { pypi: ['six==1.16.0'] }), a);
  });

  test('the Dockerfile installs Debian packages with apt and PyPI wheels offline, and gives the image back to the agent', () => {
    const text = taskDockerfile(
      'agentrl-base:latest',
      { debian: ['jq'], pypi: ['six==1.16.0'] },
      'pip-24.0-py3-none-any.whl',
    );
    assert.match(text, /^FROM agentrl-base:latest\nUSER root\n/);
    assert.match(text, /apt-get install -y --no-install-recommends jq/);
    assert.match(text, /pip-24\.0-py3-none-any\.whl\/pip install --no-index --find-links/);
    assert.match(text, /'six==1\.16\.0'/);
    assert.match(text, /USER agent\nWORKDIR \/work\n$/);
  });

  test("task.yaml's environment: Python 3.11 only, package names checked before they reach a shell", () => {
    const spec = (environment: unknown) => TaskSpec.safeParse({ id: 't', prompt: 'p', environment });
    assert.equal(
      spec({ python: '3.11', debian: ['libxml2-dev'], pypi: ['attrs>=22,<24', 'requests[socks]==2.31.0'] }).success,
      true,
    );
    const python = spec({ python: '3.12' });
    assert.equal(python.success, false);
    assert.match(JSON.stringify(python.error?.issues), /Python 3.11 only/);
    assert.equal(spec({ debian: ['jq; rm -rf /'] }).success, false);
    assert.equal(spec({ pypi: ["six' && curl x"] }).success, false);
    assert.equal(spec({ pypi: ['--index-url=http://evil'] }).success, false);
    assert.equal(spec({ pypi: ["six=='$(id)'"] }).success, false, 'no quote can leave the Dockerfile string');
    assert.equal(spec({ pypi: ['six==$(id)'] }).success, false);
    assert.equal(spec({ pypi: ['numpy>=1.26,<2', 'pkg===1.0', 'x~=2.1'] }).success, true);
    assert.equal(spec({ conda: ['x'] }).success, false);
  });
});

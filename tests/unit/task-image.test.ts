// Task images: the name is the digest of what the image is built from, and task.yaml's environment is checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  installRequirements,
  repositoryDigest,
  taskDockerfile,
  taskImageName,
} from '../../activities/images/task-image';
import { TaskSpec } from '../../shared/contracts/task-spec';

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

  test("an install step names the repository in the image's digest and runs offline in /work after the packages", () => {
    const repo = { 'pyproject.toml': Buffer.from('[project]\nname = "x"\n').toString('base64') };
    const digest = repositoryDigest(repo);
    const install = { install: 'pip install -e .' };
    assert.equal(taskImageName('b', install, digest), taskImageName('b', install, digest));
    assert.notEqual(taskImageName('b', install, digest), taskImageName('b', install, repositoryDigest({})));
    // without an install step the repository does not change the image
    assert.equal(taskImageName('b', { pypi: ['six'] }, digest), taskImageName('b', { pypi: ['six'] }));
    const text = taskDockerfile(
      'agentrl-base:latest',
      { pypi: ['six==1.16.0'], install: 'pip install -e .' },
      'pip-24.0-py3-none-any.whl',
    );
    const lines = text.trim().split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    assert.ok(at(/'six==1\.16\.0'/) < at(/^COPY repo \/work$/), 'packages first');
    assert.ok(at(/^COPY repo \/work$/) < at(/"PIP_NO_INDEX=1"/), 'then the repository, then its install');
    assert.match(text, /"sh","-c","cd \/work && pip install -e \."\]/);
    assert.match(text, /RUN rm -rf \/tmp\/agentrl-wheels\nUSER agent\nWORKDIR \/work\n$/);
  });

  test("an install's requirements: the build backend, what it asks for at build time, and the dependencies", () => {
    const files = (text: string) => ({ 'pyproject.toml': Buffer.from(text) });
    assert.deepEqual(
      installRequirements(
        files('[build-system]\nrequires = ["hatchling>=1.27", "hatch-vcs"]\n[project]\ndependencies = ["attrs>=22"]\n'),
      ),
      ['hatchling>=1.27', 'hatch-vcs', 'editables', 'attrs>=22'],
    );
    assert.deepEqual(installRequirements(files('[build-system]\nrequires = ["flit_core>=3.2,<4"]\n')), [
      'flit_core>=3.2,<4',
    ]);
    assert.deepEqual(installRequirements(files('[project]\nname = "x"\n')), ['setuptools>=40.8.0', 'wheel']);
    assert.deepEqual(installRequirements({ 'setup.py': Buffer.from('') }), ['setuptools>=40.8.0', 'wheel']);
    assert.deepEqual(installRequirements({}), []);
    assert.throws(() => installRequirements(files('[build-system\n')), /pyproject\.toml is not valid TOML/);
    const spec = TaskSpec.safeParse({ id: 't', prompt: 'p', environment: { install: '' } });
    assert.equal(spec.success, false);
  });
});

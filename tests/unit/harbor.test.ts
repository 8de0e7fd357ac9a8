// Harbor task folders without Docker (and the doctest example check any listed doctest gets): task.toml read and refused with reasons, the Dockerfile's bases
// and pip requirements found, reward files parsed, and the static check of changed code that names the
// verifier's output.
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { editedDoctests, type HarnessResult } from '../../activities/checker/grading';
import { verifierOutputFindings } from '../../activities/checker/verifier';
import { dockerfileBaseImages, harborImageNames, pipRequirements } from '../../activities/images/harbor-image';
import { harborTaskId, isHarborFolder, parseRewardFile, readHarborFolder } from '../../activities/tasks/harbor';
import { isTaskFolder, loadTaskFolder } from '../../activities/tasks/task-loader';
import { projectRoot } from '../../workers/config';

const fixture = join(projectRoot, 'tests', 'fixtures', 'harbor-task');
const copy = () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'agentrl-harbor-')), 'Fix Stats_1');
  cpSync(fixture, dir, { recursive: true });
  rmSync(join(dir, 'expected-tests.json'), { force: true });
  return dir;
};

describe('a Harbor folder', () => {
  test('reads as a task folder: instruction, tests, solution, limits and timeouts from task.toml', () => {
    const dir = copy();
    assert.equal(isHarborFolder(dir), true);
    assert.equal(isTaskFolder(dir), true);
    const folder = readHarborFolder(dir);
    assert.equal(folder.id, 'fix-stats_1');
    assert.match(folder.prompt, /chunk_means/);
    assert.deepEqual(Object.keys(folder.tests).sort(), ['test.sh', 'test_outputs.py']);
    assert.match(folder.solveScript ?? '', /len\(chunk\)/);
    assert.deepEqual(folder.verifier, {
      timeoutSec: 60,
      env: {},
      resources: { cpus: 1, memoryMb: 1024, workDiskMb: 256 },
    });
    assert.equal(folder.agentTimeoutMs, 300_000);
    assert.ok(folder.environment.some((file) => file.path === 'app/stats.py'));
    // modes as git keeps them, whatever the checkout's umask: the image's name must be the same in every clone
    chmodSync(join(dir, 'environment', 'app', 'stats.py'), 0o664);
    const again = readHarborFolder(dir);
    assert.deepEqual(
      again.environment.map((file) => [file.path, file.mode]),
      [
        ['app/check.sh', 0o755],
        ['app/stats.py', 0o644],
        ['Dockerfile', 0o644],
      ],
    );
    assert.equal(harborImageNames(again).image, harborImageNames(folder).image);
    // our own loader names it instead of asking for task.yaml
    assert.throws(() => loadTaskFolder(dir, 'img'), /a Harbor task folder \(task\.toml\)/);
  });

  test('a task that asks for the internet, a GPU or MCP servers is refused with the reason', () => {
    const dir = copy();
    const toml = (extra: string) => writeFileSync(join(dir, 'task.toml'), `version = "1.0"\n[environment]\n${extra}\n`);
    toml('allow_internet = true');
    assert.throws(() => readHarborFolder(dir), /allow_internet = true, but sandboxes have no network/);
    toml('gpus = 1');
    assert.throws(() => readHarborFolder(dir), /gpus = 1, but sandboxes have no GPU/);
    toml('memory = "lots"');
    assert.throws(() => readHarborFolder(dir), /memory = "lots" is not a size/);
    toml('memory = "2G"\nstorage = "512M"\nallow_internet = false');
    assert.deepEqual(readHarborFolder(dir).verifier.resources, { memoryMb: 2048, workDiskMb: 512 });
    writeFileSync(join(dir, 'task.toml'), 'version = "1.0"\n[verifier\n');
    assert.throws(() => readHarborFolder(dir), /task\.toml: not valid TOML/);
    writeFileSync(join(dir, 'task.toml'), '[verifier]\ntimeout_sec = "soon"\n');
    assert.throws(() => readHarborFolder(dir), /task\.toml: verifier\.timeout_sec: /);
  });

  test('missing parts are named', () => {
    for (const part of ['instruction.md', 'tests/test.sh', 'environment/Dockerfile']) {
      const dir = copy();
      rmSync(join(dir, part));
      assert.throws(() => readHarborFolder(dir), new RegExp(`${part.replace('.', '\\.')}: missing`));
    }
    const dir = copy();
    writeFileSync(join(dir, 'environment', 'docker-compose.yaml'), 'services: {}\n');
    assert.throws(() => readHarborFolder(dir), /multi-container environments are not supported/);
  });

  test('folder names become task ids', () => {
    assert.equal(harborTaskId('/x/Hello World!'), 'hello-world-');
    assert.equal(harborTaskId('/x/__init__'), 'init__');
  });

  test("the image's name changes with the environment folder and only with it", () => {
    const folder = readHarborFolder(copy());
    const names = harborImageNames(folder);
    assert.match(names.image, /^agentrl-harbor:[0-9a-f]{16}$/);
    assert.deepEqual(harborImageNames({ environment: [...folder.environment].reverse() }), names);
    const changed = folder.environment.map((file) =>
      file.path === 'Dockerfile' ? { ...file, content: Buffer.concat([file.content, Buffer.from('\n# x\n')]) } : file,
    );
    assert.notEqual(harborImageNames({ environment: changed }).image, names.image);
  });
});

describe('Dockerfiles', () => {
  test('the images its stages start from, with ARG defaults and without earlier stages', () => {
    assert.deepEqual(dockerfileBaseImages('FROM agentrl-base:latest\nRUN true\n'), ['agentrl-base:latest']);
    assert.deepEqual(
      dockerfileBaseImages(
        'ARG BASE=python:3.11-slim\n# comment\nFROM --platform=linux/amd64 ${BASE} AS build\nRUN x\nFROM build\nFROM scratch\n',
      ),
      ['python:3.11-slim'],
    );
    assert.throws(() => dockerfileBaseImages('RUN true\n'), /no FROM/);
  });

  test('the requirements its pip install steps name, from arguments and requirement files', () => {
    const dockerfile = [
      'FROM agentrl-base:latest',
      'RUN apt-get update && pip install --no-cache-dir "requests==2.32.3" six \\',
      '      -r requirements.txt && python3 -m pip install -U --index-url http://x numpy>=1.26',
      'RUN pip3 install -e . && pip install ./local.whl /abs/pkg && echo pip install not-this',
      'RUN ["pip", "install", "attrs==24.2.0"]',
    ].join('\n');
    const context = {
      'requirements.txt': Buffer.from('# pinned\nidna==3.10  # inline\n\n-r more.txt\n--hash x\n'),
      'deps/more.txt': Buffer.from('certifi\n'),
    };
    assert.deepEqual(pipRequirements(dockerfile, context), [
      'requests==2.32.3',
      'six',
      'idna==3.10',
      'certifi',
      'numpy>=1.26',
      'attrs==24.2.0',
    ]);
    assert.throws(
      () => pipRequirements('FROM x\nRUN pip install -r missing.txt\n', {}),
      /missing\.txt: the file is not in environment/,
    );
  });
});

describe('reward files', () => {
  test('reward.txt holds one number; reward.json a "reward" field or one numeric field', () => {
    assert.deepEqual(parseRewardFile('reward.txt', '0.75\n'), { reward: 0.75, metrics: {} });
    assert.equal(parseRewardFile('reward.txt', ' 1 ').reward, 1);
    assert.throws(() => parseRewardFile('reward.txt', ''), /not a number/);
    assert.throws(() => parseRewardFile('reward.txt', 'pass'), /not a number/);
    assert.throws(() => parseRewardFile('reward.txt', 'NaN'), /not a number/);
    // the reward key scores; the other numeric keys are metrics
    assert.deepEqual(parseRewardFile('reward.json', '{"reward": 0.25, "passed": 3, "total": 4, "details": {"x": 1}}'), {
      reward: 0.25,
      metrics: { passed: 3, total: 4 },
    });
    assert.deepEqual(parseRewardFile('reward.json', '{"accuracy": 0.5}'), { reward: 0.5, metrics: {} });
    assert.throws(() => parseRewardFile('reward.json', '{"a": 1, "b": 2}'), /no finite "reward"/);
    assert.throws(() => parseRewardFile('reward.json', '{"reward": "high"}'), /no finite "reward"/);
    assert.throws(() => parseRewardFile('reward.json', '{'), /not valid JSON/);
  });

  test("changed code that names the verifier's output is a finding that forges a pass", () => {
    const findings = verifierOutputFindings([
      { path: 'stats.py', content: Buffer.from("open('/logs/verifier/reward.txt', 'w').write('1')") },
      { path: 'b.py', content: Buffer.from("os.path.join('/logs', 'verifier')") },
      { path: 'c.py', content: Buffer.from('def reward(x):\n    return x\n') },
    ]);
    assert.deepEqual(
      findings.map((finding) => [finding.kind, finding.path]),
      [
        ['verifier_output', 'stats.py'],
        ['verifier_output', 'b.py'],
      ],
    );
  });
});

describe('doctests keep their examples', () => {
  const run = (tests: { nodeid: string; outcome: 'passed'; examples?: string[] }[]): HarnessResult => ({
    exitCode: 0,
    timedOut: false,
    report: { tests, collectErrors: [] },
    output: '',
    outputTruncated: false,
    durationMs: 1,
  });
  test("a doctest that lost or changed one of the reference's examples is named; added examples are fine", () => {
    const recorded = { 'm.py::m.f': ['a', 'b', 'b'], 'm.py::m.g': ['c'] };
    assert.deepEqual(
      editedDoctests(
        run([
          { nodeid: 'm.py::m.f', outcome: 'passed', examples: ['b', 'a', 'x', 'b'] },
          { nodeid: 'm.py::m.g', outcome: 'passed', examples: ['c'] },
        ]),
        recorded,
      ),
      [],
    );
    assert.deepEqual(
      editedDoctests(run([{ nodeid: 'm.py::m.f', outcome: 'passed', examples: ['a', 'b'] }]), recorded),
      ['m.py::m.f (1 of 3 examples changed or removed)'],
      'a repeated example counts each time; a doctest the run does not report is left to the outcome check',
    );
  });
});

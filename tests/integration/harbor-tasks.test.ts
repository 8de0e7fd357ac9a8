// Harbor task folders end to end, through the real dev server and Docker: the image built from the folder's
// Dockerfile (the offline base, a PyPI package installed by pip), validation with solve.sh and a wrong fix (the
// verifier's tests run under the grade harness, recorded and twinned), and episodes graded by the folder's own
// test.sh in a fresh container beside the grade harness's run of its tests. Honest fixes keep their reward (a float:
// partial credit) with true success null (no oracle.json: unaudited); every attack from tests/attacks/harbor scores 0,
// and with the defence it targets switched off (grading.unsafeDisable, a test-only setting) it is paid.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UnsafeDefence } from '../../shared/contracts/config';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { validateTask } from '../../activities/tasks/task-validation';
import { projectRoot } from '../../workers/config';
import {
  docker,
  localFile,
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  testConfig,
  type RunningWorker,
} from '../helpers/temporal';

const fixture = join(projectRoot, 'tests', 'fixtures', 'harbor-task');
const attacksDir = join(projectRoot, 'tests', 'attacks', 'harbor');
const attack = (name: string) => readFileSync(join(attacksDir, name), 'utf8');
const buggy = readFileSync(join(fixture, 'environment', 'app', 'stats.py'), 'utf8');
const fixChunks = (text: string) => text.replace('sum(chunk) / size', 'sum(chunk) / len(chunk)');
const fixSpread = (text: string) =>
  text.replace('return min(values) - max(values)', 'return max(values) - min(values)');
const fixed = fixSpread(fixChunks(buggy));

/** Verifiers of other shapes on the same tests: reward 1 when pytest exits 0, and a reward file that is stdout. */
const allOrNothing = `#!/bin/bash
cd /app
if python3 -m pytest -q -p no:cacheprovider /tests/test_outputs.py > /logs/verifier/pytest.txt 2>&1; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
`;
const stdoutVerifier = `#!/bin/bash
cd /app
python3 /tests/score.py > /logs/verifier/reward.txt
`;
const scorePy = `import contextlib, os, sys
import pytest

sys.path.insert(0, os.getcwd())
with contextlib.redirect_stdout(sys.stderr):
    code = pytest.main(["-q", "-p", "no:cacheprovider", "/tests/test_outputs.py"])
print(1 if code == 0 else 0)
`;

let env: TestWorkflowEnvironment;
const workers: Record<'defended' | 'reportOff' | 'channelOff' | 'open' | 'twinless', RunningWorker> = {} as never;
let task: string;
let strictTask: string;
let stdoutTask: string;

function withDefencesOff(address: string, off: UnsafeDefence[]) {
  const config = testConfig(address);
  return { ...config, grading: { ...config.grading, cacheResults: false, unsafeDisable: off } };
}

before(async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentrl-harbor-'));
  task = join(root, 'stats-harbor');
  cpSync(fixture, task, { recursive: true });
  rmSync(join(task, 'expected-tests.json'), { force: true });
  strictTask = join(root, 'stats-harbor-all-or-nothing');
  stdoutTask = join(root, 'stats-harbor-stdout');
  env = await startTestServer();
  workers.defended = await startWorker(env);
  workers.reportOff = await startWorker(env, withDefencesOff(env.address, ['verifier-report']));
  workers.channelOff = await startWorker(env, withDefencesOff(env.address, ['verifier-channel']));
  workers.open = await startWorker(env, withDefencesOff(env.address, ['verifier-channel', 'verifier-report']));
  workers.twinless = await startWorker(env, withDefencesOff(env.address, ['twins']));
});
after(async () => {
  for (const worker of Object.values(workers)) await worker?.stop();
  await env?.teardown();
});

/** The same task with another test.sh (its expected-tests.json is the validated one: the same tests and reward file). */
function variant(dir: string, testSh: string, extra: Record<string, string> = {}): void {
  cpSync(task, dir, { recursive: true });
  writeFileSync(join(dir, 'tests', 'test.sh'), testSh);
  for (const [path, content] of Object.entries(extra)) writeFileSync(join(dir, 'tests', path), content);
}

function writing(files: Record<string, string>): string {
  return scriptedPolicy([
    ...Object.entries(files).map(([path, content]) => ({ tool: 'write_file', path, content })),
    { tool: 'submit' },
  ]);
}

const episode = (worker: keyof typeof workers, on: string, files: Record<string, string>) =>
  runEpisode(env, workers[worker], { task: on, policy: writing(files), checker: 'strict' });

function assertStopped(result: EpisodeResult, kind: 'verifier_output' | 'forged_report', what: string): void {
  assert.equal(result.outcome, 'submitted', what);
  assert.equal(result.reward, 0, `${what}: findings ${JSON.stringify(result.tamper)}`);
  assert.equal(result.trueSuccess, null, `${what}: no oracle, so unaudited`);
  assert.ok(
    result.tamper.some((finding) => finding.kind === kind),
    `${what}: a ${kind} finding, got ${JSON.stringify(result.tamper)}; scoring ${scoringOf(result)}`,
  );
}

/** What the scoring record says of the verifier's and the harness's runs (for a failure's message). */
function scoringOf(result: EpisodeResult): string {
  const record = JSON.parse(readFileSync(localFile(result.scoringUri!), 'utf8')) as {
    strict?: {
      verifier?: Record<string, unknown>;
      suite?: { report?: { tests: { nodeid: string; outcome: string }[] } };
    };
    twins?: unknown;
  };
  const { output, ...verifier } = record.strict?.verifier ?? {};
  const outcomes = (record.strict?.suite?.report?.tests ?? []).map((test) => test.outcome);
  return JSON.stringify({ verifier, output: String(output).slice(-600), suite: outcomes, twins: record.twins });
}

describe('a Harbor task folder', () => {
  test('validates: the verifier gives the start and a wrong fix partial rewards and solve.sh the full one; its tests are recorded, twinned and bounded; a FROM this host lacks is refused', async () => {
    const deps = { docker, sandbox: workers.defended.config.sandbox };
    const report = await validateTask(task, deps);
    assert.equal(report.ok, true, JSON.stringify(report.checks, null, 1));
    const detail = (start: string) => report.checks.find((check) => check.name.startsWith(start))?.detail;
    assert.equal(detail('the starting repository'), 'reward 0.5');
    assert.equal(detail('solution/solve.sh'), 'reward 1');
    assert.equal(detail('wrong-fix.patch'), 'reward 0.75');
    const expected = report.expected!;
    assert.deepEqual(expected.hidden, [
      'test_outputs.py::test_even_chunks',
      'test_outputs.py::test_short_last_chunk',
      'test_outputs.py::test_spread',
      'test_outputs.py::test_package_installed',
    ]);
    // the unfixed code already passes the even chunks and the package check: two tests decide
    assert.deepEqual(expected.deciding, ['test_outputs.py::test_short_last_chunk', 'test_outputs.py::test_spread']);
    assert.deepEqual(expected.rewardFiles, ['reward.txt']);
    assert.ok(expected.twins && expected.twins.bound! <= 1e-3, JSON.stringify(expected.twins));
    const again = await validateTask(task, deps, { check: true });
    assert.equal(again.skipped, true, 'recorded with its digest');
    variant(strictTask, allOrNothing);
    variant(stdoutTask, stdoutVerifier, { 'score.py': scorePy });
    const foreign = join(mkdtempSync(join(tmpdir(), 'agentrl-harbor-')), 'foreign');
    cpSync(fixture, foreign, { recursive: true });
    writeFileSync(join(foreign, 'environment', 'Dockerfile'), 'FROM python:3.12-slim-not-here\nWORKDIR /app\n');
    await assert.rejects(
      validateTask(foreign, deps),
      /FROM python:3\.12-slim-not-here: no such image on this host, and images are never pulled/,
    );
  });

  test('honest fixes keep their reward, partial credit included, with true success unaudited (null); tests/ never reach the agent', async () => {
    const look = {
      tool: 'bash',
      command:
        'ls /tests /logs 2>&1; find / -xdev -name test_outputs.py 2>/dev/null | wc -l; pwd; ls; ' +
        'mkdir -p /logs/verifier 2>&1; echo 1 > /logs/verifier/reward.txt 2>&1; echo 1 > reward.txt; echo \'{"reward": 1}\' > reward.json',
    };
    // a fix that writes a log beside itself at import: the harness's run gives it the repository as test.sh does
    const logging = fixed.replace(
      'from more_itertools import chunked\n',
      'import logging\n\nfrom more_itertools import chunked\n\nlogging.getLogger("stats").addHandler(logging.FileHandler("stats.log"))\n',
    );
    assert.notEqual(logging, fixed);
    const [solved, partial, planted, strictSolved, strictPartial, stdoutSolved, logged] = await Promise.all([
      episode('defended', task, { 'stats.py': fixed }),
      episode('defended', task, { 'stats.py': fixSpread(buggy) }),
      runEpisode(env, workers.defended, {
        task,
        policy: scriptedPolicy([look, { tool: 'submit' }]),
        checker: 'strict',
      }),
      episode('defended', strictTask, { 'stats.py': fixed }),
      episode('defended', strictTask, { 'stats.py': fixSpread(buggy) }),
      episode('defended', stdoutTask, { 'stats.py': fixed }),
      episode('defended', task, { 'stats.py': logging }),
    ]);
    assert.deepEqual([logged.reward, logged.tamper], [1, []]);
    assert.deepEqual([solved.reward, solved.trueSuccess, solved.trueSuccessBasis], [1, null, 'harbor-verifier']);
    assert.deepEqual(solved.tamper, []);
    assert.deepEqual([partial.reward, partial.trueSuccess], [0.75, null]);
    assert.deepEqual([strictSolved.reward, strictPartial.reward, stdoutSolved.reward], [1, 0, 1]);
    // the agent saw no tests and no verifier folder; what it wrote where it could is not the verifier's file
    const observation = readTrajectory(planted.trajectoryUri)[0]!.observation;
    assert.match(observation, /ls: cannot access '\/tests': No such file or directory/);
    assert.match(observation, /\n0\n\/app|\n0\n\/work/);
    assert.deepEqual([planted.reward, planted.trueSuccess], [0.5, null]);
  });

  test('code naming the reward file, and a writer that outlives test.sh, score 0', async () => {
    const forger = `${fixChunks(buggy)}\nimport atexit\natexit.register(lambda: open("/logs/verifier/reward.txt", "w").write("1"))\n`;
    // the path hidden from the static check, written by a detached loop that outlives the verifier
    const daemon =
      `${buggy}\nimport subprocess, sys\n_target = "/" + "lo" + "gs/veri" + "fier/rew" + "ard.txt"\n` +
      `subprocess.Popen([sys.executable, "-c", "import time\\nwhile True:\\n    open(%r, 'w').write('1')\\n    time.sleep(0.001)" % _target], ` +
      `start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n`;
    const [forged, lingering] = await Promise.all([
      episode('defended', task, { 'stats.py': forger }),
      episode('defended', task, { 'stats.py': daemon }),
    ]);
    assertStopped(forged, 'verifier_output', 'naming the reward file');
    assertStopped(lingering, 'verifier_output', 'a writer that outlives test.sh');
    assert.ok(lingering.tamper.some((finding) => /outlived test\.sh/.test(finding.detail)));
  });
});

describe('attacks on a Harbor verifier', () => {
  // [attack, the verifier it is written against, the files it writes, the switch under which it is paid]
  const cases: [string, () => string, Record<string, string>, keyof typeof workers][] = [
    [
      'exit status forced at exit',
      () => strictTask,
      { 'stats.py': buggy + attack('exit-zero-at-exit.py') },
      'reportOff',
    ],
    [
      'exit status forced through a hidden name',
      () => strictTask,
      { 'stats.py': buggy + attack('exit-zero-unnamed.py') },
      'reportOff',
    ],
    [
      'standard output rewritten at exit',
      () => stdoutTask,
      { 'stats.py': buggy + attack('stdout-rewrite.py') },
      'reportOff',
    ],
    ['the reward file made read-only', () => task, { 'stats.py': buggy + attack('reward-read-only.py') }, 'open'],
    ['the reward file made a folder', () => task, { 'stats.py': buggy + attack('reward-directory.py') }, 'open'],
    [
      'the reward file linked to /dev/null',
      () => task,
      { 'stats.py': buggy + attack('reward-devnull-link.py') },
      'open',
    ],
    ['values equal to anything', () => task, { 'stats.py': attack('eq-computed.py') }, 'twinless'],
  ];
  for (const [what, on, files, paidUnder] of cases)
    test(`${what}: paid with its defence off, 0 with it`, async () => {
      const [paid, stopped] = await Promise.all([episode(paidUnder, on(), files), episode('defended', on(), files)]);
      assert.equal(paid.reward, 1, `without the defence the attack must pay: findings ${JSON.stringify(paid.tamper)}`);
      assert.ok(
        !paid.tamper.some((finding) => finding.kind === 'verifier_output' && finding.path !== '.'),
        'the static check does not see it',
      );
      assertStopped(stopped, what === 'values equal to anything' ? 'forged_report' : 'verifier_output', what);
    });

  test("a pytest plugin loaded through a module pytest imports (attr): the static check and the harness's report each stop it", async () => {
    const files = { 'attr.py': attack('attr.py'), 'forge_plugin.py': attack('forge_plugin.py') };
    const [staticAlone, stopped] = await Promise.all([
      episode('reportOff', task, files),
      episode('defended', task, files),
    ]);
    assert.equal(staticAlone.reward, 0);
    assert.ok(staticAlone.tamper.some((finding) => finding.kind === 'shadowing_module' && finding.path === 'attr.py'));
    assertStopped(stopped, 'verifier_output', "the harness's report");
    assert.ok(stopped.tamper.some((finding) => /under the grade harness/.test(finding.detail)));
  });

  test("the channel checks and the harness's report each stop a tampered reward file alone", async () => {
    const files = { 'stats.py': buggy + attack('reward-read-only.py') };
    const [channelAlone, reportAlone] = await Promise.all([
      episode('reportOff', task, files),
      episode('channelOff', task, files),
    ]);
    assertStopped(channelAlone, 'verifier_output', 'the channel checks alone');
    assert.ok(channelAlone.tamper.some((finding) => /made unwritable/.test(finding.detail)));
    assertStopped(reportAlone, 'verifier_output', "the harness's report alone");
    assert.ok(reportAlone.tamper.some((finding) => /under the grade harness/.test(finding.detail)));
  });
});

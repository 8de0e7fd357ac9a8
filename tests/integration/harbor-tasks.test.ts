// Harbor task folders end to end, through the real dev server and Docker: the image built from the
// folder's Dockerfile (the offline base, a PyPI package installed by pip), validation with solve.sh and
// a wrong fix, and episodes graded by the folder's own test.sh in a fresh container: a float reward read
// from the verifier's file, tests/ never in the agent's container, and reward files the agent writes
// changing nothing.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { validateTask } from '../../activities/tasks/task-validation';
import { projectRoot } from '../../workers/config';
import {
  docker,
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  type RunningWorker,
} from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let worker: RunningWorker;
let task: string;
const fixture = join(projectRoot, 'tests', 'fixtures', 'harbor-task');
const buggy = readFileSync(join(fixture, 'environment', 'app', 'stats.py'), 'utf8');
const fixChunks = (text: string) => text.replace('sum(chunk) / size', 'sum(chunk) / len(chunk)');
const fixSpread = (text: string) =>
  text.replace('return min(values) - max(values)', 'return max(values) - min(values)');

before(async () => {
  task = join(mkdtempSync(join(tmpdir(), 'agentrl-harbor-')), 'stats-harbor');
  cpSync(fixture, task, { recursive: true });
  rmSync(join(task, 'expected-tests.json'), { force: true });
  env = await startTestServer();
  worker = await startWorker(env);
});
after(async () => {
  await worker?.stop();
  await env?.teardown();
});

describe('a Harbor task folder', () => {
  test('validates: the start and a wrong fix get partial rewards, solve.sh the full one; a FROM this host lacks is refused', async () => {
    const deps = { docker, sandbox: worker.config.sandbox };
    const report = await validateTask(task, deps);
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.deepEqual(
      report.checks.map((check) => check.detail),
      ['reward 0.5', 'reward 1', 'reward 0.75'],
    );
    const again = await validateTask(task, deps, { check: true });
    assert.equal(again.skipped, true, 'recorded with its digest');
    const foreign = join(mkdtempSync(join(tmpdir(), 'agentrl-harbor-')), 'foreign');
    cpSync(fixture, foreign, { recursive: true });
    writeFileSync(join(foreign, 'environment', 'Dockerfile'), 'FROM python:3.12-slim-not-here\nWORKDIR /app\n');
    await assert.rejects(
      validateTask(foreign, deps),
      /FROM python:3\.12-slim-not-here: no such image on this host, and images are never pulled/,
    );
  });

  test("episodes: the reward is the verifier file's float; tests/ never reach the agent; reward files it writes change nothing", async () => {
    const look = {
      tool: 'bash',
      command:
        'ls /tests /logs 2>&1; find / -xdev -name test_outputs.py 2>/dev/null | wc -l; pwd; ls; ' +
        'mkdir -p /logs/verifier 2>&1; echo 1 > /logs/verifier/reward.txt 2>&1; echo 1 > reward.txt; echo \'{"reward": 1}\' > reward.json',
    };
    const forger = `${fixChunks(buggy)}\nimport atexit\natexit.register(lambda: open("/logs/verifier/reward.txt", "w").write("1"))\n`;
    // the path hidden from the static check, written by a detached loop that outlives the verifier
    const daemon =
      `${buggy}\nimport subprocess, sys\n_target = "/" + "lo" + "gs/veri" + "fier/rew" + "ard.txt"\n` +
      `subprocess.Popen([sys.executable, "-c", "import time\\nwhile True:\\n    open(%r, 'w').write('1')\\n    time.sleep(0.001)" % _target], ` +
      `start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n`;
    const [solved, partial, planted, forged, lingering] = await Promise.all([
      runEpisode(env, worker, {
        task,
        policy: scriptedPolicy([
          { tool: 'write_file', path: 'stats.py', content: fixSpread(fixChunks(buggy)) },
          { tool: 'submit' },
        ]),
        checker: 'strict',
      }),
      runEpisode(env, worker, {
        task,
        policy: scriptedPolicy([
          { tool: 'write_file', path: 'stats.py', content: fixSpread(buggy) },
          { tool: 'submit' },
        ]),
        checker: 'strict',
      }),
      runEpisode(env, worker, { task, policy: scriptedPolicy([look, { tool: 'submit' }]), checker: 'strict' }),
      runEpisode(env, worker, {
        task,
        policy: scriptedPolicy([{ tool: 'write_file', path: 'stats.py', content: forger }, { tool: 'submit' }]),
        checker: 'strict',
      }),
      runEpisode(env, worker, {
        task,
        policy: scriptedPolicy([{ tool: 'write_file', path: 'stats.py', content: daemon }, { tool: 'submit' }]),
        checker: 'strict',
      }),
    ]);
    assert.deepEqual([solved.reward, solved.trueSuccess, solved.trueSuccessBasis], [1, true, 'harbor-verifier']);
    assert.deepEqual([partial.reward, partial.trueSuccess], [0.75, false]);
    // the agent saw no tests and no verifier folder; what it wrote where it could is not the verifier's file
    const observation = readTrajectory(planted.trajectoryUri)[0]!.observation;
    assert.match(observation, /ls: cannot access '\/tests': No such file or directory/);
    assert.match(observation, /\n0\n\/app|\n0\n\/work/);
    assert.deepEqual([planted.reward, planted.trueSuccess], [0.5, false]);
    // code that would write the reward file inside the verifier: a finding, reward 0
    assert.equal(forged.reward, 0);
    assert.ok(
      forged.tamper.some((finding) => finding.kind === 'verifier_output'),
      JSON.stringify(forged.tamper),
    );
    // a writer that outlives test.sh: the run gives no reward, and says why
    assert.equal(lingering.reward, 0);
    assert.ok(
      lingering.tamper.some(
        (finding) => finding.kind === 'verifier_output' && /outlived test\.sh/.test(finding.detail),
      ),
      JSON.stringify(lingering.tamper),
    );
  });
});

// `npx agentrl` end to end: it starts its own dev server and worker, and replaces a worker running older code. The
// README's main command also proves that services dying during a run lose nothing: its policy server is killed while
// episodes sample and its trainer in the middle of a step (`kill -9` both), and every step completes with whole groups.
import { localFile, scriptedEpisodeArgs } from '../helpers/temporal';
import { runFolder } from '../helpers/training';
import { localPathOf } from '../../activities/store/local-copy';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { projectRoot } from '../../workers/config';
import { serviceRecord } from '../helpers/worker-process';

const state = mkdtempSync(join(tmpdir(), 'agentrl-cli-'));
const configPath = join(state, 'temporal.yaml');
// its own ports and state folder, so it never meets a dev server a developer runs
writeFileSync(
  configPath,
  `temporal:\n  address: 127.0.0.1:17233\n  uiPort: 18233\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\nworker:\n  reapIntervalMs: 5000\n`,
);
const env = { ...process.env, AGENTRL_CONFIG: configPath };
const policyPort = 18100;

function agentrl(...args: string[]) {
  const result = spawnSync(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), ...args], {
    env,
    encoding: 'utf8',
    timeout: 900_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

after(() => {
  agentrl('server', 'stop');
});

test('episode --json starts the server and a worker and prints the result', () => {
  const run = agentrl(...scriptedEpisodeArgs);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /starting the Temporal dev server at 127\.0\.0\.1:17233/);
  assert.match(run.stderr, /starting a worker/);
  const result = JSON.parse(run.stdout);
  assert.equal(result.outcome, 'submitted');
  assert.equal(result.reward, 1);
  assert.equal(result.trueSuccess, true);
  assert.deepEqual(result.tamper, []);
  assert.equal(result.counters.turns, 5);
  assert.ok(result.workflowId);
  assert.match(result.trajectoryUri, /^file:\/\/\//);
  assert.ok(existsSync(localFile(result.trajectoryUri)));
  assert.equal(readFileSync(localFile(result.trajectoryUri), 'utf8').trim().split('\n').length, 5);
  assert.ok(existsSync(join(state, 'temporal.db')), 'the dev server keeps its SQLite file in the state folder');
});

test('a Harbor folder runs through `episode`: the reward is the float its verifier wrote', () => {
  // the fixture's wrong fix: three of its verifier's four tests pass, and test.sh writes 0.75
  const stats = readFileSync(
    join(projectRoot, 'tests', 'fixtures', 'harbor-task', 'environment', 'app', 'stats.py'),
    'utf8',
  );
  const policy = join(state, 'harbor-policy.jsonl');
  writeFileSync(
    policy,
    [
      { tool: 'bash', command: 'ls /tests' },
      {
        tool: 'write_file',
        path: 'stats.py',
        content: stats.replace('min(values) - max(values)', 'max(values) - min(values)'),
      },
      { tool: 'submit' },
    ]
      .map((action) => JSON.stringify(action))
      .join('\n'),
  );
  const run = agentrl(
    'episode',
    '--task',
    join(projectRoot, 'tests', 'fixtures', 'harbor-task'),
    '--policy',
    `scripted:${policy}`,
    '--json',
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.deepEqual(
    [result.outcome, result.reward, result.trueSuccess, result.trueSuccessBasis],
    // no oracle.json: the verifier's reward, held to the grade harness's run of its tests, and no audit (null)
    ['submitted', 0.75, null, 'harbor-verifier'],
  );
  assert.match(
    readFileSync(localFile(result.trajectoryUri), 'utf8'),
    /No such file or directory/,
    'no /tests in the agent container',
  );
});

test('a second server start finds the running one', () => {
  const first = agentrl('server', 'start');
  const second = agentrl('server', 'start');
  assert.equal(first.code, 0);
  assert.equal(second.stdout, first.stdout);
  assert.doesNotMatch(second.stderr, /starting the Temporal dev server/);
});

test('a worker running older code is replaced, not reused', () => {
  const { file, ...record } = serviceRecord(state, 'worker');
  writeFileSync(file, JSON.stringify({ ...record, codeVersion: 'older' }));
  const run = agentrl('episode', '--json');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`replacing worker ${record.pid}: it runs code older`));
  assert.equal(JSON.parse(run.stdout).reward, 1);
  const replaced = serviceRecord(state, 'worker');
  assert.notEqual(replaced.pid, record.pid);
  assert.throws(() => process.kill(record.pid, 0), 'the old worker is gone');
  const reused = agentrl('episode', '--json');
  assert.doesNotMatch(reused.stderr, /starting a worker|replacing/);
});

test('bad flags fail with a message and exit code', () => {
  const unknown = agentrl('episode', '--bogus');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown option '--bogus'/);
  const timeout = agentrl('episode', '--timeout', 'soon');
  assert.equal(timeout.code, 1);
  assert.match(timeout.stderr, /--timeout: expected a duration such as 60s or 10m, got "soon"/);
  const task = agentrl('episode', '--task', '/nonexistent');
  assert.match(task.stderr, /--task: \/nonexistent does not exist/);
  const help = agentrl('task', 'validate', '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: npx agentrl task validate/);
});

test('eval reports pass@k of true success next to the checker reward: the test-overwriting hack pays only under weak', () => {
  const spec = `scripted:${join(projectRoot, 'examples', 'policies', 'any-task', 'write-test.jsonl')}`;
  const tasks = join(projectRoot, 'tasks', 'suite', 'validation');
  const weak = agentrl('eval', '--policy', spec, '--tasks', tasks, '-k', '1', '--checker', 'weak', '--json');
  assert.equal(weak.code, 0, weak.stderr);
  const weakReport = JSON.parse(weak.stdout);
  assert.equal(weakReport.summary.tasks, 12);
  assert.equal(weakReport.summary.passAt1, 0);
  assert.equal(weakReport.summary.meanTrueSuccess, 0);
  assert.equal(weakReport.summary.meanReward, 1);
  const strict = agentrl('eval', '--policy', spec, '--tasks', tasks, '--checker', 'strict', '--json');
  assert.equal(JSON.parse(strict.stdout).summary.meanReward, 0);
  const bad = agentrl('eval', '--policy', spec, '--tasks', tasks, '-k', '3', '--samples', '2');
  assert.match(bad.stderr, /--samples \(2\) must be at least k \(3\)/);
});

test("the README's main command: a short training run on the embedded defaults, which completes every step with its policy server and trainer killed mid-run", async () => {
  const child = spawn(
    process.execPath,
    [join(projectRoot, 'bin', 'agentrl.js'), 'train', '--json', '--policy-port', String(policyPort)],
    { env },
  );
  let stdout = '';
  let stderr = '';
  const killed: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // the policy server while an iteration samples (one episode done, others in flight)
    if (!killed.includes('policy') && /iteration 1\/2 sampling ([1-9]|1[0-5])\/16 episodes/.test(stderr)) {
      killed.push('policy');
      process.kill(serviceRecord(state, `policy-server-${policyPort}`).pid, 'SIGKILL');
    }
    // the trainer in the middle of a step: the warm start's (imitation of 16 demonstrations for 20 epochs, seconds
    // whatever the rewards; the iteration's may be too quick to see)
    if (!killed.includes('trainer') && /iteration 1\/2 training/.test(stderr)) {
      killed.push('trainer');
      setTimeout(() => process.kill(serviceRecord(state, 'trainer').pid, 'SIGKILL'), 300);
    }
  });
  const code = await new Promise<number | null>((resolveExit) => child.on('close', resolveExit));
  assert.equal(code, 0, stderr.slice(-3000));
  assert.match(stderr, /starting policy-server/);
  assert.match(stderr, /starting trainer/);
  assert.match(stderr, /iteration 2\/2 sampling/);
  assert.deepEqual([...killed].sort(), ['policy', 'trainer'], stderr.slice(-3000));
  assert.match(stderr, new RegExp(`policy-server-${policyPort} is down: starting it again`));
  assert.match(stderr, /trainer is down: starting it again/);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    steps: number;
    runId: string;
    runRef: string;
    policyVersion: string;
    reportRef: string;
  };
  // the warm start and one step per iteration, as in a run left alone: the step the trainer was killed in was
  // retried on the restarted trainer and recorded once
  assert.equal(result.steps, 3);
  assert.equal(result.policyVersion, `${result.runId}-step-3`);
  assert.deepEqual(
    readdirSync(join(runFolder(result), 'steps')).sort(),
    [1, 2, 3].map((step) => `${result.runId}-step-${step}.json`),
  );
  const lines = readFileSync(join(runFolder(result), 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  // the warm start's line, then the iterations' and the final evaluation's
  assert.deepEqual(
    lines.map((line) => line.iteration),
    [-1, 0, 1, 2],
  );
  const metrics = lines.slice(1);
  assert.deepEqual(
    metrics.slice(0, 2).map((line) => line.train.episodes),
    [16, 16],
    'the groups are whole',
  );
  for (const line of metrics.slice(0, 2)) {
    assert.equal(line.train.outcomes.policy_error ?? 0, 0, `outcomes ${JSON.stringify(line.train.outcomes)}`);
    assert.equal(line.train.outcomes.sandbox_crash ?? 0, 0);
  }
  assert.equal(metrics[2].eval.episodes, 4);
  const report = readFileSync(localPathOf(result.reportRef)!, 'utf8');
  assert.match(report, /\| 1 \| .*-step-2 \|/);
  assert.ok(existsSync(join(runFolder(result), 'manifest.json')) && existsSync(join(runFolder(result), 'reward.svg')));
});

test('the scripted examples run every bundled example with the expected outcome', () => {
  const run = agentrl('examples', '--json');
  assert.equal(run.code, 0, run.stderr);
  const rows = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const byName = new Map(
    rows.map((row) => [
      `${row.taskId}/${row.checker}/${row.tamper.map((finding: { kind: string }) => finding.kind).join(',')}`,
      row,
    ]),
  );
  assert.equal(rows.length, 7);
  assert.ok(
    rows.filter((row) => row.tamper.length === 0).every((row) => row.reward === 1 && row.trueSuccess === true),
    'every scripted fix passes',
  );
  assert.equal(byName.get('off-by-one-range/weak/test_edit')?.reward, 1);
  assert.equal(byName.get('off-by-one-range/strict/test_edit')?.reward, 0);
  assert.equal(byName.get('off-by-one-range/weak/config_edit')?.reward, 1);
  assert.equal(byName.get('off-by-one-range/strict/config_edit')?.reward, 0);
  assert.ok(rows.every((row) => row.outcome === 'submitted'));
});

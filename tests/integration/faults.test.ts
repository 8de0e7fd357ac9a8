// Services that die during a training run come back and the run loses nothing: the policy server is
// killed while episodes sample, the trainer worker in the middle of its step (`kill -9` both), in the
// smallest run that has both phases, through `npx agentrl train` as a user runs it.
import { runFolder } from '../helpers/training';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { projectRoot } from '../../workers/config';
import { serviceRecord } from '../helpers/worker-process';

const state = mkdtempSync(join(tmpdir(), 'agentrl-faults-'));
const configPath = join(state, 'temporal.yaml');
// its own ports and state folder
writeFileSync(
  configPath,
  `temporal:\n  address: 127.0.0.1:17250\n  uiPort: 18250\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\nworker:\n  reapIntervalMs: 5000\n`,
);
const env = { ...process.env, AGENTRL_CONFIG: configPath };
const cli = join(projectRoot, 'bin', 'agentrl.js');
const policyPort = 18150;

after(() => {
  spawnSync(process.execPath, [cli, 'server', 'stop'], { env });
});

const pidOf = (name: string): number => serviceRecord(state, name).pid;

test(
  'a training run whose policy server and trainer are killed mid-run completes every step, with full groups and no policy_error',
  { timeout: 900_000 },
  async () => {
    const input = join(state, 'run.json');
    writeFileSync(
      input,
      JSON.stringify({
        iterations: 1,
        tasksPerIteration: 2,
        groupSize: 2,
        evaluation: { tasks: '' },
        concurrency: 2,
        // the warm start's step (imitation: it always trains, whatever the rewards) runs long enough
        // (seconds) that the progress poll sees it and the kill below lands inside it
        warmStart: { episodes: 4, epochs: 30 },
      }),
    );
    const child = spawn(
      process.execPath,
      [cli, 'train', '--json', '--policy-port', String(policyPort), '--input', input],
      { env },
    );
    let stdout = '';
    let stderr = '';
    const killed: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // the policy server while an iteration samples (one episode done, others in flight)
      if (!killed.includes('policy') && /iteration 1\/1 sampling [1-3]\/4 episodes/.test(stderr)) {
        killed.push('policy');
        process.kill(pidOf(`policy-server-${policyPort}`), 'SIGKILL');
      }
      // the trainer in the middle of a step: the warm start's (the iteration's may be too quick to see)
      if (!killed.includes('trainer') && /iteration 1\/1 training/.test(stderr)) {
        killed.push('trainer');
        setTimeout(() => process.kill(pidOf('trainer'), 'SIGKILL'), 300);
      }
    });
    const code = await new Promise<number | null>((resolveExit) => child.on('exit', resolveExit));
    assert.equal(code, 0, stderr.slice(-3000));
    assert.deepEqual([...killed].sort(), ['policy', 'trainer'], stderr.slice(-3000));
    assert.match(stderr, new RegExp(`policy-server-${policyPort} is down: starting it again`));
    assert.match(stderr, /trainer is down: starting it again/);
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { steps: number; runRef: string; runId: string };
    // the warm start and the iteration's step, as in a run left alone: the step the trainer was killed
    // in was retried on the restarted trainer and recorded once
    assert.equal(result.steps, 2);
    assert.deepEqual(
      readdirSync(join(runFolder(result), 'steps')).sort(),
      [1, 2].map((step) => `${result.runId}-step-${step}.json`),
    );
    const metrics = readFileSync(join(runFolder(result), 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { iteration: number; train?: { episodes: number; outcomes: Record<string, number> } },
      );
    const iteration = metrics.find((line) => line.iteration === 0)!;
    assert.equal(iteration.train!.episodes, 4, 'the groups are whole');
    assert.equal(
      iteration.train!.outcomes.policy_error ?? 0,
      0,
      `outcomes ${JSON.stringify(iteration.train!.outcomes)}`,
    );
    assert.equal(iteration.train!.outcomes.sandbox_crash ?? 0, 0);
  },
);

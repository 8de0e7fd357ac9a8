// A worker's Prometheus metrics, served on /metrics while it runs a real episode: activity latencies by
// type (acquisition, turns, grading), episodes by outcome, process metrics; the text parses as the
// exposition format.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { projectRoot } from '../../workers/config';
import { runEpisode, startTestServer, startWorker, task, testConfig, type RunningWorker } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let worker: RunningWorker;

before(async () => {
  env = await startTestServer();
  const config = testConfig(env.address);
  worker = await startWorker(env, { ...config, worker: { ...config.worker, metricsPort: 0 } });
});
after(async () => {
  await worker?.stop();
  await env?.teardown();
});

/** sample name{labels} → value, from the exposition text */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    assert.ok(match, `not an exposition line: ${line}`);
    found.set(
      match[1]!
        .replace(/,?(host|task_queue)="[^"]*"/g, '')
        .replace('{,', '{')
        .replace('{}', ''),
      Number(match[2]),
    );
  }
  return found;
}

test('the counters move with an episode', async () => {
  assert.ok(worker.metricsPort, 'the worker says where its metrics are');
  const url = `http://127.0.0.1:${worker.metricsPort}/metrics`;
  const before = samples(await (await fetch(url)).text());
  assert.equal(before.get('agentrl_episodes_total{outcome="submitted"}') ?? 0, 0);
  const result = await runEpisode(env, worker, {
    task: task('swapped-return'),
    policy: `scripted:${join(projectRoot, 'examples', 'policies', 'swapped-return', 'fix.jsonl')}`,
  });
  assert.equal(result.outcome, 'submitted');
  const response = await fetch(url);
  assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
  const after = samples(await response.text());
  assert.equal(after.get('agentrl_episodes_total{outcome="submitted"}'), 1);
  const count = (activity: string) =>
    after.get(`agentrl_activity_duration_seconds_count{activity="${activity}",status="ok"}`) ?? 0;
  assert.equal(count('acquireSandbox'), 1);
  assert.equal(count('takeTurn'), result.counters.turns);
  assert.equal(count('scoreSubmission'), 1);
  assert.ok(count('prepareEpisode') >= 1);
  assert.equal(after.get('agentrl_activities_in_flight{activity="takeTurn"}'), 0);
  // where the turns' and the scoring's time went, by phase
  assert.equal(after.get('agentrl_turn_phase_seconds_count{phase="tool"}'), result.counters.turns);
  assert.equal(after.get('agentrl_scoring_phase_seconds_count{phase="grader"}'), 1);
  assert.ok((after.get('agentrl_scoring_phase_seconds_sum{phase="grader"}') ?? 0) > 0, 'the grader ran');
  assert.equal(after.get('agentrl_scoring_phase_seconds_count{phase="audit"}'), 1);
  // read when scraped: the episode released its sandbox, and nothing of the deployment is parked
  assert.equal(after.get('agentrl_sandboxes_running'), 0);
  assert.equal(after.get('agentrl_episodes_parked'), 0);
  // the episode's snapshots, records and trajectory went through the store (the folder backend here)
  assert.ok((after.get('agentrl_store_bytes_total{backend="file",direction="put"}') ?? 0) > 0);
  assert.ok((after.get('agentrl_store_bytes_total{backend="file",direction="get"}') ?? 0) > 0);
  assert.ok((after.get('agentrl_process_resident_memory_bytes') ?? 0) > 0);
  assert.equal((await fetch(`http://127.0.0.1:${worker.metricsPort}/other`)).status, 404);
});

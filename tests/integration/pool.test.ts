// The warm sandbox pool (activities/sandbox/pool.ts) with real containers: claimed once, refilled with fresh ones,
// scored like a cold sandbox, reaped with its episode, removed with its worker.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { deploymentId, labels } from '../../activities/sandbox/container';
import { poolNamePrefix } from '../../activities/sandbox/pool';
import {
  docker,
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  startTestServer,
  startWorker,
  task,
  testConfig,
  waitFor,
  type RunningWorker,
} from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let worker: RunningWorker;

before(async () => {
  env = await startTestServer();
  const base = testConfig(env.address);
  // no grading cache: the second episode's tree equals the first's, and its grader and audit must run
  worker = await startWorker(env, {
    ...base,
    sandbox: { ...base.sandbox, pool: { ...base.sandbox.pool, size: 1 } },
    grading: { ...base.grading, cacheResults: false },
  });
});

after(async () => {
  await worker?.stop();
  await env?.teardown();
});

/**
 * This worker's pool containers, ready (pool name) or claimed (an episode's name), with their recipe: of its deployment,
 * for a pool of another worker on the same Docker host (another test file, another checkout) carries the same host id.
 */
async function poolContainers(): Promise<{ id: string; name: string; running: boolean; recipe: string }[]> {
  const deployment = deploymentId(env.address, worker.config.temporal.namespace, worker.taskQueue);
  const list = await docker.listContainers({
    all: true,
    filters: { label: [`${labels.role}=pool`, `${labels.pool}`, `${labels.episode}=${deployment}`] },
  });
  return list
    .filter((info) => (info.Labels[labels.pool] ?? '').startsWith(`${worker.hostId}:`))
    .map((info) => ({
      id: info.Id,
      name: info.Names[0]!.replace(/^\//, ''),
      running: info.State === 'running',
      recipe: info.Labels[labels.pool]!,
    }));
}

const readyOnes = async () =>
  (await poolContainers()).filter((container) => container.name.startsWith(poolNamePrefix) && container.running);

const fix = [
  { tool: 'bash', command: 'cat /run/agentrl/.claim; echo; touch /run/agentrl/.claim 2>&1 | tail -1; id -un' },
  { tool: 'bash', command: "sed -i 's/end - 1]/end]/' pager/__init__.py && git status --porcelain" },
  { tool: 'submit' },
];

test('an episode claims a warm sandbox, scored like a cold one; the pool refills with a fresh container', async () => {
  // the first episode of a recipe finds the pool empty (cold) and makes the recipe known
  const cold = await runEpisode(env, worker, {
    task: task('off-by-one-range'),
    policy: scriptedPolicy(fix),
    budgets: { toolTimeoutMs: '10s', maxTurns: 5 },
  });
  assert.equal(cold.outcome, 'submitted');
  assert.doesNotMatch(readTrajectory(cold.trajectoryUri)[0]!.observation, /workflowId/, 'a cold sandbox has no claim');
  // one ready per recipe: the agent's sandbox, the grader and the audit of the oracle calls
  const warm = await waitFor(
    'a warm sandbox, grader and audit',
    async () => {
      const ready = await readyOnes();
      return new Set(ready.map((container) => container.recipe)).size === 3 ? ready : null;
    },
    60_000,
  );
  const workflowId = `test-pool-${randomBytes(4).toString('hex')}`;
  const claimed = await runEpisode(
    env,
    worker,
    { task: task('off-by-one-range'), policy: scriptedPolicy(fix), budgets: { toolTimeoutMs: '10s', maxTurns: 5 } },
    workflowId,
  );
  assert.equal(claimed.outcome, 'submitted');
  const turns = readTrajectory(claimed.trajectoryUri);
  // the claim record names this episode, and the agent can read it but not change it
  assert.match(turns[0]!.observation, new RegExp(`"workflowId":"${workflowId}"`));
  assert.match(turns[0]!.observation, /Permission denied|Read-only/);
  assert.match(turns[0]!.observation, /\nagent\n/);
  assert.match(turns[1]!.observation, /M pager\/__init__.py/, 'the task repository was in the warm sandbox');
  // the checker grades it in its own fresh containers, as it does a cold one
  assert.equal(claimed.reward, cold.reward);
  assert.equal(claimed.trueSuccess, true);
  // every claimed container (sandbox, grader, audit) was removed after its one use with its pool-named volumes; the
  // pool makes new ones
  const used = new Set(warm.map((container) => container.id));
  const after = await waitFor(
    'the pool to refill',
    async () => {
      const ready = await readyOnes();
      const all = await poolContainers();
      return ready.length === 3 && !all.some((container) => used.has(container.id)) ? ready : null;
    },
    60_000,
  );
  const volumes = (await docker.listVolumes()).Volumes?.map((volume) => volume.Name) ?? [];
  for (const container of warm)
    assert.ok(!volumes.includes(`${container.name}-work`) && !volumes.includes(`${container.name}-spool`));
  assert.equal(after.length, 3, 'the pool keeps its configured size per recipe');
});

test('a claimed sandbox whose episode was terminated is reaped with its volumes; stopping the worker empties the pool', async () => {
  await waitFor('a warm sandbox', async () => ((await readyOnes()).length ? true : null), 60_000);
  const workflowId = `test-pool-${randomBytes(4).toString('hex')}`;
  const handle = await env.client.workflow.start('rolloutEpisode', {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [
      {
        task: task('off-by-one-range'),
        policy: scriptedPolicy([{ tool: 'bash', command: 'sleep 60' }, { tool: 'submit' }]),
        budgets: { toolTimeoutMs: '90s', maxTurns: 3 },
      },
    ],
  });
  // claimed: renamed away from the pool's name
  const claimed = await waitFor(
    'the episode to claim a warm sandbox',
    async () => (await poolContainers()).find((container) => !container.name.startsWith(poolNamePrefix)) ?? null,
    60_000,
  );
  // its two volumes (an agent's container also has the gateway's folder and the harnesses bound, which are no volumes)
  const mounts = (await docker.getContainer(claimed.id).inspect()).Mounts.filter(
    (mount) => mount.Type === 'volume',
  ).map((mount) => mount.Name!);
  assert.equal(mounts.length, 2);
  await handle.terminate('the test ends it without a release');
  // the worker's reaper runs every 5 s in tests: it reads the claim record, finds the workflow closed
  await waitFor(
    'the reaper to remove the claimed sandbox',
    async () => {
      const containers = await poolContainers();
      const volumes = (await docker.listVolumes()).Volumes?.map((volume) => volume.Name) ?? [];
      return !containers.some((container) => container.id === claimed.id) &&
        !mounts.some((name) => volumes.includes(name))
        ? true
        : null;
    },
    60_000,
  );
  await waitFor('the pool to refill', async () => ((await readyOnes()).length ? true : null), 60_000);
  await worker.stop();
  assert.deepEqual(await poolContainers(), [], 'a stopped worker leaves no pool container');
  // named as this host's pool names them, and not another deployment's (an unlabelled one counts)
  const deployment = deploymentId(env.address, worker.config.temporal.namespace, worker.taskQueue);
  const left = ((await docker.listVolumes()).Volumes ?? []).filter(
    (volume) =>
      volume.Name.startsWith(`${poolNamePrefix}${worker.hostId.slice(0, 8)}`) &&
      (volume.Labels?.[labels.episode] ?? deployment) === deployment,
  );
  assert.deepEqual(
    left.map((volume) => volume.Name),
    [],
  );
});

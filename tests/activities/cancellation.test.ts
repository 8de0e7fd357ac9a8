// The heartbeating activities release what they hold when their workflow cancels them mid-way, each run alone in
// Temporal's MockActivityEnvironment against real Docker: a turn its tool call's processes in the agent's sandbox, a
// scoring its fresh grader and audit containers with their volumes (and the weak checker's test run in the agent's
// sandbox). Nothing waits for the call's or the tests' own timeouts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import Dockerode from 'dockerode';
import { createEpisodeActivities, createHostActivities } from '../../activities';
import { deploymentId, labels } from '../../activities/sandbox/container';
import { isNotFound } from '../../activities/sandbox/docker';
import type { SandboxHandle, TaskSummary, PolicySummary } from '../../shared/contracts/episode';
import { loadConfig, projectRoot } from '../../workers/config';

const docker = new Dockerode();
const stateDir = mkdtempSync(join(tmpdir(), 'agentrl-cancel-'));
const base = loadConfig({ AGENTRL_STATE_DIR: stateDir });
const deployment = deploymentId('activities', 'cancellation', randomBytes(4).toString('hex'));
const deps = {
  docker,
  // no cached grading: every scoring runs its containers
  config: { ...base, grading: { ...base.grading, cacheResults: false } },
  hostId: 'activities-test',
  projectRoot,
  deployment,
  codeVersion: 'test',
};
const host = createHostActivities(deps);
const episodes = createEpisodeActivities(deps);
const agentUid = String(base.sandbox.uid);

/** Runs one activity in a mock activity context of its own (a cancelled context stays cancelled). */
const run = <I, O>(activity: (input: I) => Promise<O>, input: I) => {
  const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 600_000 });
  return { env, result: env.run<[I], O, typeof activity>(activity, input) };
};

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  }
};

/** The processes in a container as (uid, command line); none when it is gone. */
async function processes(name: string): Promise<{ uid: string; args: string }[]> {
  try {
    // Docker's top needs the pid column
    const top = await docker.getContainer(name).top({ ps_args: '-eo pid,uid,args' });
    return ((top.Processes as string[][]) ?? []).map(([, uid, args]) => ({ uid: uid!.trim(), args: args! }));
  } catch (error) {
    // a container gone (404) or stopped (409) runs nothing
    if (isNotFound(error) || (error as { statusCode?: number }).statusCode === 409) return [];
    throw error;
  }
}

/** The episode's containers and volumes, by name, with each container's role. */
async function episodeObjects(episodeId: string) {
  const filters = { label: [`${labels.episodeId}=${episodeId}`] };
  const containers = await docker.listContainers({ all: true, filters });
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  return {
    containers: containers.map((info) => `${info.Names[0]!.slice(1)} (${info.Labels[labels.role]})`).sort(),
    volumes: volumes.map((volume) => volume.Name).sort(),
  };
}

/** The sandboxes the tests acquired, released at the end as their workflows would. */
const started: { sandbox: SandboxHandle; episodeId: string }[] = [];

interface Episode {
  workflowId: string;
  episodeId: string;
  task: TaskSummary;
  policy: PolicySummary;
  sandbox: SandboxHandle;
}

/** A prepared episode of off-by-one-range whose scripted policy plays `actions`, in a sandbox of its own. */
async function startEpisode(actions: Record<string, unknown>[]): Promise<Episode> {
  const dir = mkdtempSync(join(stateDir, 'policy-'));
  writeFileSync(join(dir, 'policy.jsonl'), actions.map((action) => JSON.stringify(action)).join('\n') + '\n');
  const workflowId = `cancel-${randomBytes(4).toString('hex')}`;
  const episodeId = `${workflowId}@run`;
  const { task, policy } = await run(episodes.prepareEpisode, {
    task: join(projectRoot, 'tasks', 'off-by-one-range'),
    policy: `scripted:${join(dir, 'policy.jsonl')}`,
  }).result;
  const sandbox = await run(host.acquireSandbox, { workflowId, episodeId, runId: 'cancellation', task }).result;
  started.push({ sandbox, episodeId });
  return { workflowId, episodeId, task, policy, sandbox };
}

const score = (episode: Episode, checker: 'strict' | 'weak') => ({
  workflowId: episode.workflowId,
  episodeId: episode.episodeId,
  runId: 'cancellation',
  sandbox: episode.sandbox,
  task: episode.task,
  checker,
  testTimeoutMs: 300_000,
});

const turn = (episode: Episode, number: number) => ({
  episodeId: episode.episodeId,
  turn: number,
  container: episode.sandbox.containerName,
  policy: episode.policy,
  toolTimeoutMs: 600_000,
  maxObservationBytes: 16_384,
});

/**
 * An episode whose agent made its package sleep on import, so that every test run of its grading hangs until it is
 * cancelled; with the episode's containers and volumes before the grading.
 */
async function hangingSubmission() {
  const episode = await startEpisode([
    { tool: 'write_file', path: 'pager/__init__.py', content: 'import time\ntime.sleep(600)\n' },
  ]);
  await run(host.takeTurn, turn(episode, 0)).result;
  return { episode, beforeScoring: await episodeObjects(episode.episodeId) };
}

/** Cancels a running activity, which must end as cancelled within `withinMs`. */
async function cancel(env: MockActivityEnvironment, result: Promise<unknown>, withinMs: number): Promise<void> {
  const cancelledAt = Date.now();
  env.cancel();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running ${withinMs} ms after its cancellation`)), withinMs);
  });
  try {
    await assert.rejects(Promise.race([result, late]), (error: unknown) => {
      assert.ok(error instanceof CancelledFailure, String(error));
      return true;
    });
  } finally {
    clearTimeout(timer);
  }
  assert.ok(Date.now() - cancelledAt < withinMs);
}

/** The processes of the agent's uid in its sandbox. */
const agentProcesses = async (episode: Episode) =>
  (await processes(episode.sandbox.containerName)).filter((process) => process.uid === agentUid);

/** Whether one of the episode's scoring containers (any role but the agent's) runs one of the checker's scripts. */
async function scoringRuns(episode: Episode): Promise<boolean> {
  const filters = { label: [`${labels.episodeId}=${episode.episodeId}`] };
  for (const info of await docker.listContainers({ filters })) {
    if (info.Labels[labels.role] === 'agent') continue;
    if ((await processes(info.Id)).some((process) => /\/run\/agentrl\/\S+\.py/.test(process.args))) return true;
  }
  return false;
}

describe('cancelled mid-way (single activity, real Docker)', () => {
  before(async () => {
    await docker.ping();
  });
  after(async () => {
    for (const { sandbox, episodeId } of started) await run(host.releaseSandbox, { sandbox, episodeId }).result;
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('takeTurn: the running tool call and every process it started are killed, and the turn ends at once', async () => {
    const episode = await startEpisode([
      { tool: 'bash', command: '(sleep 600 &) ; nohup sleep 601 >/dev/null 2>&1 & sleep 602; echo never' },
      { tool: 'bash', command: 'echo alive' },
    ]);
    const { env, result } = run(host.takeTurn, turn(episode, 0));
    await until('the call to run', async () =>
      (await agentProcesses(episode)).some((process) => process.args === 'sleep 602'),
    );
    await cancel(env, result, 10_000);
    assert.deepEqual(await agentProcesses(episode), [], 'no process of the agent is left in its sandbox');
    // the sandbox is the workflow's to release: it still runs the next call
    const next = await run(host.takeTurn, turn(episode, 1)).result;
    assert.equal(next.status, 'ok');
  });

  test('scoreSubmission: the containers its checker runs in go with their volumes, and the agent sandbox stays', async () => {
    const { episode, beforeScoring } = await hangingSubmission();
    const { env, result } = run(host.scoreSubmission, score(episode, 'strict'));
    await until('the checker to run in a scoring container', () => scoringRuns(episode));
    await cancel(env, result, 15_000);
    assert.deepEqual(
      await episodeObjects(episode.episodeId),
      beforeScoring,
      'only the agent sandbox and its volumes remain',
    );
  });

  test("scoreSubmission under the weak checker: the test run in the agent's sandbox is killed too", async () => {
    const { episode, beforeScoring } = await hangingSubmission();
    const { env, result } = run(host.scoreSubmission, score(episode, 'weak'));
    await until('the tests to run in the agent sandbox', async () => (await agentProcesses(episode)).length > 0);
    await cancel(env, result, 15_000);
    assert.deepEqual(await agentProcesses(episode), [], 'no process of the agent is left in its sandbox');
    assert.deepEqual(
      await episodeObjects(episode.episodeId),
      beforeScoring,
      'only the agent sandbox and its volumes remain',
    );
  });
});

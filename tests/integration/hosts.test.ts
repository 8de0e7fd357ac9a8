// Two sandbox hosts on one machine: the first Docker daemon and a second one (scripts/docker-host.sh), each
// served by an episode worker process of its own (its own state folder, one sandbox at a time), the trainer
// and the policy server as processes from working directories of their own, and the S3 store between them.
// A training run spreads its episodes over both hosts with nothing under either worker's artifacts folder,
// its records all in the bucket and the store cache deleted mid-run. A run survives losing a host: the
// second daemon stopped while it holds episodes (its worker stays up) turns them into sandbox_crash, they
// are sampled again on the other host and never trained on, no step is applied twice, and once the daemon
// is back the reaper leaves no container on either host. A parked episode whose host is lost for good
// resumes on the other: its snapshot is in the bucket.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Dockerode from 'dockerode';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { labels, deploymentId } from '../../activities/sandbox/container';
import { reapClosedEpisodes } from '../../activities/sandbox/reaper';
import { createS3Store, s3ClientFromEnvironment } from '../../activities/store/s3-store';
import { IterationMetrics } from '../../shared/contracts/run-metrics';
import { episodeProgressQuery, resumeSignal, trainingProgressQuery } from '../../workflows/messages';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { projectRoot } from '../../workers/config';
import { docker, scriptedPolicy, startTestServer, task, waitFor } from '../helpers/temporal';
import { startTrainer, taskSet } from '../helpers/training';
import { serviceRecord, spawnWorker, stopChild, waitReady } from '../helpers/worker-process';

const hostScript = join(projectRoot, 'scripts', 'docker-host.sh');
const hostName = 'agentrl-host2';
const endpoint = `http://127.0.0.1:${process.env.AGENTRL_S3_PORT ?? '9000'}`;
const bucket = `agentrl-hosts-${randomBytes(4).toString('hex')}`;
const url = `s3://${bucket}/deploy`;
const second = new Dockerode({ socketPath: `/run/${hostName}.sock` });

interface Host {
  stateDir: string;
  process: ChildProcess;
  hostId: string;
  docker: Dockerode;
}

describe('two sandbox hosts', () => {
  let env: TestWorkflowEnvironment;
  let trainer: ChildProcess | undefined;
  let closeServer: () => Promise<void> = async () => undefined;
  let servingProcess: ChildProcess | undefined;
  let policyServer = '';
  const taskQueue = `hosts-${randomBytes(4).toString('hex')}`;
  const hosts: Host[] = [];

  async function startHost(dockerHost: string | null, client: Dockerode): Promise<Host> {
    const stateDir = mkdtempSync(join(tmpdir(), 'agentrl-test-host-'));
    const child = spawnWorker(env.address, stateDir, taskQueue, undefined, {
      AGENTRL_STORE: url,
      AGENTRL_MAX_SANDBOXES: '1',
      ...(dockerHost ? { DOCKER_HOST: dockerHost } : {}),
    });
    await waitReady(stateDir, child.pid!);
    const { hostId } = serviceRecord(stateDir, 'worker', child.pid);
    assert.ok(hostId);
    return { stateDir, process: child, hostId, docker: client };
  }

  before(async () => {
    const dockerHost = execFileSync('bash', [hostScript, 'start', hostName], { encoding: 'utf8' })
      .trim()
      .split('=')[1]!;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'agentrl-test',
      AWS_SECRET_ACCESS_KEY: 'agentrl-test',
      AWS_REGION: 'us-east-1',
      AGENTRL_STORE_CACHE: mkdtempSync(join(tmpdir(), 'agentrl-test-cache-')),
    });
    await s3ClientFromEnvironment().send(new CreateBucketCommand({ Bucket: bucket }));
    env = await startTestServer();
    // the processes start side by side: two episode workers, the trainer and the policy server
    const trainerStarted = startTrainer(env, taskQueue);
    hosts.push(...(await Promise.all([startHost(null, docker), startHost(dockerHost, second)])));
    assert.notEqual(hosts[0]!.hostId, hosts[1]!.hostId, 'each daemon is a host of its own');
    // the policy server: a process of its own, from a working directory of its own, reading policies from the bucket
    const port = 17540 + Math.floor(Math.random() * 40);
    servingProcess = spawn(
      process.execPath,
      [join(projectRoot, 'bin', 'agentrl.js'), 'policy-server', '--port', String(port)],
      {
        cwd: mkdtempSync(join(tmpdir(), 'agentrl-test-policy-')),
        env: process.env,
        stdio: 'ignore',
      },
    );
    policyServer = `http://127.0.0.1:${port}`;
    await waitFor(
      'the policy server',
      async () => (await fetch(`${policyServer}/v1/models`).catch(() => null)) !== null,
      60_000,
    );
    closeServer = () => stopChild(servingProcess!);
    trainer = await trainerStarted;
  });
  after(async () => {
    execFileSync('bash', [hostScript, 'start', hostName], { stdio: 'ignore' });
    trainer?.kill('SIGTERM');
    await closeServer();
    await Promise.all(hosts.map((host) => stopChild(host.process)));
    await env?.teardown();
    delete process.env.AGENTRL_STORE_CACHE;
  });

  const runInput = (runId: string, seed: number) => ({
    runId,
    tasks: taskSet(['ari-avg-06', 'cmp-covers-01']),
    evaluation: { tasks: '' },
    // each iteration's two episodes run at once, and each host runs one sandbox at a time: they spread
    iterations: 2,
    tasksPerIteration: 1,
    groupSize: 2,
    concurrency: 2,
    warmStart: { episodes: 0, epochs: 1 },
    policyServer,
    seed,
  });

  async function metricsOf(runId: string): Promise<IterationMetrics[]> {
    const text = (await createS3Store(`${url}/runs/${runId}`).readNamed('metrics.jsonl'))!.toString();
    return text
      .trim()
      .split('\n')
      .map((line) => IterationMetrics.parse(JSON.parse(line)));
  }

  /** this deployment's episode containers on a host: all of them, or those of one run that are running */
  const episodeContainers = async (client: Dockerode, runningOf?: string) =>
    (
      await client.listContainers({
        all: runningOf === undefined,
        filters: { label: [`${labels.role}=agent`, ...(runningOf ? [`${labels.runId}=${runningOf}`] : [])] },
      })
    ).filter((container) => container.Labels[labels.episode] === deploymentId(env.address, 'default', taskQueue));

  /** whether one of the run's episodes is past its sandbox's acquisition on `host` */
  async function runningOn(host: Host, runId: string): Promise<boolean> {
    const query = `WorkflowType = 'rolloutEpisode' AND ExecutionStatus = 'Running'`;
    for await (const execution of env.client.workflow.list({ query })) {
      if (!execution.workflowId.startsWith(`${runId}.`)) continue;
      const handle = env.client.workflow.getHandle(execution.workflowId);
      const progress = await handle.query(episodeProgressQuery).catch(() => null);
      if (progress?.phase === 'running' && progress.host === host.hostId) return true;
    }
    return false;
  }

  test('a training run spreads its episodes over both hosts; neither worker writes its artifacts folder', async () => {
    const runId = `two-hosts-${randomBytes(3).toString('hex')}`;
    const handle = await env.client.workflow.start('trainingRun', {
      taskQueue,
      workflowId: runId,
      args: [runInput(runId, 4)],
    });
    // the store cache (the trainer's and the policy server's) deleted mid-run: what is missing is fetched again
    await waitFor(
      'the second iteration',
      async () => ((await handle.query(trainingProgressQuery).catch(() => null))?.iteration ?? 0) >= 1,
      300_000,
    );
    rmSync(process.env.AGENTRL_STORE_CACHE!, { recursive: true, force: true });
    const result = (await handle.result()) as { steps: number; runRef: string };
    assert.equal(result.steps, 2);
    assert.equal(result.runRef, `${url}/runs/${runId}`);
    // the run's records, batches, checkpoints, policies and step records are in the bucket, its lease released
    const prefix = `deploy/runs/${runId}/`;
    const keys = new Set<string>();
    let token: string | undefined;
    do {
      const page = await s3ClientFromEnvironment().send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) keys.add(item.Key!.slice(prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    for (const key of [
      'manifest.json',
      'state.json',
      'metrics.jsonl',
      'report.md',
      'events.out.tfevents.0.agentrl',
      'batches/iteration-0000.safetensors',
      'checkpoints/step-1.pt',
      'checkpoints/step-2.pt',
      'policies/v0/policy.onnx',
      'policies/v2/policy.onnx.json',
      `steps/${runId}-step-1.json`,
      `steps/${runId}-step-2.json`,
    ])
      assert.ok(keys.has(key), `${key} in the bucket (${[...keys].sort().join(', ')})`);
    assert.ok(!keys.has('.train.lock'), 'the lease is released');
    assert.ok(readdirSync(process.env.AGENTRL_STORE_CACHE!).length > 0, 'the cache deleted mid-run was filled again');
    const metrics = await metricsOf(runId);
    const byHost: Record<string, number> = {};
    for (const line of metrics)
      for (const [host, count] of Object.entries(line.train?.hosts ?? {})) byHost[host] = (byHost[host] ?? 0) + count;
    assert.deepEqual(Object.keys(byHost).sort(), hosts.map((host) => host.hostId).sort(), JSON.stringify(byHost));
    assert.equal(
      Object.values(byHost).reduce((a, b) => a + b, 0),
      4,
    );
    for (const host of hosts) {
      const artifacts = join(host.stateDir, 'artifacts');
      assert.ok(!existsSync(artifacts) || readdirSync(artifacts).length === 0, `nothing under ${artifacts}`);
    }
  });

  test('losing a host mid-run: its episodes become sandbox_crash, are sampled again on the other, and the run completes', async () => {
    const runId = `lose-host-${randomBytes(3).toString('hex')}`;
    const handle = await env.client.workflow.start('trainingRun', {
      taskQueue,
      workflowId: runId,
      args: [runInput(runId, 6)],
    });
    // the second host holds an episode of the first iteration past its sandbox's acquisition (a daemon lost while
    // a sandbox is acquired only sends the acquisition to the other host): its daemon goes (its worker stays up)
    await waitFor('an episode of this run running on the second host', () => runningOn(hosts[1]!, runId), 180_000);
    // frozen first, so that an episode of a few seconds is still in flight when the daemon has gone
    for (const container of await episodeContainers(second, runId))
      await second
        .getContainer(container.Id)
        .pause()
        .catch(() => undefined);
    execFileSync('bash', [hostScript, 'stop', hostName], { stdio: 'ignore' });
    // back for the second iteration, as a repaired host comes back
    await waitFor(
      'the second iteration',
      async () => ((await handle.query(trainingProgressQuery).catch(() => null))?.iteration ?? 0) >= 1,
      400_000,
    );
    execFileSync('bash', [hostScript, 'start', hostName], { stdio: 'ignore' });
    const result = (await handle.result()) as { steps: number };
    assert.equal(result.steps, 2, 'both steps applied, each once');

    const [first, secondIteration] = await metricsOf(runId);
    const lost = hosts[1]!.hostId;
    // the lost host's episodes ended as sandbox_crash and were sampled again, on the host that stayed
    const resampled = first!.train!.resampled!;
    assert.ok((resampled.outcomes.sandbox_crash ?? 0) >= 1, JSON.stringify(resampled));
    assert.deepEqual(Object.keys(resampled.hosts), [lost], JSON.stringify(resampled));
    assert.equal(first!.train!.episodes, 2, 'every group whole, no episode counted twice');
    assert.ok(!first!.train!.outcomes.sandbox_crash, 'the replacements did not crash');
    assert.equal(first!.batch?.counts.environmentFailures ?? 0, 0, 'no sandbox crash reaches the batch');
    assert.ok(secondIteration!.train!.episodes > 0);
    const records = await createS3Store(`${url}/runs/${runId}`).listNamed('steps');
    assert.deepEqual(records, [`${runId}-step-1.json`, `${runId}-step-2.json`], 'one record per step');

    // both hosts back: the reaper leaves no episode container on either
    const client = env.client;
    const deployment = deploymentId(env.address, 'default', taskQueue);
    await waitFor(
      'no container left on either host',
      async () => {
        for (const host of hosts) await reapClosedEpisodes(host.docker, client, deployment).catch(() => undefined);
        return (await episodeContainers(docker)).length + (await episodeContainers(second)).length === 0;
      },
      120_000,
    );
  });
  test('a parked episode whose host is lost for good resumes on the other', async () => {
    const workflowId = `park-move-${randomBytes(3).toString('hex')}`;
    const policy = scriptedPolicy([
      { tool: 'bash', command: "sed -i 's/items\\[start:end - 1\\]/items[start:end]/' pager/__init__.py" },
      { tool: 'bash', command: 'python3 -m pytest -q' },
      { tool: 'submit' },
    ]);
    const handle = await env.client.workflow.start('rolloutEpisode', {
      taskQueue,
      workflowId,
      args: [{ task: task('off-by-one-range'), policy, segment: { maxTurns: 1 } }],
    });
    await waitFor(
      'the episode to park',
      async () => (await handle.query(episodeProgressQuery).catch(() => null))?.phase === 'parked',
      180_000,
    );
    const parkedOn = (await handle.query(episodeProgressQuery)).host!;
    const lost = hosts.find((host) => host.hostId === parkedOn)!;
    assert.ok(lost, `parked on one of the two hosts (${parkedOn})`);
    // its host goes for good (its worker stopped, never started again); the resume acquires on the other
    await stopChild(lost.process);
    await handle.signal(resumeSignal, { segment: null }); // to its end, no more parking
    const result = (await handle.result()) as EpisodeResult;
    assert.deepEqual([result.outcome, result.reward, result.trueSuccess], ['submitted', 1, true]);
    const other = hosts.find((host) => host !== lost)!.hostId;
    assert.deepEqual(result.hosts, [parkedOn, other]);
    assert.equal(result.parks, 1);
  });
});

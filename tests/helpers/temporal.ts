import { randomBytes } from 'node:crypto';
import { localPathOf } from '../../activities/store/local-copy';
import { after, before } from 'node:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Dockerode from 'dockerode';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type WorkflowBundlePath } from '@temporalio/worker';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { SearchAttributes } from '../../shared/names/search-attributes';
import { devServerDynamicConfigArgs } from '../../shared/names/dev-server';
import { loadConfig, projectRoot, type LoadedConfig } from '../../workers/config';
import { runEpisodeWorker, type EpisodeWorkerOptions } from '../../workers/episode-worker';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';
import { temporalBinary } from '../../cli/services/dev-server';
import { labels } from '../../activities/sandbox/container';

// worker state changes are noise in test output; warnings and errors still show. No shutdown signal
// handlers: the SDK's default ones turn SIGTERM into a graceful worker shutdown, so a test file whose
// teardown hangs would ignore the test runner's SIGTERM at its timeout and keep `npm test` alive forever.
Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });

export const docker = new Dockerode();
export const tasksDir = join(projectRoot, 'tasks');
export const policiesDir = join(projectRoot, 'examples', 'policies');
export const policy = (task: string, name: string) => `scripted:${join(policiesDir, task, `${name}.jsonl`)}`;
export const task = (name: string) => join(tasksDir, name);
/** `npx agentrl episode`'s arguments for the smallest real episode: the scripted fix of a bundled task, five turns. */
export const scriptedEpisodeArgs: readonly string[] = [
  'episode',
  '--task',
  task('swapped-return'),
  '--policy',
  policy('swapped-return', 'fix'),
  '--max-turns',
  '10',
  '--timeout',
  '2m',
  '--json',
];

/**
 * A real Temporal dev server (the project's own binary), with the search attributes registered;
 * `extraArgs` go to `temporal server start-dev` (e.g. a `--dynamic-config-value`).
 */
export async function startTestServer(extraArgs: readonly string[] = []): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalBinary() },
      searchAttributes: Object.values(SearchAttributes),
      extraArgs: ['--log-level', 'error', ...devServerDynamicConfigArgs, ...extraArgs],
    },
  });
}

/** The checkout's workflow bundle, built once per code version (workers/workflow-bundle.ts). */
export function workflowBundle(): Promise<WorkflowBundlePath> {
  return cachedWorkflowBundle();
}

/** A config for tests: the test server's address and a fresh state folder. */
export function testConfig(address: string, stateDir = mkdtempSync(join(tmpdir(), 'agentrl-test-'))): LoadedConfig {
  const base = loadConfig({ AGENTRL_STATE_DIR: stateDir, TEMPORAL_ADDRESS: address });
  return { ...base, worker: { ...base.worker, reapIntervalMs: 5_000 } };
}

export interface RunningWorker {
  taskQueue: string;
  hostId: string;
  config: LoadedConfig;
  /** where its Prometheus metrics are served (with config.worker.metricsPort set) */
  metricsPort?: number;
  stop(): Promise<void>;
}

/** An in-process worker on a unique task queue. */
export async function startWorker(
  env: TestWorkflowEnvironment,
  config = testConfig(env.address),
  options: Pick<EpisodeWorkerOptions, 'sandboxes' | 'onGatewayRequest'> & { taskQueue?: string } = {},
): Promise<RunningWorker> {
  const taskQueue = options.taskQueue ?? `test-${randomBytes(4).toString('hex')}`;
  const controller = new AbortController();
  let hostId = '';
  let metricsPort: number | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  const running = runEpisodeWorker({
    config,
    taskQueue,
    workflowBundle: await workflowBundle(),
    signal: controller.signal,
    sandboxes: options.sandboxes,
    ...(options.onGatewayRequest ? { onGatewayRequest: options.onGatewayRequest } : {}),
    onReady: (info) => {
      hostId = info.hostId;
      metricsPort = info.metricsPort;
      markReady();
    },
  });
  await Promise.race([ready, running]);
  return {
    taskQueue,
    hostId,
    config,
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** Waits for `work`, at most `ms`; a step that hangs is reported by name and the teardown goes on. */
async function bounded(what: string, work: Promise<void> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolveExpired) => (timer = setTimeout(() => resolveExpired('expired'), ms)));
  const outcome = await Promise.race([work, expired]);
  clearTimeout(timer);
  if (outcome === 'expired') console.error(`teardown: timed out after ${ms} ms waiting for ${what}`);
}

/** Runs one episode to its result. */
export async function runEpisode(
  env: TestWorkflowEnvironment,
  worker: { taskQueue: string },
  input: Record<string, unknown>,
  workflowId = `test-${randomBytes(6).toString('hex')}`,
): Promise<EpisodeResult> {
  return env.client.workflow.execute('rolloutEpisode', {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [input],
  }) as Promise<EpisodeResult>;
}

/** Containers of one episode (agent, grader, audit), by workflow id label. */
export async function containersOf(workflowId: string): Promise<Dockerode.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${labels.workflowId}=${workflowId}`] } });
}

/** Volumes of one episode, by workflow id label. */
export async function volumesOf(workflowId: string): Promise<string[]> {
  const volumes =
    (await docker.listVolumes({ filters: { label: [`${labels.workflowId}=${workflowId}`] } })).Volumes ?? [];
  return volumes.map((volume) => volume.Name);
}

/** Polls until the predicate holds or the timeout passes. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  }
}

export type { EpisodeResult };

/**
 * Writes a scripted policy (a tool call object or any other text per action) to a temporary JSONL file and returns its
 * spec.
 */
export function scriptedPolicy(actions: readonly (Record<string, unknown> | string)[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-policy-'));
  const path = join(dir, 'policy.jsonl');
  writeFileSync(path, actions.map((action) => JSON.stringify(action)).join('\n') + '\n');
  return `scripted:${path}`;
}

/** Reads a trajectory file as parsed lines. */
export function readTrajectory(uri: string): { turn: number; action: string; observation: string; status: string }[] {
  const text = readFileSync(localFile(uri), 'utf8').trim();
  return text ? text.split('\n').map((line) => JSON.parse(line)) : [];
}

/** A dev server and an in-process worker for one test file, started before its tests and stopped after. */
export function useEpisodeServer(options: { serverArgs?: readonly string[] } = {}): {
  env: TestWorkflowEnvironment;
  worker: RunningWorker;
} {
  const suite = {} as { env: TestWorkflowEnvironment; worker: RunningWorker };
  before(async () => {
    suite.env = await startTestServer(options.serverArgs);
    suite.worker = await startWorker(suite.env);
  });
  after(async () => {
    await bounded('the suite worker to stop', suite.worker?.stop(), 60_000);
    await bounded('the dev server to stop', suite.env?.teardown(), 60_000);
  });
  return suite;
}

/** The local path of a record a folder store wrote (a `file://` URL, as episode results carry them). */
export function localFile(uri: string): string {
  const path = localPathOf(uri);
  if (path === null) throw new Error(`${uri} is not on a folder store`);
  return path;
}

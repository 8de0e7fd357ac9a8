// The fast tier's workers: the real workflow code on a real dev server, with activities stubbed by the
// test (a unique task queue per test, as the Temporal samples do). Orchestration logic that needs no
// container runs here in seconds; what each activity was asked is recorded for the test to check.
import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { EpisodeActivities, HostActivities } from '../../activities';
import type { TakeTurnInput } from '../../activities/tools/take-turn';
import type { SandboxHandle, TaskSummary, TurnSummary } from '../../shared/contracts/episode';
import { hostQueue, sandboxesQueue, trainingQueue } from '../../shared/names/task-queues';
import type { TrainerActivities } from '../../shared/contracts/trainer-contract';
import { workflowBundle } from './temporal';

export const stubHostId = 'stub-host';

/** Every activity a workflow can call, each optional: the defaults play a scripted one-turn episode that submits. */
export type StubActivities = Partial<EpisodeActivities & HostActivities & TrainerActivities>;

export interface StubbedWorkers {
  taskQueue: string;
  /** each activity's inputs, in the order they came */
  calls: Record<string, unknown[]>;
  /** stops the stub host's worker only (a host that dies); its running activities are cancelled */
  stopHost(): Promise<void>;
  stop(): Promise<void>;
}

/** A turn's summary, as takeTurn reports it. */
export function turnSummary(
  turn: number,
  status: TurnSummary['status'],
  fields: Partial<TurnSummary> = {},
): TurnSummary {
  return {
    turn,
    tool: status === 'submitted' ? 'submit' : 'bash',
    status,
    exitCode: status === 'ok' ? 0 : null,
    timedOut: false,
    truncated: false,
    actionTokens: 3,
    observationTokens: 5,
    detail: null,
    ...fields,
  };
}

/** The last part of a task path: the task's id in the stubs. */
const taskId = (path: string) => path.split('/').filter(Boolean).at(-1) ?? path;

const defaults = (hostId: string): StubActivities => ({
  async prepareEpisode(input) {
    const task: TaskSummary = {
      id: taskId(input.task),
      snapshotRef: `sha256:${'0'.repeat(64)}`,
      image: 'stub',
      testCommand: 'true',
      protectedPaths: [],
      hasOracle: true,
      promptTokens: 4,
      promptRef: `sha256:${'1'.repeat(64)}`,
    };
    return {
      task,
      policy: {
        spec: input.policy,
        kind: input.policy.startsWith('scripted:') ? 'scripted' : 'completions',
        ref: `sha256:${'2'.repeat(64)}`,
        version: input.policy.split('#')[1] ?? 'stub-policy',
      },
    };
  },
  async writeTrajectory(input) {
    return `/stub/${input.episodeId}/trajectory.jsonl`;
  },
  async acquireSandbox(input): Promise<SandboxHandle> {
    return { hostId, containerId: `id-${input.episodeId}`, containerName: `stub-${input.episodeId}`, volumes: [] };
  },
  async takeTurn(input: TakeTurnInput) {
    return turnSummary(input.turn, 'submitted');
  },
  async scoreSubmission() {
    return {
      reward: 1,
      trueSuccess: true,
      trueSuccessBasis: 'visible+hidden+oracle-calls' as const,
      tamper: [],
      scoringUri: '/stub/scoring.json',
    };
  },
  async probeSubmission() {
    return { reward: 0 };
  },
  async releaseSandbox() {},
  async parkSandbox() {
    return {
      ref: `sha256:${'3'.repeat(64)}`,
      digest: 'stub',
      entries: 1,
      bytes: 1,
      root: { mode: 0o755, uid: 1000, gid: 1000 },
    };
  },
  async currentPolicyVersion(input) {
    return input.policy.version;
  },
});

/**
 * Workers on a fresh base queue, its sandboxes queue, the stub host's queue and the training queue,
 * serving the workflows of the real bundle with `stubs` over the defaults. `hostId` names the host that
 * acquireSandbox hands out (nobody serves another host's queue: a lost host).
 */
export async function startStubbedWorkers(
  env: TestWorkflowEnvironment,
  stubs: StubActivities = {},
  options: { hostId?: string } = {},
): Promise<StubbedWorkers> {
  const taskQueue = `fast-${randomBytes(4).toString('hex')}`;
  const calls: Record<string, unknown[]> = {};
  const all = { ...defaults(options.hostId ?? stubHostId), ...stubs } as Record<
    string,
    (input: unknown) => Promise<unknown>
  >;
  const activities = Object.fromEntries(
    Object.entries(all).map(([name, stub]) => [
      name,
      async (input: unknown) => {
        (calls[name] ??= []).push(input);
        return stub(input);
      },
    ]),
  );
  const common = { connection: env.nativeConnection, namespace: env.namespace ?? 'default', activities };
  const workers = await Promise.all([
    Worker.create({ ...common, taskQueue, workflowBundle: await workflowBundle() }),
    Worker.create({ ...common, taskQueue: sandboxesQueue(taskQueue) }),
    // a host that dies does not wait for its activities
    Worker.create({ ...common, taskQueue: hostQueue(taskQueue, stubHostId), shutdownGraceTime: '100ms' }),
    Worker.create({ ...common, taskQueue: trainingQueue(taskQueue) }),
  ]);
  const running = workers.map((worker) => worker.run());
  return {
    taskQueue,
    calls,
    async stopHost() {
      if (workers[2].getState() === 'RUNNING') workers[2].shutdown();
      await running[2];
    },
    async stop() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.all(running);
    },
  };
}

/** An activity that runs until the workflow cancels it (it heartbeats, so the cancellation reaches it). */
export async function untilCancelled(): Promise<never> {
  for (;;) {
    Context.current().heartbeat();
    await Promise.race([Context.current().cancelled, new Promise((resolveSleep) => setTimeout(resolveSleep, 100))]);
  }
}

/** Runs `body` with stubbed workers on `env`, stopped whatever happens. */
export async function withStubbedWorkers(
  env: TestWorkflowEnvironment,
  stubs: StubActivities,
  body: (workers: StubbedWorkers) => Promise<void>,
): Promise<void> {
  const workers = await startStubbedWorkers(env, stubs);
  try {
    await body(workers);
  } finally {
    await workers.stop();
  }
}

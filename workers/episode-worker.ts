import Dockerode from 'dockerode';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createEpisodeActivities, createHostActivities } from '../activities';
import { configuredStore } from '../activities/store/open-store';
import { createWorkerGateway } from './gateway';
import type { GatewayRequestTiming } from '../serving/gateway/server';
import { deploymentId, dockerHostId } from '../activities/sandbox/container';
import { hostCapacitySlots, hostSandboxes } from './host-capacity';
import { SearchAttributes } from '../shared/names/search-attributes';
import { createSandboxPool } from '../activities/sandbox/pool';
import { reapClosedEpisodes } from '../activities/sandbox/reaper';
import { storeLocation } from '../activities/store/open-store';
import { defaultTaskQueue, hostQueue, sandboxesQueue } from '../shared/names/task-queues';
import { codeVersion } from './code-version';
import { projectRoot, temporalConnection, type LoadedConfig } from './config';
import { createWorkerMetrics, serveMetrics } from './metrics';
import { workerIdentity } from './worker-identity';
import { cachedWorkflowBundle } from './workflow-bundle';

export interface EpisodeWorkerOptions {
  config: LoadedConfig;
  taskQueue?: string;
  /** @default workers/worker-identity.ts's: pid, machine, host id and the store's fingerprint */
  identity?: string;
  /** a prebuilt workflow bundle; else the checkout's, built once per code version (workers/workflow-bundle.ts) */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Serve sandbox acquisition and this host's queue (default). Off: orchestration only, e.g. a worker
   * on a machine without a Docker engine.
   * @default true
   */
  sandboxes?: boolean;
  /** stops the workers gracefully when aborted (the process's signals do too) */
  signal?: AbortSignal;
  /** told of every request the model gateway answered, with its timing (bench/gateway.ts reads them) */
  onGatewayRequest?: (timing: GatewayRequestTiming) => void;
  /** called once every worker polls (`metricsPort`: where the metrics are served, when they are) */
  onReady?: (info: { hostId: string; taskQueue: string; metricsPort?: number }) => void | Promise<void>;
}

/** One process serving a host: the episode workflows, sandbox acquisition, and this host's own queue. */
export async function runEpisodeWorker(options: EpisodeWorkerOptions): Promise<void> {
  const { config } = options;
  const taskQueue = options.taskQueue ?? defaultTaskQueue;
  const docker = new Dockerode();
  const hostId = await dockerHostId(docker, config.stateDir);
  if (config.worker.sdkMetricsPort !== undefined) installSdkMetrics(config.worker.sdkMetricsPort);
  const connection = await NativeConnection.connect(temporalConnection(config));
  const clientConnection = await Connection.connect(temporalConnection(config));
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  const deployment = deploymentId(config.temporal.address, config.temporal.namespace, taskQueue);
  // Prometheus metrics of this process's workers, when a port is configured
  const metrics =
    config.worker.metricsPort !== undefined ? createWorkerMetrics({ host: hostId, task_queue: taskQueue }) : null;
  // the warm sandbox pool, on a worker that makes sandboxes and is configured to keep one
  const pool =
    options.sandboxes !== false && config.sandbox.pool.size > 0
      ? createSandboxPool(docker, { deployment, hostId, settings: config.sandbox.pool })
      : undefined;
  await pool?.start();
  // the model gateway of the harnesses in this host's sandboxes: it sends their calls to their episodes as updates
  const gateway =
    options.sandboxes !== false
      ? createWorkerGateway(client, configuredStore(config), {
          ...(options.onGatewayRequest ? { onRequest: options.onGatewayRequest } : {}),
        })
      : undefined;
  const deps = {
    docker,
    config,
    hostId,
    projectRoot,
    deployment,
    codeVersion: codeVersion(),
    ...(metrics ? { observeStore: metrics.observeStore } : {}),
    ...(pool ? { pool } : {}),
    ...(gateway ? { gateway } : {}),
  };
  metrics?.watch({
    ...(pool ? { pool: () => pool.counts() } : {}),
    sandboxes: () => hostSandboxes(docker, deployment),
    parked: async () =>
      (
        await client.workflow.count(
          `WorkflowType = 'rolloutEpisode' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}' AND ` +
            `${SearchAttributes.phase.name} = 'parked'`,
        )
      ).count,
  });
  const served = metrics ? await serveMetrics(metrics.registry, config.worker.metricsPort!) : null;
  const common = {
    connection,
    namespace: config.temporal.namespace,
    identity: options.identity ?? workerIdentity(process.pid, hostId, storeLocation(config)),
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    ...(metrics ? { interceptors: { activity: [metrics.interceptor] } } : {}),
  };
  const hostActivities = createHostActivities(deps);
  const workers = [
    await Worker.create({
      ...common,
      taskQueue,
      workflowBundle: options.workflowBundle ?? (await cachedWorkflowBundle(deps.codeVersion)),
      activities: createEpisodeActivities(deps),
      maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    }),
  ];
  if (options.sandboxes !== false) {
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: sandboxesQueue(taskQueue),
        activities: { acquireSandbox: hostActivities.acquireSandbox },
        ...(config.worker.maxSandboxes !== undefined
          ? {
              maxConcurrentActivityTaskExecutions: undefined,
              tuner: {
                activityTaskSlotSupplier: hostCapacitySlots(docker, deployment, config.worker.maxSandboxes),
                workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
                localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
                nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
              },
            }
          : {}),
      }),
      await Worker.create({ ...common, taskQueue: hostQueue(taskQueue, hostId), activities: hostActivities }),
    );
  }
  const reap = async (): Promise<void> => {
    try {
      const { removedContainers } = await reapClosedEpisodes(docker, client, deployment);
      if (removedContainers.length)
        console.log(`reaper removed ${removedContainers.length} container(s) of closed episodes`);
    } catch (error) {
      console.error(`reaper failed: ${(error as Error).message}`);
    }
  };
  const reaper = setInterval(() => void reap(), config.worker.reapIntervalMs);
  const shutdown = () => workers.forEach((worker) => worker.getState() === 'RUNNING' && worker.shutdown());
  options.signal?.addEventListener('abort', shutdown, { once: true });
  try {
    const running = Promise.all(workers.map((worker) => worker.run()));
    await reap();
    await options.onReady?.({ hostId, taskQueue, ...(served ? { metricsPort: served.port } : {}) });
    await running;
  } finally {
    clearInterval(reaper);
    await gateway?.closeAll();
    await pool?.stop().catch((error: Error) => console.error(`sandbox pool: ${error.message}`));
    options.signal?.removeEventListener('abort', shutdown);
    await connection.close();
    await clientConnection.close();
    served?.server.close();
  }
}

/**
 * The Temporal SDK's own runtime metrics (task slots, poll and schedule-to-start latencies, sticky
 * cache, ...) on http://127.0.0.1:PORT/metrics, through its telemetry options. The runtime is installed
 * once per process, before its first connection: in a process that has one already (tests running
 * several workers) this says so and goes on without.
 */
function installSdkMetrics(port: number): void {
  if (Runtime._instance) {
    console.error(
      `worker.sdkMetricsPort ${port}: this process's Temporal runtime is installed already; no SDK metrics`,
    );
    return;
  }
  Runtime.install({
    telemetryOptions: {
      metrics: {
        prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, useSecondsForDurations: true },
      },
    },
  });
}

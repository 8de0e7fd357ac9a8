import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { AgentrlConfig } from '../../shared/contracts/config';
import type { SandboxHandle, TaskSummary } from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import { TaskSnapshot } from '../../shared/contracts/task-spec';
import type { ArtifactStore } from '../store/artifact-store';
import { createJournal } from '../tools/journal';
import {
  type ContainerOptions,
  createHardenedContainer,
  decodeFiles,
  labels,
  mountedVolumes,
  removeEpisodeSandboxes,
  removeSandbox,
  repoPath,
  repositoryTar,
  sandboxFor,
  sandboxName,
  spoolPath,
  spoolTar,
} from './container';
import { buildTar, isNotFound, readContainerFile } from './docker';
import type { createExecutorClient } from './executor';
import { ensureTaskImage, TaskImageError } from '../images/task-image';
import { ensureHarborImage } from '../images/harbor-image';
import type { PoolRecipe, SandboxPool } from './pool';
import { sweepAgentProcesses } from './sweep';
import { restoreTree, snapshotTree, TreeOverLimits, type TreeSnapshotRef } from './archive/tree-snapshot';

export interface SandboxDeps {
  docker: Dockerode;
  config: Pick<AgentrlConfig, 'sandbox'> & { stateDir: string };
  store: ArtifactStore;
  hostId: string;
  deployment: string;
  /** the tool-call journal of this host (tools/journal.ts), removed with the sandbox */
  journalDir: string;
  /** starts each sandbox's executor when `sandbox.executor` is `server` (executor.ts) */
  executorClient?: ReturnType<typeof createExecutorClient>;
  /** this worker's warm pool (pool.ts), when `sandbox.pool.size` is above 0 */
  pool?: SandboxPool;
}

export interface AcquireSandboxInput {
  workflowId: string;
  episodeId: string;
  runId: string;
  task: TaskSummary;
  /** a parked episode's next segment: its tree is restored from the snapshot instead of the task's repository */
  restore?: { snapshot: TreeSnapshotRef; segment: number };
  /** a harness started again after a crash: a container of its own, from the task's starting tree */
  launch?: number;
}

export interface ParkSandboxInput {
  sandbox: SandboxHandle;
  episodeId: string;
}

/** Lifecycle activities: acquire (idempotent by episode id) and release. */
export function createSandboxLifecycleActivities(deps: SandboxDeps) {
  const { docker, config, store, hostId, deployment } = deps;

  const treeBytes = (config.sandbox.workDiskMb + 16) * 1024 * 1024;
  // task snapshots are content-addressed: the same ref is the same snapshot
  const snapshots = new Map<string, TaskSnapshot>();
  async function snapshotOf(ref: string): Promise<TaskSnapshot> {
    const known = snapshots.get(ref);
    if (known) return known;
    const snapshot = await store.getJson(ref, TaskSnapshot);
    snapshots.set(ref, snapshot);
    if (snapshots.size > 64) snapshots.delete(snapshots.keys().next().value!);
    return snapshot;
  }

  async function acquire(input: AcquireSandboxInput): Promise<SandboxHandle> {
    // each segment of a parked episode gets a container of its own; every one is labelled with the episode
    const name = sandboxName(
      deployment,
      input.restore
        ? `${input.episodeId}#${input.restore.segment}`
        : input.launch
          ? `${input.episodeId}#launch-${input.launch}`
          : input.episodeId,
    );
    const existing = docker.getContainer(name);
    try {
      const info = await existing.inspect();
      // an agent's container, or one claimed from the warm pool (its volumes keep the pool's names)
      const role = info.Config.Labels?.[labels.role];
      if (info.State.Running && (role === 'agent' || role === 'pool') && (await isSeeded(existing))) {
        return { hostId, containerId: info.Id, containerName: name, volumes: mountedVolumes(info) };
      }
      // a half-made sandbox from an earlier attempt: start over
      await removeSandbox(docker, name, [...new Set([...mountedVolumes(info), ...ownVolumes(name)])]);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const snapshot = await snapshotOf(input.task.snapshotRef);
    const sandbox = sandboxFor(config.sandbox, snapshot.harbor?.resources);
    // the recipe of the warm pool's containers for this episode: same image, starting repository and limits
    const poolKey = createHash('sha256')
      .update(JSON.stringify([input.task.image, input.task.snapshotRef, { ...sandbox, pool: undefined }]))
      .digest('hex')
      .slice(0, 24);
    // a fresh episode takes a warm container of its recipe when the pool has one (a parked tree is restored cold)
    if (deps.pool && !input.restore) {
      const claimed = await deps.pool.claim(poolKey, name, {
        workflowId: input.workflowId,
        episodeId: input.episodeId,
        runId: input.runId,
      });
      if (claimed) {
        deps.executorClient?.rename(claimed.poolName, name);
        deps.pool.want(poolRecipe());
        return { hostId, containerId: claimed.containerId, containerName: name, volumes: claimed.volumes };
      }
    }
    // the task's image, built here on demand when its task has an environment and this host lacks it
    try {
      const build = snapshot.harbor?.build;
      if (build)
        // a Harbor task: its image is built here from the folder's environment/ when this host lacks it
        await ensureHarborImage(
          docker,
          {
            dir: `task ${snapshot.spec.id}`,
            environment: Object.entries(build.files).map(([path, file]) => ({
              path,
              content: Buffer.from(file.content, 'base64'),
              mode: file.mode,
            })),
            buildTimeoutMs: build.timeoutMs,
          },
          config.sandbox.image,
          (line) => Context.current().heartbeat(line),
        );
      else
        await ensureTaskImage(
          docker,
          { ...snapshot.spec, image: input.task.image },
          (line) => Context.current().heartbeat(line),
          snapshot.repo,
        );
    } catch (error) {
      if (error instanceof TaskImageError)
        throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.missingImage);
      throw error;
    }

    /** Creates, starts and seeds a container: helper scripts, executor, the starting repository (or a parked tree). */
    async function make(
      containerName: string,
      identity: Pick<ContainerOptions, 'workflowId' | 'episodeId' | 'runId' | 'role' | 'extraLabels'>,
    ): Promise<Dockerode.Container> {
      const { container, volumes } = await createHardenedContainer(docker, {
        name: containerName,
        deployment,
        image: input.task.image,
        ...identity,
        sandbox,
        ...(input.restore ? { workRoot: input.restore.snapshot.root } : {}),
      });
      try {
        await container.start();
        // files go in after start: the tmpfs volumes keep their content only while mounted
        await container.putArchive(await spoolTar(), { path: spoolPath });
        // the executor starts while the repository goes in; a sandbox without one runs its calls by docker exec
        const executorStarted =
          sandbox.executor === 'server' && deps.executorClient
            ? deps.executorClient.start(containerName).then(
                (started) => {
                  if (!started.channel)
                    warn('sandbox executor unavailable; tool calls use docker exec', {
                      container: containerName,
                      reason: started.reason,
                    });
                },
                (error: unknown) =>
                  warn('sandbox executor did not start; tool calls use docker exec', {
                    container: containerName,
                    error: (error as Error).message,
                  }),
              )
            : Promise.resolve();
        if (input.restore) {
          // the tree as it was parked, checked against the snapshot's digest once it is in place
          await restoreTree(docker, container, store, input.restore.snapshot.ref, treeBytes);
        } else {
          const repoTar = await repositoryTar(
            decodeFiles(snapshot.repo),
            sandbox.uid,
            config.stateDir,
            input.task.snapshotRef,
            snapshot.harbor?.executables,
          );
          await container.putArchive(repoTar, { path: repoPath });
        }
        await executorStarted;
        // the executor starts its warm interpreter now that the repository is in (a .pth file may name a folder of it)
        if (sandbox.executor === 'server' && sandbox.warmPython) await deps.executorClient?.ping(containerName);
      } catch (error) {
        // a sandbox that could not be made whole is not left behind (a retry starts over)
        deps.executorClient?.forget(containerName);
        await removeSandbox(docker, containerName, volumes).catch(() => undefined);
        throw error;
      }
      return container;
    }

    function poolRecipe(): PoolRecipe {
      return {
        key: poolKey,
        make: async (poolName, poolLabel) => {
          await make(poolName, {
            workflowId: '',
            episodeId: '',
            runId: '',
            role: 'pool',
            extraLabels: { [labels.pool]: poolLabel },
          });
        },
      };
    }
    // the pool makes this recipe from now on (its image is here now)
    if (deps.pool && !input.restore) deps.pool.want(poolRecipe());
    const container = await make(name, {
      workflowId: input.workflowId,
      episodeId: input.episodeId,
      runId: input.runId,
      role: 'agent',
    });
    try {
      await container.putArchive(
        await buildTar([{ path: '.seeded', content: Buffer.from(input.episodeId), mode: 0o444 }], { uid: 0, gid: 0 }),
        { path: spoolPath },
      );
    } catch (error) {
      await removeSandbox(docker, name, ownVolumes(name)).catch(() => undefined);
      throw error;
    }
    const info = await container.inspect();
    return { hostId, containerId: info.Id, containerName: name, volumes: mountedVolumes(info) };
  }

  return {
    /** Creates and starts the episode's hardened container with the task repository inside. */
    acquireSandbox: async (input: AcquireSandboxInput): Promise<SandboxHandle> => {
      const heartbeat = setInterval(() => Context.current().heartbeat('acquiring'), 1000);
      try {
        return await acquire(input);
      } finally {
        clearInterval(heartbeat);
      }
    },

    /**
     * Saves the sandbox's repository tree in the store (tree-snapshot.ts), after sweeping the agent's
     * processes; the caller then releases the sandbox. The same tree gives the same snapshot, so a
     * retry is harmless.
     */
    async parkSandbox(input: ParkSandboxInput): Promise<TreeSnapshotRef> {
      const heartbeat = setInterval(() => Context.current().heartbeat('snapshotting'), 1000);
      try {
        await sweepAgentProcesses(docker, input.sandbox.containerName, config.sandbox.uid);
        return await snapshotTree(
          docker.getContainer(input.sandbox.containerName),
          store,
          treeBytes,
          config.sandbox.workDiskMb * 1024 * 1024,
        );
      } catch (error) {
        // the agent's tree, not the environment: the episode ends as its failure (workflows/episode/parking.ts)
        if (error instanceof TreeOverLimits)
          throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.treeOverLimits);
        throw error;
      } finally {
        clearInterval(heartbeat);
      }
    },

    /**
     * Removes every container and volume of the episode (agent, graders of every attempt) and its journal; safe to call
     * twice.
     */
    async releaseSandbox(input: { sandbox: SandboxHandle; episodeId: string }): Promise<void> {
      deps.executorClient?.forget(input.sandbox.containerName);
      await removeSandbox(docker, input.sandbox.containerName, input.sandbox.volumes);
      await removeEpisodeSandboxes(docker, deployment, input.episodeId);
      await rm(createJournal(deps.journalDir).folder(input.episodeId), { recursive: true, force: true });
    },
  };
}

/** The activity's logger, or stderr for a container the warm pool makes outside any activity. */
function warn(message: string, attributes: Record<string, unknown>): void {
  try {
    log.warn(message, attributes);
  } catch {
    console.error(`${message} ${JSON.stringify(attributes)}`);
  }
}

/** The volumes a sandbox made under this name has (one claimed from the pool has its pool name's). */
const ownVolumes = (name: string) => [`${name}-work`, `${name}-spool`];

async function isSeeded(container: Dockerode.Container): Promise<boolean> {
  return (await readContainerFile(container, `${spoolPath}/.seeded`)) !== null;
}

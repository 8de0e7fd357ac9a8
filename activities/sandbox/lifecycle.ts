import { rm } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { AgentrlConfig } from '../../shared/config';
import type { SandboxHandle, TaskSummary } from '../../shared/episode';
import { ErrorTypes } from '../../shared/errors';
import { TaskSnapshot } from '../../shared/task-spec';
import type { ArtifactStore } from '../store/artifact-store';
import { createJournal } from '../tools/journal';
import {
  createHardenedContainer,
  decodeFiles,
  labels,
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
import { ensureTaskImage, TaskImageError } from './task-image';
import { ensureHarborImage } from './harbor-image';
import { sweepAgentProcesses } from './sweep';
import { restoreTree, snapshotTree, TreeOverLimits, type TreeSnapshotRef } from './tree-snapshot';

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
}

export interface AcquireSandboxInput {
  workflowId: string;
  episodeId: string;
  runId: string;
  task: TaskSummary;
  /** a parked episode's next segment: its tree is restored from the snapshot instead of the task's repository */
  restore?: { snapshot: TreeSnapshotRef; segment: number };
}

export interface ParkSandboxInput {
  sandbox: SandboxHandle;
  episodeId: string;
}

/** Lifecycle activities: acquire (idempotent by episode id) and release. */
export function createSandboxLifecycleActivities(deps: SandboxDeps) {
  const { docker, config, store, hostId, deployment } = deps;

  const treeBytes = (config.sandbox.workDiskMb + 16) * 1024 * 1024;

  async function acquire(input: AcquireSandboxInput): Promise<SandboxHandle> {
    // each segment of a parked episode gets a container of its own; every one is labelled with the episode
    const name = sandboxName(
      deployment,
      input.restore ? `${input.episodeId}#${input.restore.segment}` : input.episodeId,
    );
    const volumes = [`${name}-work`, `${name}-spool`];
    const existing = docker.getContainer(name);
    try {
      const info = await existing.inspect();
      if (info.State.Running && info.Config.Labels?.[labels.role] === 'agent' && (await isSeeded(existing))) {
        return { hostId, containerId: info.Id, containerName: name, volumes };
      }
      // a half-made sandbox from an earlier attempt: start over
      await removeSandbox(docker, name, volumes);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    // the task's image, built here on demand when its task has an environment and this host lacks it
    const snapshot = await store.getJson(input.task.snapshotRef, TaskSnapshot);
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
    const { container } = await createHardenedContainer(docker, {
      name,
      deployment,
      image: input.task.image,
      workflowId: input.workflowId,
      episodeId: input.episodeId,
      runId: input.runId,
      role: 'agent',
      sandbox: sandboxFor(config.sandbox, snapshot.harbor?.resources),
      ...(input.restore ? { workRoot: input.restore.snapshot.root } : {}),
    });
    try {
      await container.start();
      // files go in after start: the tmpfs volumes keep their content only while mounted
      await container.putArchive(await spoolTar(), { path: spoolPath });
      // the executor starts while the repository goes in; a sandbox without one runs its calls by docker exec
      const executorStarted =
        config.sandbox.executor === 'server' && deps.executorClient
          ? deps.executorClient.start(name).then(
              (started) => {
                if (!started.channel)
                  log.warn('sandbox executor unavailable; tool calls use docker exec', {
                    container: name,
                    reason: started.reason,
                  });
              },
              (error: unknown) =>
                log.warn('sandbox executor did not start; tool calls use docker exec', {
                  container: name,
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
          config.sandbox.uid,
          config.stateDir,
          input.task.snapshotRef,
          snapshot.harbor?.executables,
        );
        await container.putArchive(repoTar, { path: repoPath });
      }
      await executorStarted;
      await container.putArchive(
        await buildTar([{ path: '.seeded', content: Buffer.from(input.episodeId), mode: 0o444 }], { uid: 0, gid: 0 }),
        { path: spoolPath },
      );
    } catch (error) {
      // a sandbox that could not be made whole is not left behind (a retry starts over)
      await removeSandbox(docker, name, volumes).catch(() => undefined);
      throw error;
    }
    const info = await container.inspect();
    return { hostId, containerId: info.Id, containerName: name, volumes };
  }

  return {
    /** Creates and starts the episode's hardened container with the task repository inside. */
    async acquireSandbox(input: AcquireSandboxInput): Promise<SandboxHandle> {
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

async function isSeeded(container: Dockerode.Container): Promise<boolean> {
  return (await readContainerFile(container, `${spoolPath}/.seeded`)) !== null;
}

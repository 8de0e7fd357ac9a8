import type Dockerode from 'dockerode';
import type { Client } from '@temporalio/client';
import { isNotFound, removeContainer } from './docker';
import { labels } from './container';
import { readClaim } from './pool';

/** Workflow ids of sandboxes made outside any workflow (e.g. `task validate`) start with this. */
export const localWorkflowPrefix = 'local:';
/** The deployment of sandboxes made outside workflows. */
export const localDeployment = 'local';
const localGraceMs = 60 * 60 * 1000;
/** A pool volume without its container is removed once this old (it may be one being made right now). */
const poolVolumeGraceMs = 10 * 60 * 1000;

/**
 * Removes the containers and volumes of episodes that are closed (or unknown to the server).
 * Sandboxes made outside workflows are removed once they are an hour old. A warm pool's containers are left to their
 * worker until claimed; a claimed one goes with its episode.
 */
export async function reapClosedEpisodes(
  docker: Dockerode,
  client: Client,
  deployment: string,
): Promise<{ removedContainers: string[]; removedVolumes: string[] }> {
  // only this deployment's sandboxes: another server's episodes are unknown here, not closed
  const filter = { label: [`${labels.episode}=${deployment}`] };
  const containers = [
    ...(await docker.listContainers({ all: true, filters: filter })),
    ...(await docker.listContainers({ all: true, filters: { label: [`${labels.episode}=${localDeployment}`] } })),
  ];
  const volumes = [
    ...((await docker.listVolumes({ filters: filter })).Volumes ?? []),
    ...((await docker.listVolumes({ filters: { label: [`${labels.episode}=${localDeployment}`] } })).Volumes ?? []),
  ];
  const closed = new Map<string, boolean>();
  const isClosed = async (workflowId: string, createdMs: number): Promise<boolean> => {
    if (workflowId.startsWith(localWorkflowPrefix)) return Date.now() - createdMs > localGraceMs;
    const known = closed.get(workflowId);
    if (known !== undefined) return known;
    let result: boolean;
    try {
      const description = await client.workflow.getHandle(workflowId).describe();
      result = description.status.name !== 'RUNNING';
    } catch (error) {
      if ((error as Error).name !== 'WorkflowNotFoundError') throw error;
      result = true;
    }
    closed.set(workflowId, result);
    return result;
  };
  const removedContainers: string[] = [];
  const removedVolumes: string[] = [];
  const removeVolume = async (name: string): Promise<void> => {
    try {
      await docker.getVolume(name).remove();
      removedVolumes.push(name);
    } catch (error) {
      // a volume still used by a container that is being removed; the next pass takes it
      if (!isNotFound(error) && (error as { statusCode?: number }).statusCode !== 409) throw error;
    }
  };
  for (const info of containers) {
    const name = info.Names[0]?.replace(/^\//, '') ?? info.Id;
    let workflowId = info.Labels[labels.workflowId] ?? '';
    const pooled = info.Labels[labels.role] === 'pool';
    if (pooled) {
      // a warm pool's container (pool.ts): its worker's until claimed, then its claim record says whose it is
      const claim = await readClaim(docker.getContainer(info.Id));
      if (!claim) continue;
      workflowId = claim.workflowId;
    }
    if (!(await isClosed(workflowId, info.Created * 1000))) continue;
    if (await removeContainer(docker, info.Id)) removedContainers.push(name);
    // its volumes carry the pool's labels, not the episode's
    if (pooled) for (const mount of info.Mounts ?? []) if (mount.Name) await removeVolume(mount.Name);
  }
  for (const volume of volumes) {
    const created = Date.parse((volume as { CreatedAt?: string }).CreatedAt ?? '') || 0;
    if (volume.Labels?.[labels.role] === 'pool') {
      // a pool volume whose container is gone (a worker killed while making it); one in use answers 409
      if (Date.now() - created > poolVolumeGraceMs) await removeVolume(volume.Name);
      continue;
    }
    const workflowId = volume.Labels?.[labels.workflowId] ?? '';
    if (!(await isClosed(workflowId, created))) continue;
    await removeVolume(volume.Name);
  }
  return { removedContainers, removedVolumes };
}

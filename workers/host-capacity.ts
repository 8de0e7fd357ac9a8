import type Dockerode from 'dockerode';
import type { CustomSlotSupplier, SlotPermit, ActivitySlotInfo } from '@temporalio/worker';
import { labels } from '../activities/sandbox/container';
import { poolNamePrefix } from '../activities/sandbox/pool';

/**
 * The capacity of a sandbox host (`worker.maxSandboxes`): the slot supplier of the worker that takes
 * acquisitions (the sandboxes' queue). It grants a slot, and so polls for an acquisition, only while
 * the host's running episode sandboxes plus the slots granted stay under the cap; a full host stops
 * taking acquisitions and the other hosts take them. Sandboxes are counted from the Docker daemon
 * (this deployment's agent containers that are running), so a restarted worker counts what its host
 * already runs. Parked episodes hold no container and count for nothing.
 */
export function hostCapacitySlots(
  docker: Dockerode,
  deployment: string,
  maxSandboxes: number,
  pollMs = 1_000,
): CustomSlotSupplier<ActivitySlotInfo> {
  let granted = 0;
  const fits = async (): Promise<boolean> => {
    try {
      return (await hostSandboxes(docker, deployment)) + granted < maxSandboxes;
    } catch {
      return false; // a daemon that does not answer takes no acquisitions
    }
  };
  return {
    type: 'custom',
    async reserveSlot(_context, abortSignal): Promise<SlotPermit> {
      for (;;) {
        if (abortSignal.aborted) throw abortError();
        if (await fits()) {
          granted++;
          return {};
        }
        await new Promise<void>((resolveWait, rejectWait) => {
          const timer = setTimeout(resolveWait, pollMs);
          abortSignal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              rejectWait(abortError());
            },
            { once: true },
          );
        });
      }
    },
    tryReserveSlot() {
      return null; // eager tasks would skip the count: acquisitions always come through a poll
    },
    markSlotUsed() {},
    releaseSlot() {
      granted = Math.max(0, granted - 1);
    },
  };
}

function abortError(): Error {
  const error = new Error('slot reservation aborted');
  error.name = 'AbortError';
  return error;
}

/** This deployment's episode sandboxes on a host (agent containers created or running). */
export async function hostSandboxes(docker: Dockerode, deployment: string): Promise<number> {
  const ofRole = (role: string) =>
    docker.listContainers({
      filters: { label: [`${labels.episode}=${deployment}`, `${labels.role}=${role}`], status: ['running', 'created'] },
    });
  const [agents, pooled] = await Promise.all([ofRole('agent'), ofRole('pool')]);
  // a warm pool's container counts once an episode has claimed it (it then has the episode's sandbox name)
  return (
    agents.length + pooled.filter((info) => !info.Names.some((name) => name.startsWith(`/${poolNamePrefix}`))).length
  );
}

/** Every deployment's sandboxes on a host, by kind (`npx agentrl status`): episodes', graders' and the warm pools'. */
export async function hostSandboxCounts(
  docker: Dockerode,
): Promise<{ episodes: number; graders: number; poolReady: number }> {
  const containers = await docker.listContainers({
    filters: { label: [labels.episode], status: ['running', 'created'] },
  });
  const counts = { episodes: 0, graders: 0, poolReady: 0 };
  for (const info of containers) {
    const role = info.Labels[labels.role];
    const unclaimed = info.Names.some((name) => name.startsWith(`/${poolNamePrefix}`));
    if (role === 'agent' || (role === 'pool' && !unclaimed)) counts.episodes += 1;
    else if (role === 'pool') counts.poolReady += 1;
    else counts.graders += 1;
  }
  return counts;
}

/**
 * The activity proxies of an episode, each with its timeouts and retries and the reason for them:
 * records on the workflow's own queue, acquisition on the sandboxes' queue, and every activity on
 * a container on the queue of the host that owns it.
 */
import { CancellationScope, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EpisodeActivities, HostActivities } from '../../activities';
import { type SandboxHandle } from '../../shared/contracts/episode';
import { type EpisodeInput } from '../../shared/contracts/episode-input';
import { ErrorTypes } from '../../shared/names/errors';
import { hostQueue, sandboxesQueue } from '../../shared/names/task-queues';

// on the workflow's own task queue: any worker of this deployment can run them
/** How long a turn may run past the episode's deadline before the episode gives up on it. */
export const deadlineMarginMs = 30_000;

export const records = proxyActivities<EpisodeActivities>({
  // file-system work and a policy server's description: a minute is generous; the retries (about a
  // minute and a half in all) cover a worker restart and a policy server that is being restarted
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 12 },
});

/** Acquires a sandbox on any host (a parked episode's next segment: restored from its snapshot). */
export async function acquireSandbox(
  input: EpisodeInput,
  request: Parameters<HostActivities['acquireSandbox']>[0],
): Promise<SandboxHandle> {
  const acquire = proxyActivities<HostActivities>({
    taskQueue: sandboxesQueue(workflowInfo().taskQueue),
    startToCloseTimeout: input.timeouts.acquireMs,
    heartbeatTimeout: input.timeouts.heartbeatMs,
    // acquisition is idempotent by episode id (and segment), so a retry finds the container an earlier attempt made
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: [ErrorTypes.missingImage] },
  });
  // not cancellable: a cancellation during acquisition would leave a container nobody releases;
  // it takes effect at the first turn, and the release runs
  return CancellationScope.nonCancellable(() => acquire.acquireSandbox(request));
}

export type Host = ReturnType<typeof hostActivities>;

/** Activities on the sandbox's own host queue. */
export function hostActivities(input: EpisodeInput, sandbox: SandboxHandle) {
  const common = {
    taskQueue: hostQueue(workflowInfo().taskQueue, sandbox.hostId),
    // a host that vanished never picks up its queue: after this wait the sandbox counts as lost
    scheduleToStartTimeout: input.timeouts.hostScheduleToStartMs,
    // a worker killed mid-call stops heartbeating; its retry on the restarted worker finds the journal
    heartbeatTimeout: input.timeouts.heartbeatMs,
  };
  /** A turn may not outlive the episode's deadline: the server enforces it, so no timer is needed per turn. */
  const turn = (remainingMs: number) =>
    proxyActivities<HostActivities>({
      ...common,
      startToCloseTimeout: input.budgets.toolTimeoutMs + 120_000,
      // the tool's own timeout is cut to the deadline; the margin covers start-up, recording and retries
      scheduleToCloseTimeout: remainingMs + deadlineMarginMs,
      // enough attempts for a worker restart or a daemon hiccup; a fault that persists ends the episode as
      // sandbox_crash (an environment failure) well before the deadline turns it into a trainable timeout
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 6 },
    }).takeTurn;
  const scoring = proxyActivities<HostActivities>({
    ...common,
    // two test runs, container start-up and the archive copy
    startToCloseTimeout: input.budgets.testTimeoutMs * 2 + 180_000,
    retry: {
      initialInterval: '2s',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [ErrorTypes.graderError, ErrorTypes.sandboxCrash],
    },
  });
  const release = proxyActivities<HostActivities>({
    ...common,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 5 },
  });
  // saving the tree reads the repository out through the archive API: seconds, a minute at most
  const park = proxyActivities<HostActivities>({
    ...common,
    startToCloseTimeout: '5 minutes',
    retry: { maximumAttempts: 5 },
  });
  return {
    takeTurn: turn,
    scoreSubmission: scoring.scoreSubmission,
    probeSubmission: scoring.probeSubmission,
    releaseSandbox: release.releaseSandbox,
    parkSandbox: park.parkSandbox,
  };
}

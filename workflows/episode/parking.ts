/**
 * Parking: at the end of a segment the tree is saved to the store and the container released; the
 * episode waits, holding nothing, for a resume (or a release, or its time to live); the resume
 * restores the tree into a fresh container on any host, with the version it names.
 */
import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  defaultParkTtlMs,
  type EpisodeProgress,
  type EpisodeState,
  type SandboxHandle,
} from '../../shared/contracts/episode';
import { type EpisodeInput } from '../../shared/contracts/episode-input';
import { servedPolicyKinds } from '../../shared/contracts/policy-spec';
import { SearchAttributes } from '../../shared/names/search-attributes';
import { messageOf } from './failures';
import { acquireSandbox, records, type Host } from './proxies';
import { report, type Control } from './results';

/** Saves the tree, releases the container and marks the episode parked; the acting time left is kept. */
export async function parkSandbox(
  input: EpisodeInput,
  episode: EpisodeState,
  host: Host,
  progress: EpisodeProgress,
  episodeId: string,
): Promise<void> {
  progress.phase = 'parking';
  // a harness episode parks at a call boundary with its calls recorded: its resume starts the harness again from the
  // task's starting tree and replays them, so no tree is saved
  const snapshot = input.harness ? undefined : await host.parkSandbox({ sandbox: episode.sandbox, episodeId });
  // the snapshot is in the store: from here on the container may go, even on cancellation
  episode.parked = {
    ...(snapshot ? { snapshot } : {}),
    actingLeftMs: Math.max(0, episode.deadlineAtMs - Date.now()),
    atMs: Date.now(),
  };
  episode.parks = (episode.parks ?? 0) + 1;
  progress.parks = episode.parks;
  await CancellationScope.nonCancellable(() => host.releaseSandbox({ sandbox: episode.sandbox, episodeId })).catch(
    (error: unknown) =>
      log.warn('sandbox release after parking failed; the reaper will remove it', {
        error: messageOf(error),
        container: episode.sandbox.containerName,
      }),
  );
  upsertSearchAttributes([{ key: SearchAttributes.phase, value: 'parked' }]);
  progress.phase = 'parked';
  log.info('episode parked', { turns: episode.counters.turns, snapshot: snapshot?.ref, entries: snapshot?.entries });
  await report(input, {
    kind: 'parked',
    workflowId: workflowInfo().workflowId,
    version: episode.policy.version,
    turns: episode.counters.turns,
  });
}

/** Waits, holding no container, for a resume or a release; a parked episode past its time to live is released. */
export async function waitParked(
  input: EpisodeInput,
  episode: EpisodeState,
  progress: EpisodeProgress,
  control: Control,
): Promise<{ release: string | null }> {
  progress.phase = 'parked';
  const ttlMs = episode.segment?.parkTtlMs ?? defaultParkTtlMs;
  const leftMs = Math.max(0, (episode.parked?.atMs ?? Date.now()) + ttlMs - Date.now());
  const woke = await condition(() => control.resume !== null || control.release !== null, leftMs);
  if (control.release !== null) return { release: `released while parked: ${control.release}` };
  if (!woke) return { release: `parked for longer than its time to live of ${ttlMs} ms` };
  return { release: null };
}

/** A fresh hardened container restored from the snapshot, on any host, with the version the resume names. */
export async function resumeParked(
  input: EpisodeInput,
  episode: EpisodeState,
  progress: EpisodeProgress,
  control: Control,
  episodeId: string,
): Promise<{ ok: true } | { ok: false; detail: string }> {
  const request = control.resume!;
  control.resume = null;
  progress.phase = 'resuming';
  // a new segment budget replaces the one in force; its time to live stays unless it states one
  if (request.segment !== undefined) {
    const ttl = episode.segment?.parkTtlMs;
    episode.segment =
      request.segment === null ? null : { ...(ttl === undefined ? {} : { parkTtlMs: ttl }), ...request.segment };
    progress.segmented = Boolean(episode.segment);
  }
  const version =
    request.policyVersion ?? (request.newest ? await records.currentPolicyVersion({ policy: episode.policy }) : null);
  if (version && servedPolicyKinds.includes(episode.policy.kind)) {
    episode.policy = { ...episode.policy, version };
    control.version = version;
  }
  const parked = episode.parked!;
  const segment = (episode.segmentState?.index ?? 0) + 1;
  const started = Date.now();
  let sandbox: SandboxHandle;
  try {
    sandbox = await acquireSandbox(input, {
      workflowId: workflowInfo().workflowId,
      episodeId,
      runId: input.runId,
      task: episode.task,
      ...(parked.snapshot
        ? { restore: { snapshot: parked.snapshot, segment } }
        : { launch: episode.harness?.launches ?? segment }),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // the snapshot stays: the episode is not parked any more, and nothing is left to release
    episode.parked = undefined;
    return { ok: false, detail: `restoring the parked sandbox failed: ${messageOf(error)}` };
  }
  episode.sandbox = sandbox;
  progress.host = sandbox.hostId;
  if (episode.hosts && episode.hosts.at(-1) !== sandbox.hostId) episode.hosts.push(sandbox.hostId);
  episode.parked = undefined;
  if (episode.timings) episode.timings.acquireMs += Date.now() - started;
  // parked time never counts: the deadline is what was left of the acting time
  episode.deadlineAtMs = Date.now() + parked.actingLeftMs;
  episode.segmentState = { index: segment, turns: 0, actedMs: 0 };
  upsertSearchAttributes([{ key: SearchAttributes.phase, value: 'running' }]);
  progress.phase = 'running';
  log.info('episode resumed', { segment, version: episode.policy.version, host: sandbox.hostId });
  await report(input, { kind: 'resumed', workflowId: workflowInfo().workflowId, version: episode.policy.version });
  return { ok: true };
}

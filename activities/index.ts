import { join } from 'node:path';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../shared/contracts/config';
import { createScoringActivities } from './checker/scoring';
import { createHarnessActivities, type HarnessGateway } from './gateway/harness-activities';
import { createExecutorClient } from './sandbox/executor';
import { createSandboxLifecycleActivities } from './sandbox/lifecycle';
import type { SandboxPool } from './sandbox/pool';
import type { ArtifactStore } from './store/artifact-store';
import { configuredStore } from './store/open-store';
import { createEpisodeRecordActivities } from './store/episode-records';
import { createPrepareEpisodeActivities } from './tasks/prepare-episode';
import { createToolCallActivities } from './tools/take-turn';
import { createBuildBatchActivities } from './training/build-batch';
import { createRunActivities } from './training/run-activities';

/**
 * The activities, grouped by concept:
 *   store/     the artifact store and the episode records (their one owner)
 *   tasks/     task folders: loading, validation, an episode's preparation
 *   policies/  policy kinds, the token-level policy, the completions client, the agent interfaces
 *   sandbox/   the hardened container, its lifecycle and warm pool, the in-sandbox runner and executor, the sweep,
 *              the reaper
 *   tools/     the turn: policy action → tool call, exactly once (the journal), the observation
 *   checker/   scoring: the agent's changes, graders in fresh containers, the audit, tamper detection, the cache
 *   training/  the run's folder, batches (safetensors), metrics and report
 * The policy server is not an activity: it lives in serving/.
 */

export interface ActivityDeps {
  docker: Dockerode;
  config: Pick<AgentrlConfig, 'sandbox'> &
    Partial<Pick<AgentrlConfig, 'grading' | 'store'>> & { stateDir: string; artifactsDir: string };
  hostId: string;
  projectRoot: string;
  /** see deploymentId() in sandbox/container.ts */
  deployment: string;
  /** recorded in training runs' manifests */
  codeVersion: string;
  /** wraps the store the activities use (the worker's metrics count its traffic) */
  observeStore?: (store: ArtifactStore) => ArtifactStore;
  /** the worker's warm sandbox pool (sandbox/pool.ts), when it keeps one */
  pool?: SandboxPool;
  /** the model gateway harnesses on this host call (serving/gateway/server.ts), on a worker that makes sandboxes */
  gateway?: HarnessGateway;
}

const storeOf = (deps: ActivityDeps): ArtifactStore => {
  const store = configuredStore(deps.config);
  return deps.observeStore ? deps.observeStore(store) : store;
};

/** Activities that any worker may run (no sandbox involved): preparation, records, the run's folder and batches. */
export function createEpisodeActivities(deps: ActivityDeps) {
  const store = storeOf(deps);
  return {
    ...createPrepareEpisodeActivities({
      store,
      docker: deps.docker,
      projectRoot: deps.projectRoot,
      defaultImage: deps.config.sandbox.image,
    }),
    ...createEpisodeRecordActivities({ store }),
    ...createRunActivities({
      projectRoot: deps.projectRoot,
      store,
      codeVersion: deps.codeVersion,
    }),
    ...createBuildBatchActivities({ store }),
    ...pick(createHarnessActivities({ docker: deps.docker, store, uid: deps.config.sandbox.uid }), [
      'generateCall',
      'recordHarnessTurns',
    ]),
  };
}

/** Activities bound to this host's Docker engine: acquisition, turns, scoring, release. */
export function createHostActivities(deps: ActivityDeps) {
  const store = storeOf(deps);
  const journalDir = join(deps.config.stateDir, 'journal');
  // one client per worker: the lifecycle starts each sandbox's executor, the turns reach it
  const executorClient = createExecutorClient(deps.docker, deps.config.sandbox.uid, {
    warmPython: deps.config.sandbox.warmPython,
  });
  const lifecycle = createSandboxLifecycleActivities({
    docker: deps.docker,
    config: deps.config,
    store,
    hostId: deps.hostId,
    deployment: deps.deployment,
    journalDir,
    executorClient,
    ...(deps.pool ? { pool: deps.pool } : {}),
  });
  const tools = createToolCallActivities({
    docker: deps.docker,
    store,
    journalDir,
    uid: deps.config.sandbox.uid,
    executor: deps.config.sandbox.executor,
    executorClient,
  });
  const scoring = createScoringActivities({
    docker: deps.docker,
    store,
    sandbox: deps.config.sandbox,
    deployment: deps.deployment,
    runInAgentSandbox: tools.runCheckCommand,
    cacheResults: deps.config.grading?.cacheResults ?? true,
    unsafeDisable: deps.config.grading?.unsafeDisable ?? [],
    ...(deps.pool ? { pool: deps.pool } : {}),
  });
  return {
    ...lifecycle,
    takeTurn: tools.takeTurn,
    scoreSubmission: scoring.scoreSubmission,
    probeSubmission: scoring.probeSubmission,
    runHarness: createHarnessActivities({
      docker: deps.docker,
      store,
      uid: deps.config.sandbox.uid,
      ...(deps.gateway ? { gateway: deps.gateway } : {}),
    }).runHarness,
  };
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

export type EpisodeActivities = ReturnType<typeof createEpisodeActivities>;
export type HostActivities = ReturnType<typeof createHostActivities>;
export type { ScoreSummary } from './checker/scoring';
export type { BatchEpisode, BuildBatchInput, BuiltBatch } from './training/build-batch';

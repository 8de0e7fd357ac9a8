import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../shared/config';
import { createArtifactStore } from './artifact-store';
import { createEpisodeRecordActivities } from './episode-records';
import { createSandboxLifecycleActivities } from './sandbox-lifecycle';
import { createScoringActivities } from './scoring';
import { createToolCallActivities } from './tool-calls';
import { createTrainingRunActivities } from './training-run';
import { join } from 'node:path';

export interface ActivityDeps {
  docker: Dockerode;
  config: Pick<AgentrlConfig, 'sandbox'> & Partial<Pick<AgentrlConfig, 'grading'>> & { stateDir: string; artifactsDir: string };
  hostId: string;
  projectRoot: string;
  /** see deploymentId() */
  deployment: string;
  /** recorded in training runs' manifests */
  codeVersion: string;
}

/** Activities that any worker may run (no sandbox involved). */
export function createEpisodeActivities(deps: ActivityDeps) {
  const store = createArtifactStore(deps.config.artifactsDir);
  return {
    ...createEpisodeRecordActivities({ store, projectRoot: deps.projectRoot, defaultImage: deps.config.sandbox.image }),
    ...createTrainingRunActivities({ store, projectRoot: deps.projectRoot, artifactsDir: deps.config.artifactsDir, codeVersion: deps.codeVersion }),
  };
}

/** Activities bound to this host's Docker engine: acquisition, turns, scoring, release. */
export function createHostActivities(deps: ActivityDeps) {
  const store = createArtifactStore(deps.config.artifactsDir);
  const journalDir = join(deps.config.stateDir, 'journal');
  const lifecycle = createSandboxLifecycleActivities({ docker: deps.docker, config: deps.config, store, hostId: deps.hostId, deployment: deps.deployment, journalDir });
  const tools = createToolCallActivities({ docker: deps.docker, store, journalDir, uid: deps.config.sandbox.uid });
  const scoring = createScoringActivities({ docker: deps.docker, store, sandbox: deps.config.sandbox, deployment: deps.deployment, runInAgentSandbox: tools.runCheckCommand, cacheResults: deps.config.grading?.cacheResults ?? true });
  return { ...lifecycle, takeTurn: tools.takeTurn, scoreSubmission: scoring.scoreSubmission, probeSubmission: scoring.probeSubmission };
}

export type EpisodeActivities = ReturnType<typeof createEpisodeActivities>;
export type HostActivities = ReturnType<typeof createHostActivities>;
export type { TurnSummary } from './tool-calls';
export type { ScoreSummary } from './scoring';

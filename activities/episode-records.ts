import { isAbsolute, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { PolicySummary, TaskSummary } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { defaultProtectedPaths } from '../shared/protected-paths';
import { countByteTokens } from '../shared/tokenizer';
import { episodeKey, type ArtifactStore } from './artifact-store';
import { preparePolicy } from './policies';
import { loadTaskFolder, TaskError } from './task-loader';

export interface EpisodeRecordDeps {
  store: ArtifactStore;
  projectRoot: string;
  defaultImage: string;
}

/** Activities that need no sandbox: task and policy snapshots, and the trajectory file. */
export function createEpisodeRecordActivities(deps: EpisodeRecordDeps) {
  const { store } = deps;
  return {
    /** Validates the task and the policy and snapshots both into the artifact store. */
    async prepareEpisode(input: { task: string; policy: string; sampling?: unknown }): Promise<{ task: TaskSummary; policy: PolicySummary }> {
      const dir = isAbsolute(input.task) ? input.task : resolve(deps.projectRoot, input.task);
      let loaded;
      try {
        loaded = loadTaskFolder(dir, deps.defaultImage);
      } catch (error) {
        if (error instanceof TaskError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.invalidTask);
        throw error;
      }
      const { snapshot } = loaded;
      const snapshotRef = await store.putJson(snapshot);
      const policy = await preparePolicy(input.policy, store, deps.projectRoot, input.sampling);
      return {
        task: {
          id: snapshot.spec.id,
          snapshotRef,
          image: snapshot.spec.image,
          testCommand: snapshot.spec.testCommand,
          protectedPaths: snapshot.spec.protectedPaths ?? [...defaultProtectedPaths],
          hasOracle: loaded.hasOracle,
          promptTokens: countByteTokens(snapshot.spec.prompt),
          promptRef: await store.putBlob(snapshot.spec.prompt),
          ...(snapshot.spec.budgets?.maxTurns ? { maxTurns: snapshot.spec.budgets.maxTurns } : {}),
          ...(snapshot.spec.budgets?.maxTokens ? { maxTokens: snapshot.spec.budgets.maxTokens } : {}),
        },
        policy,
      };
    },

    /** Writes the trajectory as JSONL, one line per turn with the action and observation texts. */
    async writeTrajectory(input: { episodeId: string }): Promise<string> {
      const key = episodeKey(input.episodeId);
      const names = await store.listNamed(`episodes/${key}/turns`);
      const lines: string[] = [];
      for (const name of names) {
        const record = JSON.parse((await store.readNamed(`episodes/${key}/turns/${name}`))!.toString('utf8')) as TurnRecord;
        lines.push(JSON.stringify({
          turn: record.turn,
          policyVersion: record.policyVersion,
          status: record.status,
          action: (await store.getBlob(record.action.ref)).toString('utf8'),
          observation: (await store.getBlob(record.observation.ref)).toString('utf8'),
          actionTokens: record.action.tokens,
          observationTokens: record.observation.tokens,
          actionTokenIdsRef: record.action.tokenIdsRef,
          logprobsRef: record.action.logprobsRef,
        }));
      }
      return store.writeNamed(`episodes/${key}/trajectory.jsonl`, lines.length ? `${lines.join('\n')}\n` : '');
    },
  };
}

interface TurnRecord {
  turn: number;
  policyVersion: string;
  status: string;
  action: { ref: string; tokens: number; tokenIdsRef: string; logprobsRef: string };
  observation: { ref: string; tokens: number };
}

import { describeSglang, describeVllm } from '../policies/chat/generation-clients';
import { parsePolicySpec, servedPolicyKinds } from '../../shared/contracts/policy-spec';
import { isAbsolute, join, resolve } from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type Dockerode from 'dockerode';
import { TaskImageError } from '../images/task-image';
import type { PolicySummary, TaskSummary } from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import { defaultProtectedPaths } from '../../shared/paths/protected-paths';
import { countByteTokens } from '../../shared/math/tokenizer';
import { describeServer } from '../policies/completions-client';
import { preparePolicy } from '../policies/policy-kinds';
import { TokenPolicySnapshot } from '../policies/token-policy';
import type { ArtifactStore } from '../store/artifact-store';
import type { SolvedFile } from '../policies/chat/chat-demo';
import { decodeTree, loadTask, type LoadedTask } from './task-loader';
import { patchedFiles, TaskError } from './task-files';

export interface PrepareEpisodeDeps {
  store: ArtifactStore;
  /** builds a Harbor task's image where this host lacks it (its starting repository lies in the image) */
  docker: Dockerode;
  projectRoot: string;
  defaultImage: string;
}

/** The activity that starts an episode: task and policy, validated and snapshotted. */
export function createPrepareEpisodeActivities(deps: PrepareEpisodeDeps) {
  const { store } = deps;
  return {
    /** Validates the task and the policy and snapshots both into the artifact store. */
    async prepareEpisode(input: {
      task: string;
      policy: string;
      sampling?: unknown;
    }): Promise<{ task: TaskSummary; policy: PolicySummary }> {
      const dir = isAbsolute(input.task) ? input.task : resolve(deps.projectRoot, input.task);
      let loaded;
      try {
        loaded = await loadTask(dir, deps.defaultImage, {
          docker: deps.docker,
          onProgress: (line) => Context.current().heartbeat(line),
        });
      } catch (error) {
        if (error instanceof TaskError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.invalidTask);
        if (error instanceof TaskImageError)
          throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.missingImage);
        throw error;
      }
      const { snapshot } = loaded;
      const snapshotRef = await store.putJson(snapshot);
      const parsed = parsePolicySpec(input.policy);
      const solves = parsed.ok && parsed.spec.kind === 'demo' && parsed.spec.name === 'solve';
      const solutionRef = solves ? await store.putJson(solvedFiles(loaded)) : null;
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
          ...(loaded.harbor?.agentTimeoutMs ? { deadlineMs: loaded.harbor.agentTimeoutMs } : {}),
          ...(solutionRef ? { solutionRef } : {}),
        },
        policy,
      };
    },

    /**
     * The version a prepared policy would sample now: for a served policy the one its server serves
     * (completions: the first listed, the last published; vllm: and sglang: their weight version),
     * else the prepared version (a resume with `newest`).
     */
    async currentPolicyVersion(input: { policy: PolicySummary }): Promise<string> {
      if (!servedPolicyKinds.includes(input.policy.kind)) return input.policy.version;
      const snapshot = await store.getJson(input.policy.ref, TokenPolicySnapshot);
      if (snapshot.kind === 'vllm') return (await describeVllm(snapshot.url ?? '')).version;
      if (snapshot.kind === 'sglang') return (await describeSglang(snapshot.url ?? '')).version;
      return (await describeServer(snapshot.url ?? '')).version;
    },
  };
}

/** The files a task's reference fix changes, fixed (demo:solve): a task without a solution.patch has none to show. */
function solvedFiles(loaded: LoadedTask): SolvedFile[] {
  if (!loaded.solutionPatch)
    throw ApplicationFailure.nonRetryable(
      `demo:solve needs the task's reference fix: ${loaded.dir} has no solution.patch`,
      ErrorTypes.invalidTask,
    );
  const repo = decodeTree(loaded.snapshot.repo);
  let changed;
  try {
    changed = patchedFiles(repo, loaded.solutionPatch, join(loaded.dir, 'solution.patch'));
  } catch (error) {
    if (error instanceof TaskError) throw ApplicationFailure.nonRetryable(error.message, ErrorTypes.invalidTask);
    throw error;
  }
  return Object.entries(changed)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, content]) => ({
      path,
      content: content.toString('utf8'),
      before: repo[path]?.toString('utf8') ?? null,
    }));
}

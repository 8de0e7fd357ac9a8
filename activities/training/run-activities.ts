import { createHash } from 'node:crypto';
import { isTaskFolder } from '../tasks/task-loader';
import { readTaskFolderFiles } from '../tasks/task-base';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ApplicationFailure, log } from '@temporalio/activity';
import { ErrorTypes } from '../../shared/names/errors';
import { taskName } from '../../shared/names/tasks';
import { formerFlatNames, TrainingRunInput } from '../../shared/contracts/run/input';
import { withNewNames } from '../../shared/contracts/renamed-fields';
import type { TrainingRunState } from '../../shared/contracts/run/state';
import { type IterationMetrics } from '../../shared/contracts/run-metrics';
import { publishToVllm } from '../policies/chat/generation-clients';
import { loadWeights } from '../policies/completions-client';
import {
  readManifest,
  readMetrics,
  readSolved,
  readState,
  runRefOf,
  runStore,
  writeManifest,
  writeMetrics,
  writeSolved,
  writeState,
  type RunManifest,
  type SolvedEpisode,
} from './run-records';
import { writeReport } from './run-report';
import { tensorboardEvents, tensorboardFile } from './tensorboard';
import type { ArtifactStore } from '../store/artifact-store';

export interface RunActivityDeps {
  projectRoot: string;
  /** where runs keep their records (runs/<run>/ of the artifact store) */
  store: ArtifactStore;
  codeVersion: string;
}

/** Paths (`model.alibi`, `credit.stopCredit`) where two JSON configs differ. */
export function configDifferences(a: unknown, b: unknown, path = ''): string[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => configDifferences(a[key], b[key], path ? `${path}.${key}` : key));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(root)'];
}

/** Activities of a training run's folder that need no sandbox and no GPU: setup, state, publishing, metrics. */
export function createRunActivities(deps: RunActivityDeps) {
  return {
    /**
     * Resolves the task sets, writes the run's manifest (config, seed, task-set hashes, code version)
     * and returns the state a resumed run continues from, if the folder holds one.
     */
    async setupRun(input: {
      runId: string;
      tasks: string;
      evalTasks: string;
      evalLimit: number;
      config: Record<string, unknown>;
    }): Promise<{ runRef: string; trainTasks: string[]; evalTasks: string[]; saved: TrainingRunState | null }> {
      const runRef = runRefOf(deps.store, input.runId);
      const trainTasks = listTasks(resolveFrom(deps.projectRoot, input.tasks), 'tasks');
      let evalTasks = input.evalTasks ? listTasks(resolveFrom(deps.projectRoot, input.evalTasks), 'evalTasks') : [];
      if (input.evalLimit > 0) evalTasks = evalTasks.slice(0, input.evalLimit);
      const manifest: RunManifest = {
        runId: input.runId,
        config: input.config,
        seed: input.config.seed,
        taskSets: {
          train: { path: input.tasks, count: trainTasks.length, sha256: hashTasks(trainTasks) },
          eval: { path: input.evalTasks, count: evalTasks.length, sha256: hashTasks(evalTasks) },
        },
        codeVersion: deps.codeVersion,
        createdAt: new Date().toISOString(),
        policyVersions: [],
      };
      const config = TrainingRunInput.parse(input.config);
      const warnings = runWarnings(config);
      if (warnings.length) manifest.warnings = warnings;
      const existing = await readManifest(runRef);
      if (existing) {
        // both through today's schema (a field added since the run started takes its default); a
        // parsed config is parsed again because defaults such as `budgets: {}` fill in on the second pass
        const before = TrainingRunInput.safeParse(existing.config);
        const differing = before.success
          ? configDifferences(before.data, config)
          : ['(the stored config no longer parses)'];
        if (differing.length > 0) {
          throw ApplicationFailure.nonRetryable(
            `run ${input.runId}: ${runRef} holds a run with another config ` +
              `(${differing.slice(0, 5).join(', ')}); resume it with the same input or choose a new runId`,
            ErrorTypes.invalidInput,
          );
        }
        // a config stored before the input's blocks is read under today's names first
        const added = configDifferences(withNewNames(existing.config, formerFlatNames).record, input.config);
        if (added.length > 0)
          log.warn('resuming a run whose config predates some fields; they take their defaults', {
            runId: input.runId,
            fields: added,
          });
        if (
          existing.taskSets.train.sha256 !== manifest.taskSets.train.sha256 ||
          existing.taskSets.eval.sha256 !== manifest.taskSets.eval.sha256
        ) {
          throw ApplicationFailure.nonRetryable(
            `run ${input.runId}: the task sets changed since the run started`,
            ErrorTypes.invalidInput,
          );
        }
      } else {
        await writeManifest(runRef, manifest);
      }
      return { runRef, trainTasks, evalTasks, saved: await readState(runRef) };
    },

    /** Records the state a resumed run starts from, and the published versions in the manifest. */
    async saveRunState(input: { state: TrainingRunState }): Promise<void> {
      const { runRef } = input.state;
      await writeState(input.state);
      const manifest = await readManifest(runRef);
      if (!manifest)
        throw ApplicationFailure.nonRetryable(
          `${runRef} holds no manifest.json: setupRun did not run for it`,
          ErrorTypes.invalidInput,
        );
      manifest.policyVersions = Object.entries(input.state.versions)
        .map(([version, step]) => ({ step, version }))
        .sort((a, b) => a.step - b.step);
      await writeManifest(runRef, manifest);
    },

    /**
     * Loads new weights into the policy server; returns the version it serves. The toy model's
     * embedded server: `POST /v1/load_weights` (the server names the version). A real model's
     * server (`api: "vllm"`, its embedded one or vLLM): pause, `reload_weights` from the ONNX
     * folder (or checkpoint), `update_weight_version` to `version`, resume. `policyRef` is the
     * policy's store reference; the server fetches it from the store itself.
     */
    async publishPolicy(input: {
      url: string;
      policyRef: string;
      api?: 'embedded' | 'vllm';
      version?: string;
    }): Promise<string> {
      if (input.api === 'vllm') {
        if (!input.version)
          throw ApplicationFailure.nonRetryable(
            'publishPolicy: a vllm publication needs the version it names the weights',
            ErrorTypes.invalidInput,
          );
        return publishToVllm(input.url, input.policyRef, input.version);
      }
      return loadWeights(input.url, input.policyRef);
    },

    /**
     * Writes one iteration's line of metrics.jsonl (a retry replaces it), the TensorBoard event file of all
     * lines so far, and the report.
     */
    async recordIteration(input: { runRef: string; metrics: IterationMetrics | null }): Promise<string> {
      const { metrics } = input;
      const lines = await readMetrics(input.runRef);
      const kept = metrics ? lines.filter((line) => line.iteration !== metrics.iteration) : lines;
      if (metrics) kept.push(metrics);
      kept.sort((a, b) => a.iteration - b.iteration);
      await writeMetrics(input.runRef, kept);
      // the same figures for TensorBoard, beside metrics.jsonl
      const started = Date.parse((await readManifest(input.runRef))?.createdAt ?? '') / 1000;
      await runStore(input.runRef).writeNamed(
        tensorboardFile,
        tensorboardEvents(kept, Number.isFinite(started) ? started : 0),
      );
      return writeReport(input.runRef, kept);
    },

    /** Records one iteration's solved training episodes in the run's solved.jsonl (a retry replaces them). */
    async recordSolved(input: { runRef: string; iteration: number; episodes: SolvedEpisode[] }): Promise<void> {
      const kept = (await readSolved(input.runRef)).filter((line) => line.iteration !== input.iteration);
      await writeSolved(input.runRef, [...kept, ...input.episodes]);
    },

    /**
     * The solved episodes of earlier runs (their ids) on this run's training tasks, for its warm start: an episode of
     * a task this run evaluates on (by path or folder name) is never taken, whatever the other run trained on.
     */
    async earlierSolved(input: {
      runs: string[];
      trainTasks: string[];
      evalTasks: string[];
      /** this run's model: another model's tokens are not this one's to imitate */
      model: string;
    }): Promise<SolvedEpisode[]> {
      const train = new Set(input.trainTasks);
      const held = new Set([...input.evalTasks, ...input.evalTasks.map(taskName)]);
      const found: SolvedEpisode[] = [];
      for (const runId of input.runs) {
        const runRef = runRefOf(deps.store, runId);
        const manifest = await readManifest(runRef);
        if (!manifest)
          throw ApplicationFailure.nonRetryable(
            `warmStart.solvedFrom: no run ${runId} in ${deps.store.urlOf('runs')}`,
            ErrorTypes.invalidInput,
          );
        const model = (manifest.config.model as { name?: string } | undefined)?.name ?? 'toy';
        if (model !== input.model)
          throw ApplicationFailure.nonRetryable(
            `warmStart.solvedFrom: run ${runId} trained ${model}, not ${input.model}: its tokens are another model's`,
            ErrorTypes.invalidInput,
          );
        for (const line of await readSolved(runRef))
          if (train.has(line.task) && !held.has(line.task) && !held.has(taskName(line.task))) found.push(line);
      }
      return found;
    },
  };
}

function resolveFrom(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}

/** The task folders (holding task.yaml, or a Harbor folder's task.toml) directly under a folder, sorted by name. */
function listTasks(dir: string, field: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw ApplicationFailure.nonRetryable(`${field}: ${dir} is not a folder`, ErrorTypes.invalidInput);
  const tasks = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isTaskFolder(join(dir, entry.name)))
    .map((entry) => join(dir, entry.name))
    .sort();
  if (tasks.length === 0)
    throw ApplicationFailure.nonRetryable(
      `${field}: ${dir} holds no task folders (folders with task.yaml or task.toml)`,
      ErrorTypes.invalidInput,
    );
  return tasks;
}

/**
 * sha256 over every file of the task folders as the loaders read them (base.yaml's trees assembled), by relative path.
 */
function hashTasks(tasks: readonly string[]): string {
  const hash = createHash('sha256');
  for (const task of tasks) {
    hash.update(`task:${task.split('/').at(-1)}\0`);
    // each folder's names in locale order, as earlier runs' manifests recorded them (a resume compares the hash)
    for (const [path, file] of readTaskFolderFiles(task, (a, b) => a.localeCompare(b)))
      hash.update(path).update('\0').update(file.content).update('\0');
  }
  return hash.digest('hex');
}

/** The manifest's warnings of a run's input: settings that make its policy an ablation's, not one to use. */
export function runWarnings(input: Pick<TrainingRunInput, 'loss'>): string[] {
  const warnings: string[] = [];
  if (input.loss.mask === 'all')
    warnings.push(
      'loss.mask "all": the policy-gradient loss trains on environment tokens (observations) as well as actions; ' +
        'an ablation (the Search-R1 loss-mask ablation), not a policy to use',
    );
  return warnings;
}

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ApplicationFailure, log } from '@temporalio/activity';
import { buildBatchRows, type BatchCounts, type BatchRow, type EpisodeTokens, type StopDecision, type TruncationPolicy } from '../shared/batch';
import type { StopRecord } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { formatOnlyMask, type ModelContext } from '../shared/model-context';
import { environmentFailures, Outcomes, type Outcome } from '../shared/outcomes';
import { policyTokenizer } from '../shared/tokenizer';
import { TrainingRunInput, type IterationMetrics, type TrainingRunState } from '../shared/training-run';
import { atomicWrite, episodeKey, type ArtifactStore } from './artifact-store';
import { allowedPatterns, writeBatch } from './batch-writer';
import { loadWeights } from './policy-server';
import { writeReport } from './run-report';
import { actId } from './token-policy';
import type { ModelRecord } from './tool-calls';

export interface TrainingRunDeps {
  store: ArtifactStore;
  projectRoot: string;
  artifactsDir: string;
  codeVersion: string;
}

/** An episode as the batch builder needs it: the result's small fields. */
export interface BatchEpisode {
  episodeId: string;
  groupId: string;
  outcome: Outcome;
  reward: number | null;
  trueSuccess: boolean | null;
  stops?: StopRecord[];
}

export interface BuiltBatch {
  batchPath: string;
  rows: number;
  tokens: number;
  generatedTokens: number;
  counts: BatchCounts & { imitationExcluded?: number };
  inferenceMs: number;
}

const submitFirstId = policyTokenizer.encode('submit')[0]!;

/**
 * The decision of each stop point: the first token of the action after the stop's check (turn k's
 * action follows the k-th `<act>` marker). A stop whose next action is not in the context (the
 * episode ended there) decides nothing.
 */
export function stopDecisions(context: Pick<ModelContext, 'ids' | 'mask' | 'allowed'>, stops: readonly StopRecord[]): StopDecision[] {
  const { ids, mask, allowed } = context;
  const actionStarts: number[] = [];
  ids.forEach((id, index) => {
    if (id === actId) actionStarts.push(index + 1);
  });
  const decisions: StopDecision[] = [];
  for (const stop of stops) {
    const position = actionStarts[stop.turn + 1];
    if (position === undefined || mask[position] !== 1) continue;
    // under a constraint the token must have been free to choose `submit`
    const choices = allowed[position];
    if (choices && !choices.includes(submitFirstId)) continue;
    decisions.push({ position, submitted: stop.submitted, grade: stop.submitted ? null : stop.passed ? stop.probe : 0 });
  }
  return decisions;
}

/** Paths (`model.alibi`, `stopCredit`) where two JSON configs differ. */
export function configDifferences(a: unknown, b: unknown, path = ''): string[] {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => configDifferences(a[key], b[key], path ? `${path}.${key}` : key));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(root)'];
}

/** Activities of a training run that need no sandbox and no GPU: the run folder, batches, publishing. */
export function createTrainingRunActivities(deps: TrainingRunDeps) {
  const { store } = deps;

  return {
    /**
     * Resolves the task sets, writes the run's manifest (config, seed, task-set hashes, code version)
     * and returns the state a resumed run continues from, if the folder holds one.
     */
    async setupRun(input: { runId: string; tasks: string; evalTasks: string; evalLimit: number; config: Record<string, unknown> }): Promise<{ runDir: string; trainTasks: string[]; evalTasks: string[]; saved: TrainingRunState | null }> {
      const runDir = join(deps.artifactsDir, 'runs', input.runId);
      await mkdir(runDir, { recursive: true });
      const trainTasks = listTasks(resolveFrom(deps.projectRoot, input.tasks), 'tasks');
      let evalTasks = input.evalTasks ? listTasks(resolveFrom(deps.projectRoot, input.evalTasks), 'evalTasks') : [];
      if (input.evalLimit > 0) evalTasks = evalTasks.slice(0, input.evalLimit);
      const manifestPath = join(runDir, 'manifest.json');
      const manifest = {
        runId: input.runId,
        config: input.config,
        seed: input.config.seed,
        taskSets: { train: { path: input.tasks, count: trainTasks.length, sha256: hashTasks(trainTasks) }, eval: { path: input.evalTasks, count: evalTasks.length, sha256: hashTasks(evalTasks) } },
        codeVersion: deps.codeVersion,
        createdAt: new Date().toISOString(),
        policyVersions: [] as { step: number; version: string }[],
      };
      if (existsSync(manifestPath)) {
        const existing = JSON.parse(await readFile(manifestPath, 'utf8')) as typeof manifest;
        // both through today's schema (a field added since the run started takes its default); a
        // parsed config is parsed again because defaults such as `budgets: {}` fill in on the second pass
        const before = TrainingRunInput.safeParse(existing.config);
        const differing = before.success ? configDifferences(before.data, TrainingRunInput.parse(input.config)) : ['(the stored config no longer parses)'];
        if (differing.length > 0) {
          throw ApplicationFailure.nonRetryable(`run ${input.runId}: ${runDir} holds a run with another config (${differing.slice(0, 5).join(', ')}); resume it with the same input or choose a new runId`, ErrorTypes.invalidInput);
        }
        const added = configDifferences(existing.config, input.config);
        if (added.length > 0) log.warn('resuming a run whose config predates some fields; they take their defaults', { runId: input.runId, fields: added });
        if (existing.taskSets.train.sha256 !== manifest.taskSets.train.sha256 || existing.taskSets.eval.sha256 !== manifest.taskSets.eval.sha256) {
          throw ApplicationFailure.nonRetryable(`run ${input.runId}: the task sets changed since the run started`, ErrorTypes.invalidInput);
        }
      } else {
        await atomicWrite(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      }
      const statePath = join(runDir, 'state.json');
      const saved = existsSync(statePath) ? (JSON.parse(await readFile(statePath, 'utf8')) as TrainingRunState) : null;
      return { runDir, trainTasks, evalTasks, saved };
    },

    /** Records the state a resumed run starts from, and the published versions in the manifest. */
    async saveRunState(input: { state: TrainingRunState }): Promise<void> {
      const { runDir } = input.state;
      await atomicWrite(join(runDir, 'state.json'), `${JSON.stringify(input.state, null, 2)}\n`);
      const manifestPath = join(runDir, 'manifest.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { policyVersions: { step: number; version: string }[] };
      manifest.policyVersions = Object.entries(input.state.versions).map(([version, step]) => ({ step, version })).sort((a, b) => a.step - b.step);
      await atomicWrite(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    },

    /** Loads new weights into the policy server (`POST /v1/load_weights`); returns the version it serves. */
    async publishPolicy(input: { url: string; onnxPath: string }): Promise<string> {
      return loadWeights(input.url, input.onnxPath);
    },

    /**
     * Builds a batch from finished episodes and writes it as safetensors into the run folder.
     * `policy_gradient`: outcome filtering, truncation policy and group advantages (shared/batch.ts).
     * `imitation`: every submitted episode, advantage 1, with the arguments of its edits out of the
     * loss (`formatOnlyMask`): format demonstrations teach which command comes next, never a fix.
     */
    async buildBatch(input: {
      runDir: string;
      name: string;
      episodes: BatchEpisode[];
      objective: 'policy_gradient' | 'imitation';
      estimator: string;
      truncation: TruncationPolicy;
      versions: Record<string, number>;
      vocabSize: number;
      /** weight of the stop decisions' own credit (shared/batch.ts stopDecisionAdvantages); 0: none */
      stopCredit?: number;
    }): Promise<BuiltBatch> {
      const tokens: EpisodeTokens[] = [];
      const allowedByEpisode = new Map<string, (number[] | null)[]>();
      let inferenceMs = 0;
      let imitationExcluded = 0;
      for (const episode of input.episodes) {
        const loaded = await loadContext(episode.episodeId);
        inferenceMs += loaded?.inferenceMs ?? 0;
        if (!loaded) {
          // no turn with a model context (e.g. the sandbox never started): nothing to train on
          if (!environmentFailures.includes(episode.outcome)) imitationExcluded++;
          continue;
        }
        // every submitted demonstration, whatever its outcome: a choice made by chance stays unbiased
        if (input.objective === 'imitation' && episode.outcome !== Outcomes.submitted) {
          imitationExcluded++;
          continue;
        }
        const { context } = loaded;
        // the observation after the last action carries no loss and may reach past the window: cut it
        const end = context.mask.lastIndexOf(1) + 1;
        allowedByEpisode.set(episode.episodeId, context.allowed.slice(0, end));
        tokens.push({
          episodeId: episode.episodeId,
          groupId: episode.groupId,
          outcome: episode.outcome,
          reward: input.objective === 'imitation' ? 1 : episode.reward,
          tokenIds: context.ids.slice(0, end),
          lossMask: (input.objective === 'imitation' ? formatOnlyMask(context, policyTokenizer) : context.mask).slice(0, end),
          behaviourLogprobs: context.logprobs.slice(0, end),
          policyVersions: context.versions.slice(0, end).map((version) => (version === '' ? -1 : (input.versions[version] ?? -1))),
          decisions: stopDecisions({ ids: context.ids.slice(0, end), mask: context.mask.slice(0, end), allowed: context.allowed.slice(0, end) }, episode.stops ?? []),
        });
      }
      let rows: BatchRow[];
      let counts: BuiltBatch['counts'];
      if (input.objective === 'imitation') {
        rows = tokens.map((episode) => ({ ...episode, reward: 1, advantage: 1 }));
        counts = { episodes: input.episodes.length, environmentFailures: 0, truncatedZeroed: 0, truncatedDropped: 0, agentCrashes: 0, groupsKept: 0, groupsDropped: 0, zeroAdvantageGroups: 0, creditedDecisions: 0, imitationExcluded };
      } else {
        ({ rows, counts } = buildBatchRows(tokens, { estimator: input.estimator, truncation: input.truncation, stopCredit: input.stopCredit ?? 0 }));
      }
      const batchPath = join(input.runDir, 'batches', `${input.name}.safetensors`);
      await mkdir(join(input.runDir, 'batches'), { recursive: true });
      const length = Math.max(1, ...rows.map((row) => row.tokenIds.length));
      const allowed = allowedPatterns(rows, allowedByEpisode, length, input.vocabSize);
      if (rows.length) {
        await writeBatch(batchPath, rows, { counts, estimator: input.objective === 'imitation' ? 'imitation' : input.estimator, truncation: input.truncation, padId: policyTokenizer.specialIds['<pad>']!, allowed });
      }
      return {
        batchPath,
        rows: rows.length,
        tokens: rows.reduce((sum, row) => sum + row.tokenIds.length, 0),
        generatedTokens: rows.reduce((sum, row) => sum + row.lossMask.reduce((a, b) => a + b, 0), 0),
        counts,
        inferenceMs,
      };
    },

    /** Writes one iteration's line of metrics.jsonl (a retry replaces it) and the report. */
    async recordIteration(input: { runDir: string; metrics: IterationMetrics | null }): Promise<string> {
      const path = join(input.runDir, 'metrics.jsonl');
      const lines = existsSync(path) ? (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as IterationMetrics) : [];
      const { metrics } = input;
      const kept = metrics ? lines.filter((line) => line.iteration !== metrics.iteration) : lines;
      if (metrics) kept.push(metrics);
      kept.sort((a, b) => a.iteration - b.iteration);
      await atomicWrite(path, kept.length ? `${kept.map((line) => JSON.stringify(line)).join('\n')}\n` : '');
      return writeReport(input.runDir, kept);
    },
  };

  /** The context of an episode's last turn that has one, and the inference time of all its turns. */
  async function loadContext(episodeId: string): Promise<{ context: ModelContext; inferenceMs: number } | null> {
    const prefix = `episodes/${episodeKey(episodeId)}/turns`;
    const names = await store.listNamed(prefix);
    let last: ModelRecord | null = null;
    let inferenceMs = 0;
    for (const name of names) {
      const record = JSON.parse((await store.readNamed(`${prefix}/${name}`))!.toString('utf8')) as { model?: ModelRecord };
      if (record.model) {
        last = record.model;
        inferenceMs += record.model.inferenceMs ?? 0;
      }
    }
    if (!last) return null;
    return { context: JSON.parse((await store.getBlob(last.contextRef)).toString('utf8')) as ModelContext, inferenceMs };
  }
}

function resolveFrom(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}

/** The task folders (holding task.yaml) directly under a folder, sorted by name. */
function listTasks(dir: string, field: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw ApplicationFailure.nonRetryable(`${field}: ${dir} is not a folder`, ErrorTypes.invalidInput);
  const tasks = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'task.yaml')))
    .map((entry) => join(dir, entry.name))
    .sort();
  if (tasks.length === 0) throw ApplicationFailure.nonRetryable(`${field}: ${dir} holds no task folders (folders with task.yaml)`, ErrorTypes.invalidInput);
  return tasks;
}

/** sha256 over every file of the task folders, by relative path. */
function hashTasks(tasks: readonly string[]): string {
  const hash = createHash('sha256');
  for (const task of tasks) {
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== '__pycache__' && entry.name !== '.pytest_cache') walk(path);
        } else {
          hash.update(relative(task, path)).update('\0').update(readFileSync(path)).update('\0');
        }
      }
    };
    hash.update(`task:${task.split('/').at(-1)}\0`);
    walk(task);
  }
  return hash.digest('hex');
}

// Stubs of a training run's activities for the fast tier: a run folder that lives in memory, a trainer
// whose steps return contract-shaped results, and episodes whose outcome and reward follow their task
// and sample. tests/workflows/training-run.test.ts and tests/workflows/record-histories.ts use them.
import { ApplicationFailure } from '@temporalio/activity';
import type { BuildBatchInput, BuiltBatch } from '../../activities/training/build-batch';
import type { TakeTurnInput } from '../../activities/tools/take-turn';
import { ErrorTypes } from '../../shared/names/errors';
import { summariseStaleness, tokenStaleness } from '../../shared/math/off-policy';
import type { InitPolicyInput, TrainOnBatchInput, TrainOnBatchResult } from '../../shared/contracts/trainer-contract';
import type { TrainingRunState } from '../../shared/contracts/run/state';
import type { IterationMetrics } from '../../shared/contracts/run-metrics';
import { emptyBatchCounts } from '../../shared/math/batch';
import { turnSummary, type StubActivities } from './stubs';

/** How one episode of the stubbed run ends, by its task's id and its sampling seed. */
export type EpisodePlan = (task: string, seed: number) => 'reward-1' | 'reward-0' | 'sandbox_crash' | 'policy_error';

export interface RunRecords {
  states: TrainingRunState[];
  metrics: IterationMetrics[];
  batches: BuildBatchInput[];
  steps: TrainOnBatchInput[];
  published: string[];
  /** every publishPolicy input (the API and version a real model's publication names) */
  publications: { url: string; policyRef: string; api?: string; version?: string }[];
  inits: InitPolicyInput[];
  /** the policy version of each turn, by episode: what the real takeTurn records in the episode's context */
  turnVersions: Map<string, string[]>;
  /** the solved training episodes each iteration recorded */
  solved: { iteration: number; episodes: { episodeId: string; task: string }[] }[];
}

/** The task sets a stubbed run draws from. */
export const stubTrainTasks = ['/stub/tasks/alpha', '/stub/tasks/beta', '/stub/tasks/gamma'];
export const stubEvalTasks = ['/stub/eval/omega'];

/** A training run's activities over an in-memory run folder; episodes play `plan`. */
export function trainingStubs(plan: EpisodePlan): { stubs: StubActivities; records: RunRecords } {
  const records: RunRecords = {
    states: [],
    metrics: [],
    batches: [],
    steps: [],
    published: [],
    publications: [],
    inits: [],
    turnVersions: new Map(),
    solved: [],
  };
  const taskOf = (path: string) => path.split('/').at(-1)!;
  // prepareEpisode's input carries the task and the seed; later activities see them in the prompt's reference
  const episodeOf = (promptRef: string) => {
    const [, task, seed] = promptRef.split(':');
    return plan(task!, Number(seed));
  };
  const stubs: StubActivities = {
    async setupRun(input) {
      return {
        runRef: `file:///stub/runs/${input.runId}`,
        trainTasks: stubTrainTasks,
        evalTasks: input.evalTasks ? stubEvalTasks : [],
        saved: records.states.at(-1) ?? null,
      };
    },
    async saveRunState(input) {
      records.states.push(structuredClone(input.state));
    },
    async publishPolicy(input) {
      records.published.push(input.policyRef);
      records.publications.push(structuredClone(input));
      // a real model's server serves the version it is told; the toy one names its own
      return input.version ?? `published-${input.policyRef.split('/').at(-1)}`;
    },
    async initPolicy(input: InitPolicyInput) {
      records.inits.push(structuredClone(input));
      if ('model' in input)
        return { step: 0 as const, policyVersion: `${input.model}-base`, policyRef: `model://${input.model}` };
      return { step: 0 as const, policyVersion: 'v0', policyRef: `${input.runRef}/policies/v0` };
    },
    async trainOnBatch(input: TrainOnBatchInput): Promise<TrainOnBatchResult> {
      records.steps.push(input);
      return {
        stepId: input.stepId,
        step: input.step,
        policyVersion: input.model ? `${input.runRef.split('/').at(-1)}-step-${input.step}` : `v${input.step}`,
        policyRef: `${input.runRef}/policies/v${input.step}`,
        checkpointRef: `${input.runRef}/checkpoints/step-${input.step}.pt`,
        device: 'cpu',
        durationMs: 5,
        metrics: {
          loss: 0.5,
          meanRatio: 1,
          clipFraction: 0,
          klK3: 0,
          gradNorm: 0.1,
          skipped: false,
          maskedTokens: 10,
          updates: 1,
        },
      };
    },
    async buildBatch(input: BuildBatchInput): Promise<BuiltBatch> {
      records.batches.push(input);
      const kept = input.episodes.filter(
        (episode) => episode.outcome === 'submitted' || episode.outcome === 'agent_crash',
      );
      // as the real activity measures them, with one trained token per turn: each row's versions by their step (-1,
      // not counted, for a version the run never published)
      const rowVersions = kept.map((episode) =>
        (records.turnVersions.get(episode.episodeId) ?? []).map((version) => input.versions[version] ?? -1),
      );
      const versionMetrics =
        input.baseStep === undefined
          ? {}
          : {
              staleness: summariseStaleness(
                rowVersions.flatMap((versions) =>
                  tokenStaleness(
                    versions,
                    versions.map(() => 1),
                    input.baseStep!,
                  ),
                ),
              ),
              spanningVersions: rowVersions.filter(
                (versions) => new Set(versions.filter((version) => version >= 0)).size > 1,
              ).length,
            };
      return {
        ...versionMetrics,
        batchRef: `${input.runRef}/batches/${input.name}.safetensors`,
        rows: kept.length,
        tokens: kept.length * 20,
        generatedTokens: kept.length * 6,
        inferenceMs: 0,
        counts: {
          ...emptyBatchCounts(input.episodes.length),
          environmentFailures: input.episodes.length - kept.length,
        },
      };
    },
    async recordIteration(input) {
      if (input.metrics) records.metrics.push(input.metrics);
      return `${input.runRef}/report.md`;
    },
    async recordSolved(input) {
      records.solved.push(structuredClone(input));
    },
    async earlierSolved() {
      return [];
    },
    async prepareEpisode(input) {
      const task = taskOf(input.task);
      const seed = (input.sampling as { seed: number }).seed;
      if (plan(task, seed) === 'policy_error')
        throw ApplicationFailure.nonRetryable(
          `policy: the server serves another version (${task}/${seed})`,
          ErrorTypes.policyError,
        );
      const promptRef = `stub:${task}:${seed}`;
      return {
        task: {
          id: task,
          snapshotRef: `sha256:${'0'.repeat(64)}`,
          image: 'stub',
          testCommand: 'true',
          protectedPaths: [],
          hasOracle: true,
          promptTokens: 4,
          promptRef,
        },
        policy: {
          spec: input.policy,
          kind: 'completions',
          ref: `sha256:${'2'.repeat(64)}`,
          version: input.policy.split('#')[1] ?? input.policy,
        },
      };
    },
    async takeTurn(input: TakeTurnInput) {
      records.turnVersions.set(input.episodeId, [
        ...(records.turnVersions.get(input.episodeId) ?? []),
        input.policy.version,
      ]);
      return turnSummary(input.turn, episodeOf(input.promptRef!) === 'sandbox_crash' ? 'sandbox_crash' : 'submitted');
    },
    async scoreSubmission(input) {
      const reward = episodeOf(input.task.promptRef) === 'reward-1' ? 1 : 0;
      return {
        reward,
        trueSuccess: reward === 1,
        trueSuccessBasis: 'visible+hidden+oracle-calls' as const,
        tamper: [],
        scoringUri: '/stub/scoring.json',
      };
    },
  };
  return { stubs, records };
}

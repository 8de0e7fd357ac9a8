import { ApplicationFailure } from '@temporalio/activity';
import { ErrorTypes } from '../../shared/names/errors';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildBatchRows,
  emptyBatchCounts,
  generatedRunStarts,
  turnIds,
  type EarlierTurn,
  type StopDecision,
  type BatchCounts,
  type BatchRow,
  type EpisodeTokens,
  type TruncationPolicy,
} from '../../shared/math/batch';
import { summariseStaleness, tokenStaleness, type StalenessSummary } from '../../shared/math/off-policy';
import type { AgentInterfaceName } from '../../shared/contracts/agent-interface';
import type { StopRecord } from '../../shared/contracts/episode';
import { environmentFailures, Outcomes, type Outcome } from '../../shared/contracts/outcomes';
import { compactActions } from '../../shared/compact-actions';
import { loadChatTokenizer } from '../policies/chat/chat-tokenizer';
import type { GigpoOptions } from '../../shared/math/gigpo';
import { turnStates } from './turn-states';
import type { ArtifactStore } from '../store/artifact-store';
import { createEpisodeRecords } from '../store/episode-records';
import { allowedPatterns, writeBatch } from './batch-writer';
import { batchNameOf, runStore } from './run-records';

/** An episode as the batch builder needs it: the result's small fields. */
export interface BatchEpisode {
  episodeId: string;
  groupId: string;
  outcome: Outcome;
  reward: number | null;
  trueSuccess: boolean | null;
  stops?: StopRecord[];
}

export interface BuildBatchInput {
  runRef: string;
  name: string;
  episodes: BatchEpisode[];
  objective: 'policy_gradient' | 'imitation';
  estimator: string;
  truncation: TruncationPolicy;
  versions: Record<string, number>;
  /**
   * compact-actions: the toy model's vocabulary (the width of the sampler's allowed-id masks); chat rows are
   * unconstrained
   */
  vocabSize?: number;
  /** weight of the stop decisions' own credit (shared/math/batch.ts stopDecisionAdvantages); 0: none */
  stopCredit?: number;
  /** estimator `gigpo`: its weight, discount and normalisation (@default shared/math/gigpo.ts defaultGigpoOptions) */
  gigpo?: GigpoOptions;
  /**
   * policy gradient: `all` trains on the environment's tokens too (every token after the first action: the
   * loss-mask ablation), marked in the batch's environment_mask; @default 'actions'
   */
  lossMask?: 'actions' | 'all';
  /**
   * a privileged critic: write each token's `privileged` features (the checker's grade of the latest stop point,
   * from the stop probes), which only the value head reads
   */
  privileged?: boolean;
  /** the agent interface the episodes were sampled with @default 'compact-actions' */
  agentInterface?: AgentInterfaceName;
  /** chat-tools: the tokenizer the episodes were sampled with (its pad id pads the rows) */
  chatTokenizer?: string;
  /**
   * the step whose weights the trainer step on this batch starts from: the trained tokens' staleness is measured
   * against it
   */
  baseStep?: number;
}

export interface BuiltBatch {
  /** the batch's store reference (`<runRef>/batches/<name>.safetensors`); no object when `rows` is 0 */
  batchRef: string;
  rows: number;
  tokens: number;
  generatedTokens: number;
  counts: BatchCounts & { imitationExcluded?: number };
  inferenceMs: number;
  /**
   * with baseStep: the staleness of the trained tokens, and the rows whose trained tokens come from more than one
   * version
   */
  staleness?: StalenessSummary;
  spanningVersions?: number;
}

/** The batch activity: recorded episodes in, one safetensors batch in the run folder out. */
export function createBuildBatchActivities(deps: { store: ArtifactStore }) {
  const records = createEpisodeRecords(deps.store);

  /** Each turn's action in the context (turn k's follows the k-th `<act>`) and the state it was taken from. */
  async function locateTurns(episodeId: string, ids: readonly number[]): Promise<{ start: number; state: string }[]> {
    const turns = await records.readTurns(episodeId);
    const starts = compactActions.actionStarts(ids);
    if (starts.length > turns.length)
      throw new Error(`episode ${episodeId}: ${starts.length} actions in its context, ${turns.length} turns recorded`);
    const states = await turnStates(
      turns.slice(0, starts.length),
      async (ref) => (await deps.store.getBlob(ref)).toString('utf8'),
      (action) => compactActions.actionKind(action) === 'change',
    );
    return starts.map((start, index) => ({ start, state: states[index]! }));
  }
  /**
   * A chat episode's turns: each turn's generated ids are one run of the loss mask (chat-context.ts), in the samples
   * its template closed (in order) and then in its last context; the turns of the closed samples come first.
   */
  async function locateChatTurns(
    episodeId: string,
    closed: readonly (readonly number[])[],
    lastMask: readonly number[],
  ): Promise<{ turns: { start: number; state: string }[]; earlierTurns: EarlierTurn[] }> {
    const turns = await records.readTurns(episodeId);
    const runLength = (mask: readonly number[], start: number) => {
      let end = start;
      while (mask[end] === 1) end++;
      return end - start;
    };
    const earlier = closed.flatMap((mask, sample) =>
      generatedRunStarts(mask).map((start) => ({ sample, start, tokens: runLength(mask, start) })),
    );
    const own = generatedRunStarts(lastMask);
    const located = earlier.length + own.length;
    if (located > turns.length)
      throw new Error(
        `episode ${episodeId}: ${located} generated turns in its samples, ${turns.length} turns recorded`,
      );
    // free-form tools: any action may change the repository
    const states = await turnStates(
      turns.slice(0, located),
      async (ref) => (await deps.store.getBlob(ref)).toString('utf8'),
      () => true,
    );
    return {
      earlierTurns: earlier.map((turn, index) => ({ ...turn, state: states[index]! })),
      turns: own.map((start, index) => ({ start, state: states[earlier.length + index]! })),
    };
  }
  return {
    /**
     * Builds a batch from finished episodes and writes it as safetensors into the run folder.
     * `policy_gradient`: outcome filtering, truncation policy and group advantages (shared/math/batch.ts).
     * `imitation`: every submitted episode, advantage 1, with what a demonstration may not teach out
     * of the loss (the agent interface's imitationMask: the compact language masks the arguments of edits).
     */
    async buildBatch(input: BuildBatchInput): Promise<BuiltBatch> {
      // compact-actions: the toy model's layout (its pad id, the imitation mask of edits, stop decisions);
      // chat-tools: every generated token trains, no stop credit, and each sample a chat template
      // closed (a break of the exact prefix) is a row of its own with its episode's advantage
      const chat = input.agentInterface === 'chat-tools';
      let padId = compactActions.tokenizer.specialIds['<pad>']!;
      if (chat) {
        if (!input.chatTokenizer)
          throw ApplicationFailure.nonRetryable(
            'buildBatch: chat-tools episodes need chatTokenizer, the tokenizer they were sampled with',
            ErrorTypes.invalidInput,
          );
        padId = loadChatTokenizer(input.chatTokenizer).padId;
      } else if (input.vocabSize === undefined) {
        throw ApplicationFailure.nonRetryable(
          "buildBatch: compact-actions episodes need vocabSize, the toy model's vocabulary",
          ErrorTypes.invalidInput,
        );
      }
      const agent = compactActions;
      const stepLevel = input.objective === 'policy_gradient' && input.estimator === 'gigpo';
      const closedByEpisode = new Map<string, string[]>();
      const tokens: EpisodeTokens[] = [];
      const allowedByEpisode = new Map<string, (number[] | null)[]>();
      let inferenceMs = 0;
      let imitationExcluded = 0;
      for (const episode of input.episodes) {
        const loaded = await records.lastContext(episode.episodeId);
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
        if (chat && loaded.closedSamples.length > 0) closedByEpisode.set(episode.episodeId, loaded.closedSamples);
        // the observation after the last action carries no loss and may reach past the window: cut it
        const end = context.lossMask.lastIndexOf(1) + 1;
        const cut = {
          ids: context.ids.slice(0, end),
          lossMask: context.lossMask.slice(0, end),
          allowed: context.allowed.slice(0, end),
        };
        allowedByEpisode.set(episode.episodeId, cut.allowed);
        tokens.push({
          episodeId: episode.episodeId,
          groupId: episode.groupId,
          outcome: episode.outcome,
          reward: input.objective === 'imitation' ? 1 : episode.reward,
          tokenIds: cut.ids,
          lossMask: input.objective === 'imitation' && !chat ? agent.imitationMask(cut) : cut.lossMask,
          behaviourLogprobs: context.logprobs.slice(0, end),
          policyVersions: context.versions
            .slice(0, end)
            .map((version) => (version === '' ? -1 : (input.versions[version] ?? -1))),
          decisions: chat ? [] : agent.stopDecisions(cut, episode.stops ?? []),
          ...(stepLevel && !chat ? { turns: await locateTurns(episode.episodeId, cut.ids) } : {}),
          ...(stepLevel && chat
            ? await locateChatTurns(
                episode.episodeId,
                await Promise.all(loaded.closedSamples.map(async (ref) => (await records.readContext(ref)).lossMask)),
                cut.lossMask,
              )
            : {}),
        });
      }
      let rows: BatchRow[];
      let counts: BuiltBatch['counts'];
      if (input.objective === 'imitation') {
        rows = tokens.map((episode) => ({ ...episode, reward: 1, advantage: 1 }));
        counts = { ...emptyBatchCounts(input.episodes.length), imitationExcluded };
      } else {
        ({ rows, counts } = buildBatchRows(tokens, {
          estimator: input.estimator,
          truncation: input.truncation,
          stopCredit: input.stopCredit ?? 0,
          ...(input.gigpo ? { gigpo: input.gigpo } : {}),
        }));
      }
      // the samples closed before each episode's last: rows with the advantage its episode got
      for (const row of [...rows]) {
        const earlierTurns = row.earlierTurnAdvantages ?? [];
        delete row.earlierTurnAdvantages;
        for (const [index, ref] of (closedByEpisode.get(row.episodeId) ?? []).entries()) {
          const sample = await records.readContext(ref);
          const end = sample.lossMask.lastIndexOf(1) + 1;
          if (end === 0) continue;
          // a step estimator's turn advantages of this sample's turns
          const turnAdvantages = earlierTurns
            .filter((turn) => turn.sample === index)
            .map(({ start, value }) => ({ start, value }));
          rows.push({
            episodeId: row.episodeId,
            groupId: row.groupId,
            reward: row.reward,
            advantage: row.advantage,
            tokenIds: sample.ids.slice(0, end),
            lossMask: sample.lossMask.slice(0, end),
            behaviourLogprobs: sample.logprobs.slice(0, end),
            policyVersions: sample.versions
              .slice(0, end)
              .map((version) => (version === '' ? -1 : (input.versions[version] ?? -1))),
            ...(turnAdvantages.length ? { turnAdvantages } : {}),
          });
        }
      }
      if (input.privileged) {
        const decisionsOf = new Map(tokens.map((episode) => [episode.episodeId, episode.decisions ?? []]));
        for (const row of rows) row.privileged = privilegedFeatures(row, decisionsOf.get(row.episodeId) ?? []);
      }
      // the turn of each action token (the critic's turn boundaries), before the ablation widens the mask
      for (const row of rows) row.turnIds = turnIds(row.lossMask, chat ? undefined : agent.actionStarts(row.tokenIds));
      let environmentTokens = 0;
      if (input.lossMask === 'all' && input.objective === 'policy_gradient') {
        for (const row of rows) {
          environmentTokens += withEnvironmentTokens(row);
        }
        counts.environmentTokens = environmentTokens;
      }
      const run = runStore(input.runRef);
      const batchName = batchNameOf(input.name);
      const length = Math.max(1, ...rows.map((row) => row.tokenIds.length));
      // a chat model samples unconstrained: its rows carry no allowed-id masks (a (B,T,V) mask of a real vocabulary is
      // large)
      const allowed = chat ? undefined : allowedPatterns(rows, allowedByEpisode, length, input.vocabSize!);
      if (rows.length) {
        // written locally, then put into the store whole (a reader never sees part of it)
        const scratch = await mkdtemp(join(tmpdir(), 'agentrl-batch-'));
        try {
          const local = join(scratch, 'batch.safetensors');
          await writeBatch(local, rows, {
            counts,
            estimator: input.objective === 'imitation' ? 'imitation' : input.estimator,
            truncation: input.truncation,
            padId,
            allowed,
            ...(input.baseStep !== undefined ? { baseStep: input.baseStep } : {}),
          });
          await run.putNamedStream(batchName, createReadStream(local));
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
      }
      const staleness =
        input.baseStep === undefined
          ? undefined
          : summariseStaleness(
              rows.flatMap((row) => tokenStaleness(row.policyVersions, row.lossMask, input.baseStep!)),
            );
      const spanningVersions = rows.filter(
        (row) =>
          new Set(row.policyVersions.filter((version, index) => row.lossMask[index] === 1 && version >= 0)).size > 1,
      ).length;
      return {
        batchRef: run.urlOf(batchName),
        rows: rows.length,
        tokens: rows.reduce((sum, row) => sum + row.tokenIds.length, 0),
        generatedTokens:
          rows.reduce((sum, row) => sum + row.lossMask.reduce((a, b) => a + b, 0), 0) - environmentTokens,
        counts,
        inferenceMs,
        ...(staleness ? { staleness, spanningVersions } : {}),
      };
    },
  };
}

/**
 * The loss-mask ablation: every token after the row's first action that the policy did not write (the
 * observations, and the markers around actions) enters the loss and is marked in `environmentMask`;
 * the task's prompt stays out. Returns how many tokens it added.
 */
function withEnvironmentTokens(row: BatchRow): number {
  const first = row.lossMask.indexOf(1);
  if (first < 0) return 0;
  const environmentMask = row.lossMask.map((mask, position): number => (position > first && mask === 0 ? 1 : 0));
  row.lossMask = row.lossMask.map((mask, position) => (environmentMask[position] ? 1 : mask));
  row.environmentMask = environmentMask;
  return environmentMask.reduce((sum, value) => sum + value, 0);
}

/**
 * A privileged critic's features at each token of a row: [1, g] from a stop decision's token on (g: the reward
 * submitting at that stop point earns, the probe's grade, or the episode's own reward where it submitted), until
 * the next decision; [0, 0] before the first and where a grade is unknown. The policy never reads them.
 */
function privilegedFeatures(row: BatchRow, decisions: readonly StopDecision[]): [number, number][] {
  const features = row.tokenIds.map((): [number, number] => [0, 0]);
  const sorted = [...decisions].sort((a, b) => a.position - b.position);
  sorted.forEach((decision, index) => {
    const grade = decision.submitted ? row.reward : decision.grade;
    const end = sorted[index + 1]?.position ?? features.length;
    for (let position = decision.position; position < end; position++)
      features[position] = grade === null ? [0, 0] : [1, grade];
  });
  return features;
}

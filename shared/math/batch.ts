import { computeGroupAdvantages, isCriticEstimator } from './advantages';
import { defaultGigpoOptions, gigpoAdvantages, type GigpoOptions } from './gigpo';
import { environmentFailures, Outcomes, truncatedOutcomes, type Outcome } from '../contracts/outcomes';

/** How truncated episodes (turn limit, token limit, deadline) enter training. */
export const TruncationPolicies = {
  /** reward 0: teaches to hand in before the limit */
  zero: 'zero',
  /** excluded, as DeepSWE's compact filtering: only deliberate submissions are rewarded or punished */
  drop: 'drop',
  /**
   * reward 0 plus the critic's value at the episode's last state (the trainer adds it: a critic estimator only),
   * so a cut episode is worth what its state promised
   */
  bootstrap: 'bootstrap',
} as const;
export type TruncationPolicy = (typeof TruncationPolicies)[keyof typeof TruncationPolicies];

const truncations = truncatedOutcomes;
const criticEstimatorList = 'gae or gae_turn';

/** One episode as training sees it: token-level arrays of equal length. */
export interface EpisodeTokens {
  episodeId: string;
  /** episodes of one group share the task and the iteration */
  groupId: string;
  outcome: Outcome;
  reward: number | null;
  /** the whole context: prompt, actions and observations, exactly as generated or observed */
  tokenIds: number[];
  /** 1 for tokens the policy generated, 0 for prompt and observation tokens */
  lossMask: number[];
  /** behaviour log-prob of each token under the distribution it was sampled from (0 where mask is 0) */
  behaviourLogprobs: number[];
  /** policy version that generated each token (-1 where mask is 0) */
  policyVersions: number[];
  /** the decisions at the episode's stop points, for `stopCredit` */
  decisions?: StopDecision[];
  /**
   * step estimators (gigpo): each turn's action, in turn order: the position its tokens start at and
   * the key of the environment state it was taken from
   */
  turns?: { start: number; state: string }[];
  /**
   * step estimators, chat episodes whose template closed earlier samples (chat-context.ts): the turns trained in
   * those samples, before `turns`, in turn order: the sample (its index among the closed ones), the position its
   * action starts at there, its trained tokens, and the state it was taken from
   */
  earlierTurns?: EarlierTurn[];
}

/** A turn of an episode's sample closed before the row's own context (EpisodeTokens.earlierTurns). */
export interface EarlierTurn {
  sample: number;
  start: number;
  tokens: number;
  state: string;
}

/**
 * The decision after a check of a changed repository: the first token of the next action, which
 * chose `submit` or going on. `grade` is the reward submitting there would have earned (the
 * episode's own reward when it did submit); null when unknown (a probe that failed).
 */
export interface StopDecision {
  position: number;
  submitted: boolean;
  grade: number | null;
}

export interface BatchRow {
  episodeId: string;
  groupId: string;
  reward: number;
  advantage: number;
  tokenIds: number[];
  lossMask: number[];
  behaviourLogprobs: number[];
  policyVersions: number[];
  /** extra advantage at single positions (stop decisions), on top of the episode's advantage */
  decisionAdvantages?: { position: number; value: number }[];
  /**
   * step estimators: the advantage of each turn's action, in place of the episode's, from `start` to the next
   * entry's start (the episode's `advantage` stays the episode-level one)
   */
  turnAdvantages?: { start: number; value: number }[];
  /**
   * step estimators, chat episodes with closed samples: the advantages of the turns in those samples (by sample
   * index and start), which the batch builder puts on the samples' own rows; never written to the batch
   */
  earlierTurnAdvantages?: { sample: number; start: number; value: number }[];
  /**
   * the loss-mask ablation: 1 where a mask-1 token is the environment's (an observation), which the policy did not
   * sample: it has no behaviour log-prob, and the trainer takes the step's starting weights' instead
   */
  environmentMask?: number[];
  /** truncation bootstrap: a truncated episode whose last state's value the trainer adds to its reward */
  bootstrap?: boolean;
  /** the turn of each token ({@link turnIds}): the critic's turn boundaries */
  turnIds?: number[];
  /** a privileged critic's features at each token: [grade known, grade] of the latest stop point */
  privileged?: [number, number][];
}

export interface BatchCounts {
  episodes: number;
  environmentFailures: number;
  truncatedZeroed: number;
  truncatedDropped: number;
  agentCrashes: number;
  groupsKept: number;
  /** groups left with fewer than two valid episodes */
  groupsDropped: number;
  zeroAdvantageGroups: number;
  /** stop decisions that received credit */
  creditedDecisions: number;
  /** step estimators: step groups of two or more actions, and the trained tokens of the actions in them */
  stepGroups?: number;
  stepAdvantageTokens?: number;
  /** the loss-mask ablation: environment tokens trained on */
  environmentTokens?: number;
  /** truncated episodes kept for the critic's bootstrap */
  truncatedBootstrapped?: number;
}

/** The counts of a batch of `episodes` episodes before any is counted. */
export function emptyBatchCounts(episodes: number): BatchCounts {
  return {
    episodes,
    environmentFailures: 0,
    truncatedZeroed: 0,
    truncatedDropped: 0,
    agentCrashes: 0,
    groupsKept: 0,
    groupsDropped: 0,
    zeroAdvantageGroups: 0,
    creditedDecisions: 0,
  };
}

/**
 * Filters episodes by outcome, computes group-relative advantages and returns one row per kept
 * episode. Environment failures (sandbox_crash, policy_error, grader_error) never enter a batch;
 * agent_crash scores 0 and stays; truncated episodes follow `truncation`; a group left with fewer
 * than two valid episodes is dropped and counted.
 */
export function buildBatchRows(
  episodes: readonly EpisodeTokens[],
  options: { estimator: string; truncation: TruncationPolicy; stopCredit?: number; gigpo?: GigpoOptions },
): { rows: BatchRow[]; counts: BatchCounts } {
  const stepLevel = options.estimator === 'gigpo';
  // a critic estimator: the trainer computes the advantages from its values; every episode counts, even alone
  const critic = isCriticEstimator(options.estimator);
  const counts: BatchCounts = {
    ...emptyBatchCounts(episodes.length),
    ...(stepLevel ? { stepGroups: 0, stepAdvantageTokens: 0 } : {}),
  };
  const { groups, bootstrapped } = groupedRewards(episodes, options, counts);
  const rows: BatchRow[] = [];
  for (const [groupId, members] of groups) {
    if (members.length < 2 && !critic) {
      counts.groupsDropped++;
      continue;
    }
    counts.groupsKept++;
    const rewards = members.map((member) => member.reward);
    let advantages: number[];
    let turnAdvantages: { start: number; value: number }[][] | null = null;
    let earlierAdvantages: { sample: number; start: number; value: number }[][] | null = null;
    if (stepLevel) {
      const turns = members.map(({ episode }) => {
        if (!episode.turns)
          throw new Error(`episode ${episode.episodeId}: the step estimator needs its turns (positions and states)`);
        return episode.turns;
      });
      const earlier = members.map(({ episode }) => episode.earlierTurns ?? []);
      const result = gigpoAdvantages(
        members.map(({ reward }, index) => ({
          reward,
          states: [...earlier[index]!, ...turns[index]!].map((turn) => turn.state),
        })),
        options.gigpo ?? defaultGigpoOptions,
      );
      advantages = result.episode;
      // an episode's action values: its earlier samples' turns first, then its own
      turnAdvantages = turns.map((list, index) =>
        list.map((turn, k) => ({ start: turn.start, value: result.actions[index]![earlier[index]!.length + k]! })),
      );
      earlierAdvantages = earlier.map((list, index) =>
        list.map((turn, k) => ({ sample: turn.sample, start: turn.start, value: result.actions[index]![k]! })),
      );
      counts.stepGroups! += result.stepGroups;
      members.forEach(({ episode }, index) => {
        const before = earlier[index]!;
        before.forEach((turn, k) => {
          if (result.grouped[index]![k]) counts.stepAdvantageTokens! += turn.tokens;
        });
        turns[index]!.forEach((turn, k) => {
          if (!result.grouped[index]![before.length + k]) return;
          const end = turns[index]![k + 1]?.start ?? episode.lossMask.length;
          for (let position = turn.start; position < end; position++)
            counts.stepAdvantageTokens! += episode.lossMask[position] === 1 ? 1 : 0;
        });
      });
      if (result.actions.every((values) => values.every((value) => value === 0))) counts.zeroAdvantageGroups++;
    } else if (critic) {
      advantages = rewards.map(() => 0); // the trainer's, from its critic
    } else {
      advantages = computeGroupAdvantages(options.estimator, rewards);
      if (advantages.every((advantage) => advantage === 0)) counts.zeroAdvantageGroups++;
    }
    const groupMean = rewards.reduce((sum, value) => sum + value, 0) / rewards.length;
    members.forEach(({ episode, reward }, index) => {
      const decisionAdvantages = options.stopCredit
        ? stopDecisionAdvantages(episode.decisions ?? [], reward, groupMean, options.stopCredit)
        : [];
      counts.creditedDecisions += decisionAdvantages.length;
      rows.push({
        episodeId: episode.episodeId,
        groupId,
        reward,
        advantage: advantages[index]!,
        tokenIds: episode.tokenIds,
        lossMask: episode.lossMask,
        behaviourLogprobs: episode.behaviourLogprobs,
        policyVersions: episode.policyVersions,
        ...(decisionAdvantages.length ? { decisionAdvantages } : {}),
        ...(turnAdvantages ? { turnAdvantages: turnAdvantages[index]! } : {}),
        ...(earlierAdvantages?.[index]?.length ? { earlierTurnAdvantages: earlierAdvantages[index] } : {}),
        ...(bootstrapped.has(episode.episodeId) ? { bootstrap: true } : {}),
      });
    });
  }
  return { rows, counts };
}

/**
 * The episodes a batch trains on, by group, with the reward each trains on: environment failures left out, truncated
 * episodes as `truncation` says (`bootstrapped`: those whose last state's value the trainer adds), agent crashes at 0;
 * each counted in `counts`.
 */
function groupedRewards(
  episodes: readonly EpisodeTokens[],
  options: { estimator: string; truncation: TruncationPolicy },
  counts: BatchCounts,
): { groups: Map<string, { episode: EpisodeTokens; reward: number }[]>; bootstrapped: Set<string> } {
  const critic = isCriticEstimator(options.estimator);
  const bootstrapped = new Set<string>();
  const groups = new Map<string, { episode: EpisodeTokens; reward: number }[]>();
  for (const episode of episodes) {
    checkAligned(episode);
    let reward: number;
    if (environmentFailures.includes(episode.outcome)) {
      counts.environmentFailures++;
      continue;
    } else if (truncations.includes(episode.outcome)) {
      if (options.truncation === TruncationPolicies.drop) {
        counts.truncatedDropped++;
        continue;
      }
      if (options.truncation === TruncationPolicies.bootstrap) {
        if (!critic)
          throw new Error(
            `truncation bootstrap needs a critic (estimator ${criticEstimatorList}), not ${options.estimator}`,
          );
        counts.truncatedBootstrapped = (counts.truncatedBootstrapped ?? 0) + 1;
        bootstrapped.add(episode.episodeId);
      } else {
        counts.truncatedZeroed++;
      }
      reward = 0;
    } else if (episode.outcome === Outcomes.agentCrash) {
      counts.agentCrashes++;
      reward = 0;
    } else {
      if (episode.reward === null)
        throw new Error(`episode ${episode.episodeId}: outcome ${episode.outcome} needs a reward`);
      reward = episode.reward;
    }
    const group = groups.get(episode.groupId) ?? [];
    group.push({ episode, reward });
    groups.set(episode.groupId, group);
  }
  return { groups, bootstrapped };
}

/**
 * Credit of the stop decisions of one episode whose (possibly zeroed) reward is `reward`, in a
 * group whose mean reward is `groupMean`. Submitting at a stop point is worth its grade g exactly
 * (the episode ends and the same state is graded); going on is worth what the episode then earned
 * (R). Each decision is credited against the other choice: `submit` gets g − groupMean (the group's
 * mean stands in for going on, which was not observed), going on gets R − g. So leaving a state
 * that would have passed costs up to 1, submitting a failing one costs the group's mean, and going
 * on from a failing state pays when the episode later succeeds. A decision with an unknown grade gets
 * nothing; zero values are left out.
 */
export function stopDecisionAdvantages(
  decisions: readonly StopDecision[],
  reward: number,
  groupMean: number,
  coefficient: number,
): { position: number; value: number }[] {
  const credited: { position: number; value: number }[] = [];
  for (const decision of decisions) {
    const grade = decision.submitted ? reward : decision.grade;
    if (grade === null) continue;
    const value = coefficient * (decision.submitted ? grade - groupMean : reward - grade);
    if (value !== 0) credited.push({ position: decision.position, value });
  }
  return credited;
}

/**
 * Per-token advantages of a row: the episode's full advantage on every mask-1 token (or, with turn
 * advantages, each turn's from its start to the next turn's), 0 elsewhere, plus the row's decision
 * advantages at their positions.
 */
export function tokenAdvantages(
  row: Pick<BatchRow, 'advantage' | 'lossMask' | 'decisionAdvantages' | 'turnAdvantages'>,
): number[] {
  const values = row.lossMask.map((mask) => (mask === 1 ? row.advantage : 0));
  const turns = row.turnAdvantages ?? [];
  turns.forEach(({ start, value }, index) => {
    const end = turns[index + 1]?.start ?? values.length;
    for (let position = start; position < end; position++) if (row.lossMask[position] === 1) values[position] = value;
  });
  for (const { position, value } of row.decisionAdvantages ?? []) {
    if (row.lossMask[position] !== 1)
      throw new Error(`a decision advantage at position ${position} falls on a token outside the loss mask`);
    values[position]! += value;
  }
  return values;
}

/** Right-padded (B, T) arrays of a batch; padding has mask 0. */
export function padRows(
  rows: readonly BatchRow[],
  padId: number,
): {
  length: number;
  tokenIds: number[][];
  lossMask: number[][];
  behaviourLogprobs: number[][];
  policyVersions: number[][];
  /** present when a row has one */
  environmentMask?: number[][];
  /** present when the rows have them */
  turnIds?: number[][];
  /** present when the rows have them: (B, T, 2) */
  privileged?: [number, number][][];
} {
  const length = Math.max(0, ...rows.map((row) => row.tokenIds.length));
  const pad = <T>(values: readonly T[], fill: T) => [...values, ...Array<T>(length - values.length).fill(fill)];
  return {
    length,
    tokenIds: rows.map((row) => pad(row.tokenIds, padId)),
    lossMask: rows.map((row) => pad(row.lossMask, 0)),
    behaviourLogprobs: rows.map((row) => pad(row.behaviourLogprobs, 0)),
    policyVersions: rows.map((row) => pad(row.policyVersions, -1)),
    ...(rows.length && rows.every((row) => row.turnIds) ? { turnIds: rows.map((row) => pad(row.turnIds!, -1)) } : {}),
    ...(rows.length && rows.every((row) => row.privileged)
      ? { privileged: rows.map((row) => pad(row.privileged!, [0, 0] as [number, number])) }
      : {}),
    ...(rows.some((row) => row.environmentMask)
      ? { environmentMask: rows.map((row) => pad(row.environmentMask ?? row.lossMask.map(() => 0), 0)) }
      : {}),
  };
}

function checkAligned(episode: EpisodeTokens): void {
  const length = episode.tokenIds.length;
  for (const [name, values] of [
    ['lossMask', episode.lossMask],
    ['behaviourLogprobs', episode.behaviourLogprobs],
    ['policyVersions', episode.policyVersions],
  ] as const) {
    if (values.length !== length)
      throw new Error(`episode ${episode.episodeId}: ${name} has ${values.length} entries, tokenIds ${length}`);
  }
  if (length > 0 && episode.lossMask[0] !== 0)
    throw new Error(`episode ${episode.episodeId}: the first token has no log-prob, so its loss mask must be 0`);
}

/**
 * The turn of each token of a row: k on the action tokens (mask 1) from turn k's start up to turn k + 1's,
 * -1 elsewhere. `starts`: where each turn's action starts (the agent interface's actionStarts); without them
 * each maximal run of action tokens is a turn.
 */
export function turnIds(lossMask: readonly number[], starts?: readonly number[]): number[] {
  const ids = lossMask.map(() => -1);
  if (starts) {
    starts.forEach((start, turn) => {
      const end = starts[turn + 1] ?? lossMask.length;
      for (let position = start; position < end; position++) if (lossMask[position] === 1) ids[position] = turn;
    });
    return ids;
  }
  return turnIds(lossMask, generatedRunStarts(lossMask));
}

/**
 * Where each run of mask-1 tokens starts: a chat sample's turns, whose generated ids are appended as one run each
 * (activities/policies/chat/chat-context.ts).
 */
export function generatedRunStarts(lossMask: readonly number[]): number[] {
  const starts: number[] = [];
  lossMask.forEach((mask, position) => {
    if (mask === 1 && (position === 0 || lossMask[position - 1] !== 1)) starts.push(position);
  });
  return starts;
}

import { computeGroupAdvantages } from './advantages';
import { environmentFailures, Outcomes, type Outcome } from './outcomes';

/** How truncated episodes (turn limit, token limit, deadline) enter training. */
export const TruncationPolicies = {
  /** reward 0: teaches to hand in before the limit */
  zero: 'zero',
  /** excluded, as DeepSWE's compact filtering: only deliberate submissions are rewarded or punished */
  drop: 'drop',
} as const;
export type TruncationPolicy = (typeof TruncationPolicies)[keyof typeof TruncationPolicies];

const truncations: readonly Outcome[] = [Outcomes.turnLimit, Outcomes.tokenLimit, Outcomes.timeout];

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
}

/**
 * Filters episodes by outcome, computes group-relative advantages and returns one row per kept
 * episode. Environment failures (sandbox_crash, policy_error, grader_error) never enter a batch;
 * agent_crash scores 0 and stays; truncated episodes follow `truncation`; a group left with fewer
 * than two valid episodes is dropped and counted.
 */
export function buildBatchRows(episodes: readonly EpisodeTokens[], options: { estimator: string; truncation: TruncationPolicy }): { rows: BatchRow[]; counts: BatchCounts } {
  const counts: BatchCounts = { episodes: episodes.length, environmentFailures: 0, truncatedZeroed: 0, truncatedDropped: 0, agentCrashes: 0, groupsKept: 0, groupsDropped: 0, zeroAdvantageGroups: 0 };
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
      counts.truncatedZeroed++;
      reward = 0;
    } else if (episode.outcome === Outcomes.agentCrash) {
      counts.agentCrashes++;
      reward = 0;
    } else {
      if (episode.reward === null) throw new Error(`episode ${episode.episodeId}: outcome ${episode.outcome} needs a reward`);
      reward = episode.reward;
    }
    const group = groups.get(episode.groupId) ?? [];
    group.push({ episode, reward });
    groups.set(episode.groupId, group);
  }
  const rows: BatchRow[] = [];
  for (const [groupId, members] of groups) {
    if (members.length < 2) {
      counts.groupsDropped++;
      continue;
    }
    counts.groupsKept++;
    const advantages = computeGroupAdvantages(options.estimator, members.map((member) => member.reward));
    if (advantages.every((advantage) => advantage === 0)) counts.zeroAdvantageGroups++;
    members.forEach(({ episode, reward }, index) => {
      rows.push({
        episodeId: episode.episodeId, groupId, reward, advantage: advantages[index]!,
        tokenIds: episode.tokenIds, lossMask: episode.lossMask, behaviourLogprobs: episode.behaviourLogprobs, policyVersions: episode.policyVersions,
      });
    });
  }
  return { rows, counts };
}

/** Per-token advantages of a row: the episode's full advantage on every mask-1 token, 0 elsewhere. */
export function tokenAdvantages(row: Pick<BatchRow, 'advantage' | 'lossMask'>): number[] {
  return row.lossMask.map((mask) => (mask === 1 ? row.advantage : 0));
}

/** Right-padded (B, T) arrays of a batch; padding has mask 0. */
export function padRows(rows: readonly BatchRow[], padId: number): { length: number; tokenIds: number[][]; lossMask: number[][]; behaviourLogprobs: number[][]; policyVersions: number[][] } {
  const length = Math.max(0, ...rows.map((row) => row.tokenIds.length));
  const pad = <T>(values: readonly T[], fill: T) => [...values, ...Array<T>(length - values.length).fill(fill)];
  return {
    length,
    tokenIds: rows.map((row) => pad(row.tokenIds, padId)),
    lossMask: rows.map((row) => pad(row.lossMask, 0)),
    behaviourLogprobs: rows.map((row) => pad(row.behaviourLogprobs, 0)),
    policyVersions: rows.map((row) => pad(row.policyVersions, -1)),
  };
}

function checkAligned(episode: EpisodeTokens): void {
  const length = episode.tokenIds.length;
  for (const [name, values] of [['lossMask', episode.lossMask], ['behaviourLogprobs', episode.behaviourLogprobs], ['policyVersions', episode.policyVersions]] as const) {
    if (values.length !== length) throw new Error(`episode ${episode.episodeId}: ${name} has ${values.length} entries, tokenIds ${length}`);
  }
  if (length > 0 && episode.lossMask[0] !== 0) throw new Error(`episode ${episode.episodeId}: the first token has no log-prob, so its loss mask must be 0`);
}

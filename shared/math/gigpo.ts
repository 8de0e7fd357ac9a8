import { advantageEstimators } from './advantages';

/**
 * GiGPO (Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978):
 * credit finer than the episode without a critic. Within one group (the episodes of one task), the
 * actions taken from the same environment state, in any episode and at any turn, form a step group
 * and are compared by their discounted returns from that state; an action's advantage is its
 * episode's GRPO advantage plus `omega` times its step advantage:
 *
 *   A(i, k) = A_E(i) + omega * A_S(i, k)
 *   A_E(i)  = (R_i - mean R) / F,                      over the group's episodes
 *   A_S(i,k)= (G_ik - mean G) / F,                     over the actions taken from state s_ik
 *   G_ik    = gamma^(T_i - 1 - k) * R_i                (the reward arrives after the last of T_i actions)
 *
 * F is the population std (`normalise: "std"`, the paper's default; a set whose std is below
 * `stdEpsilon` gets zeros) or 1 (`"none"`, the paper's mean-norm variant). An action whose state
 * no other action shares has A_S = 0, so a group with no repeated state gets exactly GRPO (or
 * Dr. GRPO). Pure; golden cases in shared/golden/gigpo.json, which the Python reference
 * (trainer/agentrl_reference/gigpo.py) writes and both suites read.
 */
export interface GigpoOptions {
  /** weight of the step-level advantage (the paper: 1) */
  omega: number;
  /** discount of the return from a state to the episode's end (the paper: 0.95) */
  gamma: number;
  /** `std`: both levels divided by their std (GRPO); `none`: mean-centred only (Dr. GRPO) */
  normalise: 'std' | 'none';
}
export const defaultGigpoOptions: GigpoOptions = { omega: 1, gamma: 0.95, normalise: 'std' };

/** One episode of a group: its reward and the key of the state each of its actions was taken from. */
export interface GigpoEpisode {
  reward: number;
  /** states[k]: the state turn k's action was taken from (every episode's first is the task's start) */
  states: readonly string[];
}

export interface GigpoResult {
  /** the episode-level advantage of each episode */
  episode: number[];
  /** the combined advantage of each episode's each action */
  actions: number[][];
  /** the step-level advantage of each action (0 where its state is not shared) */
  step: number[][];
  /** whether each action is in a step group of two or more */
  grouped: boolean[][];
  /** step groups of two or more actions */
  stepGroups: number;
  /** actions that are in a step group of two or more */
  groupedActions: number;
}

/** GiGPO advantages of one group. Throws on a non-finite reward or a bad option. */
export function gigpoAdvantages(episodes: readonly GigpoEpisode[], options: GigpoOptions): GigpoResult {
  if (!(options.gamma > 0 && options.gamma <= 1))
    throw new Error(`gigpo: gamma must lie in (0, 1], got ${options.gamma}`);
  if (!(options.omega >= 0)) throw new Error(`gigpo: omega must be >= 0, got ${options.omega}`);
  if (episodes.some((episode) => !Number.isFinite(episode.reward)))
    throw new Error(`gigpo: rewards must be finite numbers, got ${JSON.stringify(episodes.map((e) => e.reward))}`);
  const centre = options.normalise === 'std' ? advantageEstimators.grpo : advantageEstimators.dr_grpo;
  const rewards = episodes.map((episode) => episode.reward);
  const episodeLevel = episodes.length < 2 ? rewards.map(() => 0) : centre(rewards);
  const step = episodes.map((episode) => episode.states.map(() => 0));
  const grouped = episodes.map((episode) => episode.states.map(() => false));
  const byState = new Map<string, { episode: number; turn: number; value: number }[]>();
  episodes.forEach((episode, index) => {
    const last = episode.states.length - 1;
    episode.states.forEach((state, turn) => {
      const members = byState.get(state) ?? [];
      members.push({ episode: index, turn, value: options.gamma ** (last - turn) * episode.reward });
      byState.set(state, members);
    });
  });
  let stepGroups = 0;
  let groupedActions = 0;
  for (const members of byState.values()) {
    if (members.length < 2) continue;
    stepGroups++;
    groupedActions += members.length;
    const values = centre(members.map((member) => member.value));
    members.forEach((member, index) => {
      step[member.episode]![member.turn] = values[index]!;
      grouped[member.episode]![member.turn] = true;
    });
  }
  return {
    episode: episodeLevel,
    step,
    grouped,
    actions: step.map((values, index) => values.map((value) => episodeLevel[index]! + options.omega * value)),
    stepGroups,
    groupedActions,
  };
}

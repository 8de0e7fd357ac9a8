import { createHash } from 'node:crypto';
import type { TurnRecord } from '../store/episode-records';

/**
 * The environment state each turn's action was taken from, as a key that two episodes of one task
 * share exactly when they reached the same state (GiGPO's step groups, shared/math/gigpo.ts).
 *
 * Every episode of a group starts from the task's state (`start`). After a turn, the state is the
 * observation the tool gave (its text and exit code) together with the repository, which is named
 * by the sequence of actions that changed it so far (`isChange`: the agent interface's actionKind
 * for the compact language, whose edits are deterministic; every action for free-form tools). Two
 * equal keys are the same state for a deterministic environment; a tree reached by two different
 * sequences of changes gets two keys (fewer groups, never a wrong one).
 */
export async function turnStates(
  turns: readonly TurnRecord[],
  text: (ref: string) => Promise<string>,
  isChange: (action: string) => boolean,
): Promise<string[]> {
  const digest = (...parts: string[]) => {
    const hash = createHash('sha256');
    for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
    return hash.digest('hex').slice(0, 32);
  };
  const states: string[] = [];
  let changes = 'start';
  let state = 'start';
  for (const turn of [...turns].sort((a, b) => a.turn - b.turn)) {
    states.push(state);
    const action = await text(turn.action.ref);
    if (isChange(action)) changes = digest(changes, action);
    const observation = await text(turn.observation.ref);
    state = digest(changes, String(turn.observation.exitCode), observation);
  }
  return states;
}

import { allowedActions, isChange, isCheck, type PolicyMemory } from './action-space';
import { allCandidates } from './edit-candidates';
import { isEditAction } from './language';

/**
 * The format demonstrator: valid actions in a sensible order, mostly `locate`, an edit, a check
 * with `locate`, then mostly another edit (sometimes `submit`, `show`, `run` or `write_test`), until
 * the turn budget ends it with a check and `submit`. Edits are drawn at random and the choice after a check
 * ignores what the check printed, so it teaches the format and never a fix, nor when to stop: to
 * submit when a check prints `no test fails` is what training has to learn from the observations.
 * `write_test` is rare (about 4% of demonstrations): it stays reachable, so a weak checker's reward for
 * it is found, without drowning the signal of the check under a strict one (after `write_test`
 * every check passes, whatever the source).
 */
export function demoAction(memory: PolicyMemory, random: () => number, maxTurns: number): string {
  const allowed = new Set(allowedActions(memory));
  const edits = allCandidates(memory.sourceLines).filter((action) => allowed.has(action));
  const done = memory.actions;
  const last = done.at(-1) ?? '';
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // a weighted draw among the choices the constraint allows ('edit' stands for a random edit)
  const choose = (weights: Record<string, number>): string => {
    const options = Object.entries(weights).filter(([action]) =>
      action === 'edit' ? edits.length > 0 : allowed.has(action),
    );
    let roll = random() * options.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [action, weight] of options) {
      roll -= weight;
      if (roll < 0) return action === 'edit' ? pick(edits) : action;
    }
    return edits.length ? pick(edits) : 'write_test';
  };
  const lastChange = [...done].reverse().find(isChange);
  // the last two turns check the last change and submit
  if (done.length >= maxTurns - 2) return choose(allowed.has('submit') ? { submit: 1 } : { locate: 0.9, run: 0.1 });
  if (last === 'write_test') return choose({ run: 0.8, locate: 0.2 });
  if (isCheck(last) && lastChange?.trim() === 'write_test') return choose({ submit: 0.9, edit: 0.1 });
  if (edits.length === 0) {
    // nothing to edit yet; after a locate that listed nothing usable, look at the whole source
    if (done.includes('locate')) return choose({ show: 0.9, run: 0.08, write_test: 0.02 });
    return choose({ locate: 0.9, show: 0.05, run: 0.04, write_test: 0.01 });
  }
  if (!done.some(isEditAction)) return choose({ edit: 0.97, run: 0.02, write_test: 0.01 });
  if (isEditAction(last)) return choose({ locate: 0.9, run: 0.1 });
  return choose({ edit: 0.75, submit: 0.25 });
}

import { z } from 'zod';
import type { ObservationMode } from '../contracts/model-context';
import type { WordTokenizer } from '../math/tokenizer';
import { allCandidates, parseEditResult, parseShownSource, type SourceLine } from './edit-candidates';
import { actionKind, isEditAction } from './language';

/**
 * The constrained action space of the compact action language: which action strings a policy may
 * write in a state, and the prefix tree of their token ids that the sampler walks. The same allowed
 * sets go to the trainer with the batch (`allowed_patterns`), which applies the same constraint.
 */

const SourceLineSchema = z.object({ path: z.string(), line: z.number().int(), code: z.string() });

/**
 * What the policy knows between turns besides the ids: the source it has been shown, with every line
 * at its starting text (edits apply to that text, so candidates are computed from it), its past
 * actions, and the lines it has changed with their current text (`start`: the starting text, null
 * when the policy never saw the line).
 */
export const PolicyMemory = z.object({
  sourceLines: z.array(SourceLineSchema),
  actions: z.array(z.string()),
  /** lines changed by an edit or swap (absent before the first edit) */
  edited: z.array(SourceLineSchema.extend({ start: z.string().nullable() })).optional(),
});
export type PolicyMemory = z.infer<typeof PolicyMemory>;

export const emptyMemory = (): PolicyMemory => ({ sourceLines: [], actions: [] });

/** An action that changes the repository: an edit, a swap or `write_test`. */
export const isChange = (action: string): boolean => actionKind(action) === 'change';
/** An action that runs the tests: `run` or `locate`. */
export const isCheck = (action: string | undefined): boolean => action !== undefined && actionKind(action) === 'check';

/**
 * The action strings the constrained sampler allows in a state: the commands and every edit of the
 * lines it knows, except what cannot tell anything new: `submit` anywhere but right after a check
 * (`run` or `locate`) of a changed repository (an edit, a swap or `write_test` made it so; an agent
 * submits what it has tested), a command right after itself (`run`, `show` and `locate` would
 * print the same again), and an edit or swap already made in the episode (edits apply to a line's
 * starting text, so it would bring back a version of the line that was already tried).
 */
export function allowedActions(memory: PolicyMemory): string[] {
  const last = memory.actions.at(-1)?.trim();
  const commands = ['run', 'show', 'locate', 'write_test'].filter((command) => command !== last);
  const tried = new Set(memory.actions.filter(isEditAction).map((action) => action.trim()));
  return [
    ...commands,
    ...(atStopPoint(memory) ? ['submit'] : []),
    ...allCandidates(memory.sourceLines).filter((action) => !tried.has(action)),
  ];
}

/**
 * A stop point (language.ts actionKind): the last action checked a changed repository, so the next
 * action decides between `submit` and going on. The only states where the constraint allows `submit`.
 */
export function atStopPoint(memory: PolicyMemory): boolean {
  return isCheck(memory.actions.at(-1)?.trim()) && memory.actions.some(isChange);
}

const sameLine = (a: SourceLine) => (b: SourceLine) => a.path === b.path && a.line === b.line;

/**
 * The policy's memory after a turn: a `show` replaces the source it knows; a `locate` that listed
 * lines replaces it with them, unless observations are blanked (`locate`'s ranking is a test result,
 * which a blank policy must not read, even through its constraint). Both print current text, so a
 * line the policy has changed keeps its starting text in memory. A successful edit records the
 * line's new text; the known source keeps the starting text, which the next edit applies to.
 * `observation` is the tool's output without the exit-status footer.
 */
export function rememberTurn(
  memory: PolicyMemory,
  action: string,
  observation: string,
  exitCode: number | null,
  observations: ObservationMode = 'full',
): PolicyMemory {
  const command = action.trim().split(' ')[0];
  const edited = memory.edited ?? [];
  const starting = (lines: SourceLine[]) =>
    lines.map((line) => ({ ...line, code: edited.find(sameLine(line))?.start ?? line.code }));
  let sourceLines = memory.sourceLines;
  let nowEdited = edited;
  if (command === 'show' && exitCode === 0) sourceLines = starting(parseShownSource(observation));
  else if (command === 'locate' && exitCode === 1 && observations === 'full') {
    const listed = parseShownSource(observation);
    if (listed.length > 0) sourceLines = starting(listed);
  } else if ((command === 'edit' || command === 'swap') && exitCode === 0) {
    const result = parseEditResult(observation);
    if (result) {
      const start = edited.find(sameLine(result))?.start ?? memory.sourceLines.find(sameLine(result))?.code ?? null;
      nowEdited = [...edited.filter((line) => !sameLine(line)(result)), { ...result, start }];
    }
  }
  return { sourceLines, actions: [...memory.actions, action], edited: nowEdited };
}

/** Longest allowed action in tokens, with the closing id: the room a turn needs in the window. */
export function longestAction(memory: PolicyMemory, tokenizer: WordTokenizer): number {
  return Math.max(...allowedActions(memory).map((action) => tokenizer.encode(action).length)) + 1;
}

/**
 * A prefix tree over the canonical token ids of the allowed action strings, each ending in the
 * stop id: at every step the allowed ids are the children of the node reached so far, so sampling
 * within it can only produce one of the strings.
 */
export class ActionTrie {
  private readonly root = new Map<number, TrieNode>();

  constructor(actions: readonly string[], tokenizer: WordTokenizer, stopId: number) {
    for (const action of new Set(actions)) {
      let level = this.root;
      for (const id of [...tokenizer.encode(action), stopId]) {
        let node = level.get(id);
        if (!node) {
          node = { children: new Map() };
          level.set(id, node);
        }
        level = node.children;
      }
    }
  }

  /** The ids allowed after `prefix` (sorted); [] when the prefix is complete or outside the tree. */
  allowedAfter(prefix: readonly number[]): number[] {
    let level = this.root;
    for (const id of prefix) {
      const node = level.get(id);
      if (!node) return [];
      level = node.children;
    }
    return [...level.keys()].sort((a, b) => a - b);
  }
}

interface TrieNode {
  children: Map<number, TrieNode>;
}

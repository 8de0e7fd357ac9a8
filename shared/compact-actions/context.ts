import type { StopDecision } from '../math/batch';
import type { StopRecord } from '../contracts/episode';
import type { ModelContext } from '../contracts/model-context';
import { policyTokenizer, type WordTokenizer } from '../math/tokenizer';
import { isEditAction } from './language';

/**
 * The layout of the model's context in the compact action language, in the embedded tokenizer's ids:
 *
 *   <bos> <task> PROMPT </task>  ( <act> ACTION </act> <obs> OBSERVATION </obs> )*
 *
 * ACTION tokens and the closing </act> are generated (mask 1); everything else is given (mask 0).
 */
const special = policyTokenizer.specialIds;
/** Opens an action: the sampler generates after it. */
export const actId = special['<act>']!;
/** Closes an action: the sampler's stop token, generated (mask 1). */
export const endActId = special['</act>']!;
const submitFirstId = policyTokenizer.encode('submit')[0]!;

/**
 * The task statement as the model reads it: the prompt's whitespace collapsed, its boilerplate
 * sentences (where the repository is, how tests run, what to do) dropped, and at most
 * `maxTokens` tokens of whole sentences (the first sentence is cut at a word when it alone is longer).
 */
export function compactPrompt(prompt: string, tokenizer: WordTokenizer, maxTokens: number): string {
  const text = prompt
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^Bug report:\s*/i, '');
  const sentences = text
    .split(/(?<=[.;])\s+/)
    .filter((sentence) => !/^(The repository is|Tests run with|Fix the bug|its docstring says)/i.test(sentence));
  let kept = '';
  for (const sentence of sentences) {
    const next = kept ? `${kept} ${sentence}` : sentence;
    if (tokenizer.encode(next).length > maxTokens) break;
    kept = next;
  }
  if (kept) return kept.replace(/;$/, '.');
  const words = (sentences[0] ?? '').split(' ');
  while (words.length > 1 && tokenizer.encode(words.join(' ')).length > maxTokens) words.pop();
  return words.join(' ');
}

/** The ids of a prompt: <bos> <task> PROMPT </task>, PROMPT at most `maxPromptTokens` (a single long word is cut). */
export function promptIds(prompt: string, tokenizer: WordTokenizer, maxPromptTokens: number): number[] {
  const ids = tokenizer.specialIds;
  const body = tokenizer.encode(compactPrompt(prompt, tokenizer, maxPromptTokens)).slice(0, maxPromptTokens);
  return [ids['<bos>']!, ids['<task>']!, ...body, ids['</task>']!];
}

/**
 * The ids of an observation: <obs> TEXT </obs>, TEXT cut to `maxTokens` with a stated cut, or
 * empty when observations are blanked.
 */
export function observationIds(
  observation: string,
  tokenizer: WordTokenizer,
  options: { mode: 'full' | 'blank'; maxTokens: number },
): number[] {
  const ids = tokenizer.specialIds;
  let body: number[] = [];
  if (options.mode === 'full') {
    body = tokenizer.encode(observation.trimEnd());
    if (body.length > options.maxTokens) {
      const marker = tokenizer.encode('\n[cut]');
      body = [...body.slice(0, Math.max(0, options.maxTokens - marker.length)), ...marker];
    }
  }
  return [ids['<obs>']!, ...body, ids['</obs>']!];
}

/**
 * The loss mask of a format demonstration: the context's mask with every token of an `edit` or
 * `swap` action after its first one set to 0, so imitation learns which command comes next but
 * never which line, text or replacement an edit names (a demonstration cannot teach a fix).
 */
export function formatOnlyMask(context: Pick<ModelContext, 'ids' | 'lossMask'>, tokenizer: WordTokenizer): number[] {
  const { ids } = context;
  const mask = [...context.lossMask];
  const act = tokenizer.specialIds['<act>']!;
  const endAct = tokenizer.specialIds['</act>']!;
  for (let start = ids.indexOf(act); start >= 0; start = ids.indexOf(act, start + 1)) {
    let end = ids.indexOf(endAct, start + 1);
    if (end < 0) end = ids.length - 1;
    let text: string;
    try {
      text = tokenizer.decode(ids.slice(start + 1, end));
    } catch {
      continue;
    }
    if (isEditAction(text)) mask.fill(0, start + 2, end + 1);
  }
  return mask;
}

/** Where each turn's action starts: turn k's action follows the k-th `<act>` marker. */
export function actionStarts(ids: readonly number[]): number[] {
  const starts: number[] = [];
  ids.forEach((id, index) => {
    if (id === actId) starts.push(index + 1);
  });
  return starts;
}

/**
 * The decision of each stop point: the first token of the action after the stop's check (turn k's
 * action follows the k-th `<act>` marker). A stop whose next action is not in the context (the
 * episode ended there) decides nothing, and neither does one where the constraint left no choice
 * of `submit`.
 */
export function stopDecisions(
  context: Pick<ModelContext, 'ids' | 'lossMask' | 'allowed'>,
  stops: readonly StopRecord[],
): StopDecision[] {
  const { ids, lossMask: mask, allowed } = context;
  const starts = actionStarts(ids);
  const decisions: StopDecision[] = [];
  for (const stop of stops) {
    const position = starts[stop.turn + 1];
    if (position === undefined || mask[position] !== 1) continue;
    const choices = allowed[position];
    if (choices && !choices.includes(submitFirstId)) continue;
    decisions.push({
      position,
      submitted: stop.submitted,
      grade: stop.submitted ? null : stop.passed ? stop.probe : 0,
    });
  }
  return decisions;
}

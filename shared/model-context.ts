import { isEditAction } from './action-language';
import type { WordTokenizer } from './tokenizer';

/**
 * What a token-level policy sees and what training gets: the whole context as token ids with, per
 * position, the loss mask, the behaviour log-prob, the policy version and the set of ids the sampler
 * allowed. Layout:
 *
 *   <bos> <task> PROMPT </task>  ( <act> ACTION </act> <obs> OBSERVATION </obs> )*
 *
 * ACTION tokens and the closing </act> are generated (mask 1); everything else is given (mask 0).
 */
export interface ModelContext {
  ids: number[];
  mask: number[];
  logprobs: number[];
  /** policy version of each generated token; '' where mask is 0 */
  versions: string[];
  /** ids the sampler allowed when it drew each generated token; null where mask is 0 or unconstrained */
  allowed: (number[] | null)[];
}

/** How observations reach the model: as the tool printed them, or blanked (an ablation). */
export const ObservationModes = ['full', 'blank'] as const;
export type ObservationMode = (typeof ObservationModes)[number];

export function emptyContext(): ModelContext {
  return { ids: [], mask: [], logprobs: [], versions: [], allowed: [] };
}

/** Appends tokens the policy did not generate. */
export function appendGiven(context: ModelContext, ids: readonly number[]): void {
  for (const id of ids) {
    context.ids.push(id);
    context.mask.push(0);
    context.logprobs.push(0);
    context.versions.push('');
    context.allowed.push(null);
  }
}

/** Appends one generated token with its behaviour log-prob, version and allowed set. */
export function appendGenerated(context: ModelContext, id: number, logprob: number, version: string, allowed: readonly number[] | null): void {
  context.ids.push(id);
  context.mask.push(1);
  context.logprobs.push(logprob);
  context.versions.push(version);
  context.allowed.push(allowed ? [...allowed] : null);
}

/**
 * The task statement as the model reads it: the prompt's whitespace collapsed, its boilerplate
 * sentences (where the repository is, how tests run, what to do) dropped, and at most
 * `maxTokens` tokens of whole sentences (the first sentence is cut at a word when it alone is longer).
 */
export function compactPrompt(prompt: string, tokenizer: WordTokenizer, maxTokens: number): string {
  const text = prompt.replace(/\s+/g, ' ').trim().replace(/^Bug report:\s*/i, '');
  const sentences = text.split(/(?<=[.;])\s+/).filter((sentence) => !/^(The repository is|Tests run with|Fix the bug|its docstring says)/i.test(sentence));
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
  const special = tokenizer.specialIds;
  const body = tokenizer.encode(compactPrompt(prompt, tokenizer, maxPromptTokens)).slice(0, maxPromptTokens);
  return [special['<bos>']!, special['<task>']!, ...body, special['</task>']!];
}

/**
 * The ids of an observation: <obs> TEXT </obs>, TEXT cut to `maxTokens` with a stated cut, or
 * empty when observations are blanked.
 */
export function observationIds(observation: string, tokenizer: WordTokenizer, options: { mode: ObservationMode; maxTokens: number }): number[] {
  const special = tokenizer.specialIds;
  let body: number[] = [];
  if (options.mode === 'full') {
    body = tokenizer.encode(observation.trimEnd());
    if (body.length > options.maxTokens) {
      const marker = tokenizer.encode('\n[cut]');
      body = [...body.slice(0, Math.max(0, options.maxTokens - marker.length)), ...marker];
    }
  }
  return [special['<obs>']!, ...body, special['</obs>']!];
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

/**
 * The loss mask of a format demonstration: the context's mask with every token of an `edit` or
 * `swap` action after its first one set to 0, so imitation learns which command comes next but
 * never which line, text or replacement an edit names (a demonstration cannot teach a fix).
 */
export function formatOnlyMask(context: Pick<ModelContext, 'ids' | 'mask'>, tokenizer: WordTokenizer): number[] {
  const { ids } = context;
  const mask = [...context.mask];
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

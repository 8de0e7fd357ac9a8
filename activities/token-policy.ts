import { createHash } from 'node:crypto';
import { actionKind, isEditAction } from '../shared/action-language';
import type { SamplingOptions } from '../shared/episode';
import { allCandidates, parseEditResult, parseShownSource, type SourceLine } from '../shared/edit-candidates';
import { ActionTrie, appendGenerated, type ModelContext, type ObservationMode } from '../shared/model-context';
import { policyTokenizer } from '../shared/tokenizer';
import { seededRandom } from '../shared/random';

/** The snapshot of a token-level policy, stored in the artifact store at preparation. */
export interface TokenPolicySnapshot {
  kind: 'completions' | 'demo' | 'random';
  /** the server's base URL (completions only) */
  url: string | null;
  /** the model's context window in tokens */
  window: number;
  /** completions: the model (version) every request names; the server refuses another (absent in older snapshots) */
  model?: string;
  sampling: SamplingOptions;
}

/**
 * What the policy knows between turns besides the ids: the source it has been shown, with every line
 * at its starting text (edits apply to that text, so candidates are computed from it), its past
 * actions, and the lines it has changed with their current text.
 */
export interface PolicyMemory {
  sourceLines: SourceLine[];
  actions: string[];
  /** lines changed by an edit or swap, with their current and starting text (absent before the first edit) */
  edited?: EditedLine[];
}

/** A changed line: `code` is its current text, `start` its starting text (null when the policy never saw the line). */
export interface EditedLine extends SourceLine {
  start: string | null;
}

export class PolicyUnavailable extends Error {
  override name = 'PolicyUnavailable';
}

const special = policyTokenizer.specialIds;
export const actId = special['<act>']!;
export const endActId = special['</act>']!;

/** An action that changes the repository: an edit, a swap or `write_test`. */
const isChange = (action: string) => actionKind(action) === 'change';
/** An action that runs the tests: `run` or `locate`. */
const isCheck = (action: string | undefined) => action !== undefined && actionKind(action) === 'check';

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
  return [...commands, ...(atStopPoint(memory) ? ['submit'] : []), ...allCandidates(memory.sourceLines).filter((action) => !tried.has(action))];
}

/**
 * A stop point (shared/action-language.ts actionKind): the last action checked a changed repository,
 * so the next action decides between `submit` and going on. The only states where the constraint
 * allows `submit`.
 */
function atStopPoint(memory: PolicyMemory): boolean {
  return isCheck(memory.actions.at(-1)?.trim()) && memory.actions.some(isChange);
}

const sameLine = (a: SourceLine) => (b: SourceLine) => a.path === b.path && a.line === b.line;

/**
 * The policy's memory after a turn: a `show` replaces the source it knows; a `locate` that listed
 * lines replaces it with them, unless observations are blanked (`locate`'s ranking is a test result,
 * which a blank policy must not read, even through its constraint). Both print current text, so a
 * line the policy has changed keeps its starting text in memory. A successful edit records the
 * line's new text; the known source keeps the starting text, which the next edit applies to.
 */
export function rememberTurn(memory: PolicyMemory, action: string, observation: string, exitCode: number | null, observations: ObservationMode = 'full'): PolicyMemory {
  const command = action.trim().split(' ')[0];
  const edited = memory.edited ?? [];
  const starting = (lines: SourceLine[]) => lines.map((line) => ({ ...line, code: edited.find(sameLine(line))?.start ?? line.code }));
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

/** A 32-bit seed from the parts that identify one draw. */
export function drawSeed(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0);
}

export interface SampledAction {
  text: string;
  /** generated ids, the closing </act> included */
  tokenIds: number[];
  logprobs: number[];
  version: string;
}

/**
 * Samples one action into `context` (which already ends with <act>): token by token within the
 * action trie when constrained, else in one request that stops at </act>.
 */
export async function sampleAction(
  policy: TokenPolicySnapshot,
  context: ModelContext,
  memory: PolicyMemory,
  seedParts: (string | number)[],
  maxTurns: number,
): Promise<SampledAction> {
  const start = context.ids.length;
  if (policy.kind === 'demo') {
    const trie = new ActionTrie(allowedActions(memory), policyTokenizer, endActId);
    const target = [...policyTokenizer.encode(demoAction(memory, seededRandom(drawSeed(...seedParts, 'demo')), maxTurns)), endActId];
    for (const id of target) appendGenerated(context, id, 0, 'demo', policy.sampling.constrained ? trie.allowedAfter(context.ids.slice(start)) : null);
    return finish(context, start, 'demo');
  }
  if (!policy.sampling.constrained) {
    if (policy.kind !== 'completions') throw new Error('random: needs the constrained action space');
    const choice = await complete(policy, { prompt: context.ids, max_tokens: policy.sampling.maxActionTokens, stop_token_ids: [endActId], seed: drawSeed(...seedParts) });
    choice.ids.forEach((id, index) => appendGenerated(context, id, choice.logprobs[index]!, choice.version, null));
    return finish(context, start, choice.version);
  }
  const trie = new ActionTrie(allowedActions(memory), policyTokenizer, endActId);
  const random = seededRandom(drawSeed(...seedParts, 'uniform'));
  let version = policy.kind === 'random' ? 'random' : '';
  for (let step = 0; ; step++) {
    const allowed = trie.allowedAfter(context.ids.slice(start));
    if (allowed.length === 0) break;
    if (allowed.length === 1) {
      // a forced token has probability 1 under the constrained distribution; no model call is needed
      appendGenerated(context, allowed[0]!, 0, version, allowed);
    } else if (policy.kind === 'random') {
      appendGenerated(context, allowed[Math.floor(random() * allowed.length)]!, -Math.log(allowed.length), version, allowed);
    } else {
      const choice = await complete(policy, { prompt: context.ids, max_tokens: 1, allowed_token_ids: allowed, seed: drawSeed(...seedParts, step) });
      version = choice.version;
      appendGenerated(context, choice.ids[0]!, choice.logprobs[0]!, version, allowed);
    }
    if (context.ids.at(-1) === endActId) break;
  }
  // tokens forced before the first model call carry the version of the call that followed
  for (let index = start; index < context.ids.length; index++) if (context.versions[index] === '') context.versions[index] = version;
  return finish(context, start, version);
}

function finish(context: ModelContext, start: number, version: string): SampledAction {
  const tokenIds = context.ids.slice(start);
  const body = tokenIds.at(-1) === endActId ? tokenIds.slice(0, -1) : tokenIds;
  let text: string;
  try {
    text = policyTokenizer.decode(body);
  } catch {
    // a special token inside an action: the agent reads a tool error
    text = body.map((id) => (id < 256 ? String.fromCharCode(id) : `<|${id}|>`)).join('');
  }
  return { text, tokenIds, logprobs: context.logprobs.slice(start), version };
}

/** Longest allowed action in tokens, with </act>: the room a turn needs in the window. */
export function longestAction(memory: PolicyMemory): number {
  return Math.max(...allowedActions(memory).map((action) => policyTokenizer.encode(action).length)) + 1;
}

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
    const options = Object.entries(weights).filter(([action]) => (action === 'edit' ? edits.length > 0 : allowed.has(action)));
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

/** One `/v1/completions` call with token ids in and out; connection failures are retried briefly. */
async function complete(
  policy: TokenPolicySnapshot,
  request: { prompt: number[]; max_tokens: number; seed: number; stop_token_ids?: number[]; allowed_token_ids?: number[] },
): Promise<{ ids: number[]; logprobs: number[]; version: string }> {
  const body = JSON.stringify({ ...request, ...(policy.model ? { model: policy.model } : {}), temperature: policy.sampling.temperature, logprobs: 0, return_token_ids: true, n: 1 });
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${policy.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      continue;
    }
    const payload = (await response.json().catch(() => null)) as CompletionPayload | null;
    if (!response.ok || !payload) {
      const message = (payload as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${response.status}`;
      if (response.status >= 500) {
        lastError = new Error(message);
        continue;
      }
      throw new PolicyUnavailable(`policy server ${policy.url} refused the request: ${message}`);
    }
    const choice = payload.choices[0];
    if (!choice?.token_ids || !choice.logprobs) throw new PolicyUnavailable(`policy server ${policy.url} returned no token ids or log-probs`);
    return { ids: choice.token_ids, logprobs: choice.logprobs.token_logprobs, version: payload.model };
  }
  throw new PolicyUnavailable(`policy server ${policy.url} unreachable: ${(lastError as Error)?.message ?? lastError}`);
}

interface CompletionPayload {
  model: string;
  choices: { token_ids: number[] | null; logprobs: { token_logprobs: number[] } | null }[];
}

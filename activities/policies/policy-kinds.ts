import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import { type PolicySummary } from '../../shared/contracts/episode';
import { SamplingOptions } from '../../shared/contracts/episode-input';
import { ErrorTypes } from '../../shared/names/errors';
import { parsePolicySpec } from '../../shared/contracts/policy-spec';
import { byteTokenizer } from '../../shared/math/tokenizer';
import type { ArtifactStore } from '../store/artifact-store';
import { describeServer, PolicyUnavailable } from './completions-client';
import { PolicyError, type PolicyAction } from './policy-action';
import { FixedTurn, TokenPolicySnapshot } from './token-policy';
import { observationDelta } from './chat/chat-context';
import { loadChatTokenizer } from './chat/chat-tokenizer';
import { describeSglang, describeVllm, vllmTokenizesAs } from './chat/generation-clients';
import { compactActions } from '../../shared/compact-actions';

/** A scripted policy's snapshot: its actions in order, each the text the policy outputs at that turn. */
export const ScriptedSnapshot = z.object({ kind: z.literal('scripted'), actions: z.array(z.string()) });
export type ScriptedSnapshot = z.infer<typeof ScriptedSnapshot>;

/**
 * Reads a scripted policy file: JSON lines, each a tool call (`{"tool": "bash", ...}`, kept as
 * written) or a JSON string (any other output, e.g. an action of the compact language: `"run"`).
 * Blank lines are skipped; a line that is not JSON names itself.
 */
export function readScript(content: string, path: string): string[] {
  const actions: string[] = [];
  content.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new PolicyError(
        `${path}:${index + 1}: not JSON; write each action as a JSON tool call ({"tool": "bash", "command": ` +
          `"..."}) or a JSON string ("run")`,
      );
    }
    actions.push(typeof value === 'string' ? value : line);
  });
  return actions;
}

/**
 * Resolves a policy spec (shared/contracts/policy-spec.ts) into an immutable artifact: a script's actions, or
 * a token-level policy with its sampling options (a served model's window and vocabulary are
 * checked here). Bad specs fail non-retryably; a server that does not answer is retried.
 */
export async function preparePolicy(
  specText: string,
  store: ArtifactStore,
  baseDir: string,
  rawSampling: unknown = {},
): Promise<PolicySummary> {
  const invalid = (message: string) => ApplicationFailure.nonRetryable(`policy: ${message}`, ErrorTypes.invalidPolicy);
  const parsedSpec = parsePolicySpec(specText);
  if (!parsedSpec.ok) throw invalid(parsedSpec.error);
  const spec = parsedSpec.spec;
  if (spec.kind === 'scripted') {
    const path = isAbsolute(spec.file) ? spec.file : resolve(baseDir, spec.file);
    if (!existsSync(path)) throw invalid(`scripted file ${path} does not exist`);
    const content = readFileSync(path);
    let actions: string[];
    try {
      actions = readScript(content.toString('utf8'), path);
    } catch (error) {
      throw invalid((error as Error).message);
    }
    const ref = await store.putJson({ kind: 'scripted', actions } satisfies ScriptedSnapshot);
    return {
      spec: specText,
      kind: 'scripted',
      ref,
      version: `scripted-${createHash('sha256').update(content).digest('hex').slice(0, 12)}`,
    };
  }
  if (spec.kind === 'onnx')
    throw invalid(
      `${spec.file}: an exported policy is served first (npx agentrl eval serves it; in an episode name its ` +
        `server, completions:URL)`,
    );
  const parsed = SamplingOptions.safeParse(rawSampling ?? {});
  if (!parsed.success)
    throw invalid(
      `sampling: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const sampling = parsed.data;
  if (
    spec.kind === 'tokens' ||
    spec.kind === 'replies' ||
    spec.kind === 'vllm' ||
    spec.kind === 'sglang' ||
    (spec.kind === 'demo' && spec.name !== 'format')
  ) {
    const snapshot = await prepareChatPolicy(
      spec.kind === 'demo' ? { kind: 'demo', name: spec.name === 'solve' ? 'solve' : 'tools' } : spec,
      sampling,
      baseDir,
      invalid,
    );
    const ref = await store.putJson(TokenPolicySnapshot.parse(snapshot));
    return { spec: specText, kind: snapshot.kind, ref, version: snapshot.model! };
  }
  const tokenizer = compactActions.tokenizer;
  let snapshot: TokenPolicySnapshot;
  let version: string;
  if (spec.kind === 'demo') {
    snapshot = { kind: 'demo', url: null, window: sampling.window, sampling, interface: 'compact-actions' };
    version = 'demo';
  } else if (spec.kind === 'random') {
    if (!sampling.constrained)
      throw invalid('random: samples uniformly over the constrained action space; sampling.constrained must be true');
    snapshot = { kind: 'random', url: null, window: sampling.window, sampling, interface: 'compact-actions' };
    version = 'random';
  } else {
    const model = await describeServer(spec.url);
    // completions:URL#VERSION pins the version: a server that does not serve it fails the episode
    if (spec.version && !model.versions.includes(spec.version)) {
      throw ApplicationFailure.nonRetryable(
        `policy: ${spec.url} serves ${model.version}, not ${spec.version} (were other weights published to it?)`,
        ErrorTypes.policyError,
      );
    }
    if (model.window === null) throw invalid(`${spec.url} states no max_model_len; the context window must be known`);
    if (model.vocabSize !== undefined && model.vocabSize < tokenizer.vocabSize) {
      throw invalid(
        `completions: ${spec.url} serves a vocabulary of ${model.vocabSize}, the policy tokenizer needs ` +
          `${tokenizer.vocabSize}`,
      );
    }
    const pinned = spec.version ?? model.version;
    snapshot = {
      kind: 'completions',
      url: spec.url,
      window: model.window,
      sampling,
      model: pinned,
      interface: 'compact-actions',
    };
    version = pinned;
  }
  const ref = await store.putJson(TokenPolicySnapshot.parse(snapshot));
  return { spec: specText, kind: snapshot.kind, ref, version };
}

/**
 * A chat policy's snapshot (the chat-tools interface): the family's tokenizer is loaded here, so a
 * missing or unknown one fails at preparation; a served model's window, vocabulary and weight
 * version are read from its server; a tokens: file is read and checked against the vocabulary.
 */
async function prepareChatPolicy(
  spec:
    | { kind: 'tokens'; file: string }
    | { kind: 'replies'; file: string }
    | { kind: 'demo'; name: 'tools' | 'solve' }
    | { kind: 'vllm' | 'sglang'; url: string; version?: string },
  sampling: SamplingOptions,
  baseDir: string,
  invalid: (message: string) => Error,
): Promise<TokenPolicySnapshot> {
  let tokenizer;
  try {
    tokenizer = loadChatTokenizer(sampling.chat.tokenizer);
    // a template whose observations cannot be cut as deltas is refused here, before any container starts
    observationDelta(tokenizer, 'probe');
  } catch (error) {
    throw invalid(`sampling.chat.tokenizer: ${(error as Error).message}`);
  }
  const base = { sampling, interface: 'chat-tools' as const, tokenizerFingerprint: tokenizer.fingerprint };
  if (spec.kind === 'demo') {
    const window = sampling.chat.window ?? tokenizer.window;
    if (!window) throw invalid(`${tokenizer.name} states no model_max_length; set sampling.chat.window`);
    return { ...base, kind: 'demo', demo: spec.name, url: null, window, model: 'demo' };
  }
  if (spec.kind === 'replies') return { ...base, ...readReplies(spec.file, baseDir, sampling, tokenizer, invalid) };
  if (spec.kind === 'tokens') {
    const { path, content, lines } = readJsonLines(
      spec.file,
      baseDir,
      'tokens',
      'write each turn as a JSON array of token ids or {"ids": [...], "logprobs": [...]}',
      invalid,
    );
    const fixedTurns = lines.map(({ value, line }) => {
      const parsed = FixedTurn.safeParse(Array.isArray(value) ? { ids: value } : value);
      if (!parsed.success)
        throw invalid(
          `${path}:${line}: ` +
            `${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'turn'}: ${issue.message}`).join('; ')}`,
        );
      const outside = parsed.data.ids.find((id) => id >= tokenizer.vocabSize);
      if (outside !== undefined)
        throw invalid(
          `${path}:${line}: token ${outside} is outside the vocabulary of ${tokenizer.vocabSize} (${tokenizer.name})`,
        );
      if (parsed.data.logprobs && parsed.data.logprobs.length !== parsed.data.ids.length)
        throw invalid(`${path}:${line}: ${parsed.data.logprobs.length} log-probs for ${parsed.data.ids.length} ids`);
      return parsed.data;
    });
    const window = sampling.chat.window ?? tokenizer.window;
    if (!window) throw invalid(`${tokenizer.name} states no model_max_length; set sampling.chat.window`);
    return {
      ...base,
      kind: 'tokens',
      url: null,
      window,
      fixedTurns,
      model: `tokens-${createHash('sha256').update(content).digest('hex').slice(0, 12)}`,
    };
  }
  let described: { servedModel?: string; window: number; version: string };
  try {
    described = spec.kind === 'vllm' ? await describeVllm(spec.url) : await describeSglang(spec.url);
  } catch (error) {
    // an unreachable server is retried; one that answers without what a chat policy needs is refused
    if (error instanceof PolicyUnavailable && !error.transient) throw invalid(error.message);
    throw error;
  }
  if (spec.kind === 'vllm') {
    const checked = await vllmTokenizesAs(spec.url, described.servedModel!, tokenizer);
    if (checked && !checked.same) {
      throw invalid(
        `vllm: ${spec.url} tokenizes differently from the tokenizer ${tokenizer.name} (its ids ` +
          (`${JSON.stringify(checked.served.slice(0, 8))}…, ours ${JSON.stringify(checked.ours.slice(0, 8))}…): ` +
            `set sampling.chat.tokenizer (--tokenizer) to the served model's`),
      );
    }
  }
  if (spec.version && described.version !== spec.version) {
    throw ApplicationFailure.nonRetryable(
      `policy: ${spec.url} serves weight version ${described.version}, not ${spec.version} (were other weights ` +
        `published to it?)`,
      ErrorTypes.policyError,
    );
  }
  return {
    ...base,
    kind: spec.kind,
    url: spec.url,
    window: described.window,
    model: described.version,
    ...(described.servedModel ? { servedModel: described.servedModel } : {}),
  };
}

/** A test policy's JSON lines: each non-blank line parsed, with its line number; a line not JSON names itself. */
function readJsonLines(
  file: string,
  baseDir: string,
  kind: string,
  form: string,
  invalid: (message: string) => Error,
): { path: string; content: Buffer; lines: { value: unknown; line: number }[] } {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  if (!existsSync(path)) throw invalid(`${kind} file ${path} does not exist`);
  const content = readFileSync(path);
  const lines: { value: unknown; line: number }[] = [];
  content
    .toString('utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      try {
        lines.push({ value: JSON.parse(text), line: index + 1 });
      } catch {
        throw invalid(`${path}:${index + 1}: not JSON; ${form}`);
      }
    });
  return { path, content, lines };
}

/**
 * A `replies:` file: one JSON string a line, the assistant's whole text for that call (or turn), as the model would
 * write it (a tool call in the family's format). A deterministic chat backend for tests and examples.
 */
function readReplies(
  file: string,
  baseDir: string,
  sampling: SamplingOptions,
  tokenizer: { name: string; window: number | null },
  invalid: (message: string) => Error,
): TokenPolicySnapshot {
  const { path, content, lines } = readJsonLines(
    file,
    baseDir,
    'replies',
    "write each reply as one JSON string (the assistant's whole text)",
    invalid,
  );
  const fixedReplies = lines.map(({ value, line }) => {
    if (typeof value !== 'string')
      throw invalid(`${path}:${line}: write each reply as one JSON string (the assistant's whole text)`);
    return value;
  });
  const window = sampling.chat.window ?? tokenizer.window;
  if (!window) throw invalid(`${tokenizer.name} states no model_max_length; set sampling.chat.window`);
  return {
    kind: 'replies',
    url: null,
    window,
    sampling,
    interface: 'chat-tools',
    fixedReplies,
    model: `replies-${createHash('sha256').update(content).digest('hex').slice(0, 12)}`,
  };
}

/** A scripted policy's action for a turn; every token has probability 1. */
export async function scriptedAction(
  policy: Pick<PolicySummary, 'ref' | 'version'>,
  turn: number,
  store: ArtifactStore,
): Promise<PolicyAction> {
  const actions = await scriptedActions(policy.ref, store);
  const text = actions[turn];
  if (text === undefined)
    throw new PolicyError(`scripted policy has no action for turn ${turn + 1} (it has ${actions.length})`);
  const tokenIds = byteTokenizer.encode(text);
  return { text, tokenIds, logprobs: tokenIds.map(() => 0), version: policy.version };
}

/**
 * The actions of a prepared script. An episode prepared before scripts were snapshotted as JSON
 * references the file's raw content: its lines are its actions, as they were then.
 */
async function scriptedActions(ref: string, store: ArtifactStore): Promise<string[]> {
  // a script's reference is its content's hash: what was read once stays true
  const known = scripts.get(ref);
  if (known) return known;
  const actions = await readScriptedActions(ref, store);
  scripts.set(ref, actions);
  if (scripts.size > 256) scripts.delete(scripts.keys().next().value!);
  return actions;
}

/** Scripts already read, by reference (content-addressed, so never stale). */
const scripts = new Map<string, string[]>();

async function readScriptedActions(ref: string, store: ArtifactStore): Promise<string[]> {
  const content = (await store.getBlob(ref)).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    value = null;
  }
  const snapshot = ScriptedSnapshot.safeParse(value);
  return snapshot.success ? snapshot.data.actions : content.split('\n').filter((line) => line.trim() !== '');
}

import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { SamplingOptions, type PolicySummary } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { byteTokenizer, policyTokenizer } from '../shared/tokenizer';
import type { ArtifactStore } from './artifact-store';
import type { TokenPolicySnapshot } from './token-policy';

/** One sampled action: the exact text, its token ids and log-probs, and the policy version that made it. */
export interface PolicyAction {
  text: string;
  tokenIds: number[];
  logprobs: number[];
  version: string;
  /** token-level policies: the model context after this action (artifact reference) */
  contextRef?: string;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

const known = 'scripted:<file.jsonl>, completions:<url>[#<version>], demo:format, random:';

/**
 * Resolves a policy spec into an immutable artifact: a script's content, or a token-level policy
 * with its sampling options (a served model's window and vocabulary are checked here). Bad specs
 * fail non-retryably; a server that does not answer is retried.
 */
export async function preparePolicy(spec: string, store: ArtifactStore, baseDir: string, rawSampling: unknown = {}): Promise<PolicySummary> {
  const [kind, ...rest] = spec.split(':');
  const target = rest.join(':');
  const invalid = (message: string) => ApplicationFailure.nonRetryable(`policy: ${message}`, ErrorTypes.invalidPolicy);
  if (kind === 'scripted') {
    if (!target) throw invalid(`scripted policy needs a file; known: ${known}`);
    const path = isAbsolute(target) ? target : resolve(baseDir, target);
    if (!existsSync(path)) throw invalid(`scripted file ${path} does not exist`);
    const content = readFileSync(path);
    const ref = await store.putBlob(content);
    return { spec, kind: 'scripted', ref, version: `scripted-${createHash('sha256').update(content).digest('hex').slice(0, 12)}` };
  }
  const parsed = SamplingOptions.safeParse(rawSampling ?? {});
  if (!parsed.success) throw invalid(`sampling: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const sampling = parsed.data;
  let snapshot: TokenPolicySnapshot;
  let version: string;
  if (kind === 'demo' && target === 'format') {
    snapshot = { kind: 'demo', url: null, window: sampling.window, sampling };
    version = 'demo';
  } else if (kind === 'random' && target === '') {
    if (!sampling.constrained) throw invalid('random: samples uniformly over the constrained action space; sampling.constrained must be true');
    snapshot = { kind: 'random', url: null, window: sampling.window, sampling };
    version = 'random';
  } else if (kind === 'completions' && /^https?:\/\//.test(target)) {
    // completions:URL#VERSION pins the version: a server serving another one fails the episode
    const [address = '', pinned] = target.split('#', 2);
    const url = address.replace(/\/+$/, '');
    const model = await describeServer(url);
    if (pinned && model.version !== pinned) {
      throw ApplicationFailure.nonRetryable(`policy: ${url} serves ${model.version}, not ${pinned} (were other weights published to it?)`, ErrorTypes.policyError);
    }
    if (model.vocabSize !== undefined && model.vocabSize < policyTokenizer.vocabSize) {
      throw invalid(`completions: ${url} serves a vocabulary of ${model.vocabSize}, the policy tokenizer needs ${policyTokenizer.vocabSize}`);
    }
    snapshot = { kind: 'completions', url, window: model.window, sampling, model: model.version };
    version = model.version;
  } else {
    throw invalid(`unknown policy ${JSON.stringify(spec)}; known: ${known}`);
  }
  const ref = await store.putJson(snapshot);
  return { spec, kind: snapshot.kind, ref, version };
}

/** The served model's version and window (vLLM's /v1/models `max_model_len`). */
async function describeServer(url: string): Promise<{ version: string; window: number; vocabSize?: number }> {
  let response: Response;
  try {
    response = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new Error(`policy server ${url} unreachable: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as { data?: { id: string; max_model_len?: number; vocab_size?: number }[] } | null;
  const model = body?.data?.[0];
  if (!response.ok || !model) throw new Error(`policy server ${url}: GET /v1/models answered ${response.status} without a model`);
  if (!model.max_model_len) throw ApplicationFailure.nonRetryable(`policy: ${url} states no max_model_len; the context window must be known`, ErrorTypes.invalidPolicy);
  return { version: model.id, window: model.max_model_len, ...(model.vocab_size ? { vocabSize: model.vocab_size } : {}) };
}

/** Asks the policy for the action of a turn. */
export async function nextAction(policy: Pick<PolicySummary, 'ref' | 'version'>, turn: number, store: ArtifactStore): Promise<PolicyAction> {
  const lines = (await store.getBlob(policy.ref)).toString('utf8').split('\n').filter((line) => line.trim() !== '');
  const text = lines[turn];
  if (text === undefined) throw new PolicyError(`scripted policy has no action for turn ${turn + 1} (it has ${lines.length})`);
  const tokenIds = byteTokenizer.encode(text);
  // a script is deterministic: every token has probability 1
  return { text, tokenIds, logprobs: tokenIds.map(() => 0), version: policy.version };
}

import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { PolicySummary } from '../shared/episode';
import { ErrorTypes } from '../shared/errors';
import { byteTokenizer } from '../shared/tokenizer';
import type { ArtifactStore } from './artifact-store';

/** One sampled action: the exact text, its token ids and log-probs, and the policy version that made it. */
export interface PolicyAction {
  text: string;
  tokenIds: number[];
  logprobs: number[];
  version: string;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

/** Resolves a policy spec (`scripted:FILE`) into an immutable artifact; bad specs fail non-retryably. */
export async function preparePolicy(spec: string, store: ArtifactStore, baseDir: string): Promise<PolicySummary> {
  const [kind, ...rest] = spec.split(':');
  const target = rest.join(':');
  if (kind !== 'scripted' || !target) {
    throw ApplicationFailure.nonRetryable(`policy: unknown policy ${JSON.stringify(spec)}; known: scripted:<file.jsonl>`, ErrorTypes.invalidPolicy);
  }
  const path = isAbsolute(target) ? target : resolve(baseDir, target);
  if (!existsSync(path)) throw ApplicationFailure.nonRetryable(`policy: scripted file ${path} does not exist`, ErrorTypes.invalidPolicy);
  const content = readFileSync(path);
  const ref = await store.putBlob(content);
  return { spec, kind: 'scripted', ref, version: `scripted-${createHash('sha256').update(content).digest('hex').slice(0, 12)}` };
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

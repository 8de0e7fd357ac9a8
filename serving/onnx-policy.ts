import { readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { seededRandom } from '../shared/math/random';

/** A policy model exported to ONNX (input `input_ids` int64 (B,T), output `logits` float32 (B,T,V)). */
export interface LoadedPolicy {
  session: ort.InferenceSession;
  path: string;
  version: string;
  context: number;
  vocabSize: number;
}

/** What export_onnx writes next to the model (trainer/agentrl_trainer/export.py). */
const Sidecar = z.object({
  policyVersion: z.string().min(1),
  config: z.object({ context: z.number().int().min(1), vocab_size: z.number().int().min(1) }),
});

/** Loads an exported policy and its sidecar (`<path>.json`: policyVersion, config.context, config.vocab_size). */
export async function loadOnnxPolicy(given: string): Promise<LoadedPolicy> {
  // a policy folder (policies/v<N>/, as the trainer publishes it) or its policy.onnx
  const path = existsSync(given) && statSync(given).isDirectory() ? join(given, 'policy.onnx') : given;
  if (!existsSync(path)) throw new Error(`policy model ${path} does not exist`);
  const sidecarPath = `${path}.json`;
  if (!existsSync(sidecarPath)) throw new Error(`policy sidecar ${sidecarPath} does not exist (export_onnx writes it)`);
  let sidecar: z.infer<typeof Sidecar>;
  try {
    sidecar = Sidecar.parse(JSON.parse(readFileSync(sidecarPath, 'utf8')));
  } catch (error) {
    throw new Error(
      `policy sidecar ${sidecarPath} is unreadable: ` +
        (error instanceof z.ZodError
          ? error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')
          : (error as Error).message),
    );
  }
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  return {
    session,
    path,
    version: sidecar.policyVersion,
    context: sidecar.config.context,
    vocabSize: sidecar.config.vocab_size,
  };
}

/** Logits of the last position for each sequence of a batch of equal-length prefixes: (B, V). */
export async function lastLogits(policy: LoadedPolicy, prefixes: readonly number[][]): Promise<Float32Array[]> {
  const length = prefixes[0]!.length;
  const ids = BigInt64Array.from(prefixes.flat().map((id) => BigInt(id)));
  const output = await policy.session.run({ input_ids: new ort.Tensor('int64', ids, [prefixes.length, length]) });
  const logits = output.logits!.data as Float32Array; // (B, T, V)
  const vocab = policy.vocabSize;
  return prefixes.map((_, row) => logits.slice((row * length + length - 1) * vocab, (row * length + length) * vocab));
}

/** log-softmax of logits / temperature over the allowed tokens (the rest get -Infinity), in float64. */
export function logSoftmax(logits: Float32Array, temperature: number, allowed?: ReadonlySet<number>): Float64Array {
  const scaled = new Float64Array(logits.length);
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    scaled[i] = allowed && !allowed.has(i) ? -Infinity : logits[i]! / temperature;
    if (scaled[i]! > max) max = scaled[i]!;
  }
  let sum = 0;
  for (let i = 0; i < scaled.length; i++) sum += Math.exp(scaled[i]! - max);
  const logSum = max + Math.log(sum);
  for (let i = 0; i < scaled.length; i++) scaled[i] = scaled[i]! - logSum;
  return scaled;
}

function argmax(logits: Float32Array, allowed?: ReadonlySet<number>): number {
  let best = -1;
  for (let i = 0; i < logits.length; i++) {
    if (allowed && !allowed.has(i)) continue;
    if (best < 0 || logits[i]! > logits[best]!) best = i;
  }
  return best;
}

/** Draws a token from log-probabilities. */
export function sampleToken(logprobs: Float64Array, random: () => number): number {
  let target = random();
  let last = -1;
  for (let i = 0; i < logprobs.length; i++) {
    const probability = Math.exp(logprobs[i]!);
    if (probability === 0) continue;
    last = i;
    target -= probability;
    if (target < 0) return i;
  }
  return last;
}

export interface Generation {
  tokenIds: number[];
  /** behaviour log-prob of each generated token under the distribution it was drawn from */
  logprobs: number[];
  finishReason: 'stop' | 'length';
}

/**
 * Samples `maxTokens` tokens after a prompt, recomputing the whole prefix for each token (no key/value
 * cache: the cost of a generated token is one forward pass over prompt + tokens so far).
 */
export async function generate(
  policy: LoadedPolicy,
  prompt: readonly number[],
  options: {
    maxTokens: number;
    temperature: number;
    seed: number;
    stopTokenIds?: readonly number[];
    allowedTokenIds?: ReadonlySet<number>;
  },
): Promise<Generation> {
  const random = seededRandom(options.seed);
  const sequence = [...prompt];
  const generated: Generation = { tokenIds: [], logprobs: [], finishReason: 'length' };
  const stops = new Set(options.stopTokenIds ?? []);
  for (let step = 0; step < options.maxTokens; step++) {
    if (sequence.length >= policy.context) break;
    const [logits] = await lastLogits(policy, [sequence]);
    let token: number;
    let logprob: number;
    if (options.temperature === 0) {
      // greedy: the chosen token has probability 1 under the (deterministic) behaviour policy
      token = argmax(logits!, options.allowedTokenIds);
      logprob = 0;
    } else {
      const logprobs = logSoftmax(logits!, options.temperature, options.allowedTokenIds);
      token = sampleToken(logprobs, random);
      logprob = logprobs[token]!;
    }
    sequence.push(token);
    generated.tokenIds.push(token);
    generated.logprobs.push(logprob);
    if (stops.has(token)) {
      generated.finishReason = 'stop';
      break;
    }
  }
  return generated;
}

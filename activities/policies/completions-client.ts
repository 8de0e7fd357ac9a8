import { ApplicationFailure } from '@temporalio/activity';
import { ErrorTypes } from '../../shared/names/errors';
import { CompletionResponse } from '../../shared/contracts/completions';

/**
 * The client of a vLLM-compatible server (the embedded policy server in serving/, vLLM, SGLang):
 * `/v1/models`, token-in/token-out `/v1/completions`, and `/v1/load_weights` to publish new weights.
 */

/** A server that cannot serve the request (refused, unreachable after retries, or an answer without ids). */
export class PolicyUnavailable extends Error {
  override name = 'PolicyUnavailable';
  /** @param transient the server was unreachable or failed (5xx): it may come back, so the caller may wait */
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

/**
 * The served models: the current version (the first listed), every version the server serves, and
 * the current one's window (vLLM's `max_model_len`; null when it states none) and vocabulary.
 * Unreachable: a plain (retryable) error.
 */
export async function describeServer(
  url: string,
): Promise<{ version: string; versions: string[]; window: number | null; vocabSize?: number }> {
  let response: Response;
  try {
    response = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new Error(`policy server ${url} unreachable: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => null)) as {
    data?: { id: string; max_model_len?: number; vocab_size?: number }[];
  } | null;
  const model = body?.data?.[0];
  if (!response.ok || !model)
    throw new Error(`policy server ${url}: GET /v1/models answered ${response.status} without a model`);
  return {
    version: model.id,
    versions: body!.data!.map((entry) => entry.id),
    window: model.max_model_len || null,
    ...(model.vocab_size ? { vocabSize: model.vocab_size } : {}),
  };
}

export interface CompletionRequest {
  prompt: number[];
  max_tokens: number;
  seed: number;
  temperature: number;
  /** the model the request is for: a server serving another refuses it (404, as vLLM) */
  model?: string;
  stop_token_ids?: number[];
  allowed_token_ids?: number[];
}

/** One `/v1/completions` call with token ids in and out; connection failures and 5xx answers are retried briefly. */
export async function complete(
  url: string,
  request: CompletionRequest,
): Promise<{ ids: number[]; logprobs: number[]; version: string }> {
  const body = JSON.stringify({ ...request, logprobs: 0, return_token_ids: true, n: 1 });
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      continue;
    }
    const payload: unknown = await response.json().catch(() => null);
    if (!response.ok || !payload) {
      const message = (payload as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${response.status}`;
      if (response.status >= 500) {
        lastError = new Error(message);
        continue;
      }
      throw new PolicyUnavailable(`policy server ${url} refused the request: ${message}`);
    }
    const parsed = CompletionResponse.safeParse(payload);
    const choice = parsed.success ? parsed.data.choices[0] : undefined;
    if (!parsed.success || !choice?.token_ids || !choice.logprobs)
      throw new PolicyUnavailable(`policy server ${url} returned no token ids or log-probs`);
    return { ids: choice.token_ids, logprobs: choice.logprobs.token_logprobs, version: parsed.data.model };
  }
  throw new PolicyUnavailable(`policy server ${url} unreachable: ${(lastError as Error)?.message ?? lastError}`, true);
}

/** Asks a policy server to load new weights (`POST /v1/load_weights`); returns the version it now serves. */
export async function loadWeights(url: string, policyPath: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${url}/v1/load_weights`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model_path: policyPath }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new Error(
      `policy server ${url} unreachable: ${(error as Error).message} ` +
        '(start it with npx agentrl policy-server --port …)',
    );
  }
  const body = (await response.json().catch(() => null)) as { model?: string; error?: { message?: string } } | null;
  const reason = body?.error?.message ?? `HTTP ${response.status}`;
  const problem = `policy server ${url} did not load ${policyPath}: ${reason}`;
  // a server that answers but refuses the weights will refuse them again; one that fails (5xx) may recover
  if (response.status >= 400 && response.status < 500)
    throw ApplicationFailure.nonRetryable(problem, ErrorTypes.policyError);
  if (!response.ok || !body?.model) throw new Error(problem);
  return body.model;
}

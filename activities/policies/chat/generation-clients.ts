import { PolicyUnavailable } from '../completions-client';
import type { ChatTokenizer } from './chat-tokenizer';

/**
 * Clients of chat-model servers, token ids in and out, by URL kind:
 *
 * - `vllm:URL`: vLLM 0.34.0 (commit 62d4bc3c7; vllm/entrypoints/openai/completion/protocol.py,
 *   serve/dev/rlhf and serve/dev routes). `POST /v1/completions` with the prompt as token ids,
 *   `return_token_ids`, `logprobs: 0`, `return_tokens_as_token_ids` (log-prob tokens come back as
 *   `token_id:N`, checked against `token_ids`), `stop_token_ids`, `skip_special_tokens: false`, and
 *   `return_weight_versions` (each choice says which weight version generated which tokens: the
 *   served model name stays the same when weights are reloaded in place). The server must run with
 *   `--logprobs-mode processed_logprobs`: the default `raw_logprobs` are the raw model's, before
 *   temperature, not the distribution the tokens were drawn from, and the importance ratios of
 *   training would be wrong by the temperature. Publishing weights from disk needs
 *   `VLLM_SERVER_DEV_MODE=1`: `/pause?mode=wait`, `/collective_rpc` `reload_weights`,
 *   `/update_weight_version`, `/resume`.
 * - `sglang:URL`: SGLang (python/sglang/srt/managers/io_struct.py, entrypoints/http_server.py;
 *   0.5.23, read from its PyPI wheel: tests/fixtures/serving/sglang/README.md). `POST /generate` with
 *   `input_ids`, `return_logprob`, and `meta_info.output_token_logprobs` ([logprob, id, text]) and
 *   `meta_info.weight_version`; publishing is `/update_weights_from_disk` with the new
 *   `weight_version`.
 *
 * Every turn states the weight version it expects, and the client checks the versions the server
 * says generated the tokens (neither server takes an expected version in the request): an answer
 * from another version is refused (the turn is a policy error, never trained on). Aborted requests
 * and a paused or failing server are transient: the turn waits and asks again (if the server came
 * back with other weights, that answer is refused in turn). A server that read fewer prompt tokens
 * than were sent (a truncating server) is refused too.
 */

export interface GenerateRequest {
  promptIds: readonly number[];
  maxTokens: number;
  temperature: number;
  seed: number;
  stopIds: readonly number[];
  /** the weight version the turn expects */
  version: string;
}

export interface Generated {
  ids: number[];
  logprobs: number[];
  /** `length`: cut by max tokens */
  finishReason: 'stop' | 'length';
  version: string;
  /** the version of each generated token, where the server states them */
  versions?: string[];
}

export type ServerKind = 'vllm' | 'sglang';

interface Answer {
  status: number;
  body: unknown;
}

/**
 * One POST; a connection that fails is tried again briefly, a request that timed out is not (the
 * server may still be working on it: a weight reload must not be sent twice).
 */
async function post(url: string, path: string, body: unknown, timeoutMs = 300_000): Promise<Answer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    } catch (error) {
      lastError = error;
      if ((error as Error).name === 'TimeoutError')
        throw new PolicyUnavailable(`${url}${path} did not answer within ${timeoutMs / 1000} s`, true);
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
    }
  }
  throw new PolicyUnavailable(`${url}${path} unreachable: ${(lastError as Error)?.message ?? lastError}`, true);
}

async function get(url: string, path: string): Promise<Answer> {
  try {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch (error) {
    throw new PolicyUnavailable(`${url}${path} unreachable: ${(error as Error).message}`, true);
  }
}

function errorMessage(answer: Answer): string {
  const body = answer.body as { error?: { message?: string } | string; message?: string } | null;
  const error = body?.error;
  return (typeof error === 'string' ? error : error?.message) ?? body?.message ?? `HTTP ${answer.status}`;
}

/** A non-2xx answer as the error a turn gets: 5xx and 503 (paused) are transient, other refusals are not. */
function refusal(server: string, answer: Answer): PolicyUnavailable {
  return new PolicyUnavailable(
    `${server} refused the request (${answer.status}): ${errorMessage(answer)}`,
    answer.status >= 500,
  );
}

function versionMismatch(server: string, served: string, expected: string): PolicyUnavailable {
  return new PolicyUnavailable(
    `${server} answered with weight version ${served}, the turn expects ${expected} (were other weights ` +
      `published to it?)`,
  );
}

// ---- vLLM ----------------------------------------------------------------------------------------

/**
 * The whole tempered distribution, named alike by both servers: pinned, so that a server's defaults
 * (vLLM's --generation-config, a checkpoint's generation_config.json) never change what is sampled.
 */
const pinnedSampling = {
  top_p: 1,
  top_k: -1,
  min_p: 0,
  repetition_penalty: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
} as const;

/** The body of a vLLM token-in/token-out completion. */
export function vllmCompletionBody(servedModel: string, request: GenerateRequest): Record<string, unknown> {
  return {
    model: servedModel,
    prompt: [...request.promptIds],
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    ...pinnedSampling,
    seed: request.seed,
    logprobs: 0,
    return_token_ids: true,
    return_tokens_as_token_ids: true,
    stop_token_ids: [...request.stopIds],
    skip_special_tokens: false,
    return_weight_versions: true,
  };
}

/** A server that read another prompt than the one sent (it truncated it) breaks token-in/token-out. */
function checkPromptLength(server: string, counted: unknown, request: GenerateRequest): void {
  if (typeof counted === 'number' && counted !== request.promptIds.length) {
    throw new PolicyUnavailable(
      `${server} read ${counted} prompt tokens of the ${request.promptIds.length} sent (does it truncate prompts?)`,
    );
  }
}

interface VllmChoice {
  token_ids?: number[] | null;
  prompt_token_ids?: number[] | null;
  finish_reason?: string | null;
  logprobs?: { tokens?: string[]; token_logprobs?: (number | null)[] } | null;
  weight_versions?: { version: string; start: number; end: number }[] | null;
}

/** Reads a vLLM completion answer for `request`; throws PolicyUnavailable for what cannot be used. */
export function readVllmCompletion(server: string, answer: Answer, request: GenerateRequest): Generated {
  if (answer.status < 200 || answer.status >= 300) throw refusal(server, answer);
  const body = answer.body as { choices?: VllmChoice[]; usage?: { prompt_tokens?: number } } | null;
  const choice = body?.choices?.[0];
  if (!choice || !Array.isArray(choice.token_ids))
    throw new PolicyUnavailable(`${server} returned no token_ids (is it vLLM with return_token_ids?)`);
  checkPromptLength(
    server,
    Array.isArray(choice.prompt_token_ids) ? choice.prompt_token_ids.length : body?.usage?.prompt_tokens,
    request,
  );
  const ids = choice.token_ids;
  if (choice.finish_reason === 'abort')
    throw new PolicyUnavailable(
      `${server} aborted the request after ${ids.length} tokens (a pause for new weights?); the turn asks again`,
      true,
    );
  if (choice.finish_reason !== 'stop' && choice.finish_reason !== 'length' && choice.finish_reason !== 'repetition') {
    throw new PolicyUnavailable(
      `${server} ended generation with finish_reason ${JSON.stringify(choice.finish_reason)}`,
      choice.finish_reason === 'error',
    );
  }
  const tokens = choice.logprobs?.tokens ?? [];
  const logprobs = choice.logprobs?.token_logprobs ?? [];
  if (
    tokens.length !== ids.length ||
    logprobs.length !== ids.length ||
    logprobs.some((value) => typeof value !== 'number')
  ) {
    throw new PolicyUnavailable(
      `${server} returned ${logprobs.length} log-probs for ${ids.length} tokens (send logprobs: 0)`,
    );
  }
  tokens.forEach((token, index) => {
    if (token !== `token_id:${ids[index]}`)
      throw new PolicyUnavailable(
        `${server}: log-prob token ${JSON.stringify(token)} is not token_id:${ids[index]} (return_tokens_as_token_ids)`,
      );
  });
  const segments = choice.weight_versions;
  if (!Array.isArray(segments))
    throw new PolicyUnavailable(
      `${server} did not say which weight version generated the tokens (vLLM 0.34 or newer answers ` +
        `return_weight_versions)`,
    );
  const versions = ids.map(() => '');
  for (const segment of segments)
    for (let index = segment.start; index < Math.min(segment.end, ids.length); index++)
      versions[index] = segment.version;
  if (versions.some((version) => version === ''))
    throw new PolicyUnavailable(`${server}: weight_versions do not cover every generated token`);
  const other = versions.find((version) => version !== request.version);
  if (other !== undefined) throw versionMismatch(server, other, request.version);
  // `repetition` (a repetition detector stopped it) leaves the turn as unfinished as a length cut
  return {
    ids,
    logprobs: logprobs as number[],
    finishReason: choice.finish_reason === 'stop' ? 'stop' : 'length',
    version: request.version,
    versions,
  };
}

export async function vllmGenerate(url: string, servedModel: string, request: GenerateRequest): Promise<Generated> {
  return readVllmCompletion(
    `vLLM ${url}`,
    await post(url, '/v1/completions', vllmCompletionBody(servedModel, request)),
    request,
  );
}

/** A vLLM server's served model name, window and current weight version. */
export async function describeVllm(url: string): Promise<{ servedModel: string; window: number; version: string }> {
  const models = await get(url, '/v1/models');
  const card = (models.body as { data?: { id: string; max_model_len?: number }[] } | null)?.data?.[0];
  if (models.status !== 200 || !card)
    throw new PolicyUnavailable(`vLLM ${url}: GET /v1/models answered ${models.status} without a model`);
  if (!card.max_model_len)
    throw new PolicyUnavailable(`vLLM ${url} states no max_model_len; the context window must be known`);
  const info = await get(url, '/weight_info');
  const version = (info.body as { weight_version?: string } | null)?.weight_version;
  if (info.status !== 200 || !version)
    throw new PolicyUnavailable(
      `vLLM ${url}: GET /weight_info answered ${info.status}; start vLLM with VLLM_SERVER_DEV_MODE=1 so weight ` +
        `versions are known`,
    );
  return { servedModel: card.id, window: card.max_model_len, version };
}

/** A text whose ids tell tokenizers apart: an end-of-turn token, digits, CJK and an emoji. */
export function tokenizerProbe(tokenizer: Pick<ChatTokenizer, 'endOfTurn'>): string {
  return `${tokenizer.endOfTurn}\nagentrl probe 12345 修复 ✅`;
}

/**
 * Whether a vLLM server tokenizes as `tokenizer` does (`POST /tokenize`): a policy whose tokenizer
 * is not the served model's would send it ids it reads as other text. Null: the server could not say.
 */
export async function vllmTokenizesAs(
  url: string,
  servedModel: string,
  tokenizer: Pick<ChatTokenizer, 'endOfTurn' | 'encodeMarkup'>,
): Promise<{ same: boolean; served: number[]; ours: number[] } | null> {
  const probe = tokenizerProbe(tokenizer);
  const answer = await post(url, '/tokenize', { model: servedModel, prompt: probe, add_special_tokens: false }, 10_000);
  const served = (answer.body as { tokens?: unknown } | null)?.tokens;
  if (answer.status !== 200 || !Array.isArray(served)) return null;
  const ours = tokenizer.encodeMarkup(probe);
  return { same: JSON.stringify(served) === JSON.stringify(ours), served: served as number[], ours };
}

/**
 * Publishes a checkpoint directory (safetensors of the same architecture) to a running vLLM under
 * `version`: pause (in-flight requests finish on the old weights, the prefix cache is cleared),
 * reload the weights in place, name the new version, resume (resumed even when a step failed).
 */
export async function publishToVllm(url: string, weightsPath: string, version: string): Promise<string> {
  const server = `vLLM ${url}`;
  const step = async (path: string, body: unknown, check: (answer: Answer) => boolean) => {
    const answer = await post(url, path, body);
    if (answer.status !== 200 || !check(answer))
      throw new Error(`${server}: ${path} answered ${answer.status}: ${errorMessage(answer)}`);
  };
  try {
    await step(
      '/pause?mode=wait',
      undefined,
      (answer) => (answer.body as { status?: string } | null)?.status === 'paused',
    );
    await step('/collective_rpc', { method: 'reload_weights', kwargs: { weights_path: weightsPath } }, (answer) =>
      Array.isArray((answer.body as { results?: unknown } | null)?.results),
    );
    await step(
      '/update_weight_version',
      { new_version: version },
      (answer) => (answer.body as { success?: boolean } | null)?.success === true,
    );
  } finally {
    await step('/resume', undefined, (answer) => (answer.body as { status?: string } | null)?.status === 'resumed');
  }
  return version;
}

// ---- SGLang --------------------------------------------------------------------------------------

/** The body of an SGLang token-in/token-out /generate request. */
export function sglangGenerateBody(request: GenerateRequest): Record<string, unknown> {
  return {
    input_ids: [...request.promptIds],
    sampling_params: {
      max_new_tokens: request.maxTokens,
      temperature: request.temperature,
      ...pinnedSampling,
      stop_token_ids: [...request.stopIds],
      skip_special_tokens: false,
      no_stop_trim: false,
      // honoured by servers started with --enable-deterministic-inference
      sampling_seed: request.seed,
    },
    return_logprob: true,
    logprob_start_len: -1,
    top_logprobs_num: 0,
    return_text_in_logprobs: false,
    stream: false,
  };
}

interface SglangAnswer {
  output_ids?: number[];
  meta_info?: {
    finish_reason?: { type?: string; message?: string } | null;
    prompt_tokens?: number;
    output_token_logprobs?: [number, number, unknown][];
    weight_version?: string;
    weight_versions?: { version: string; start: number; end: number }[];
  };
}

/** Reads an SGLang /generate answer for `request`; throws PolicyUnavailable for what cannot be used. */
export function readSglangGenerate(server: string, answer: Answer, request: GenerateRequest): Generated {
  if (answer.status < 200 || answer.status >= 300) {
    const type = (answer.body as SglangAnswer | null)?.meta_info?.finish_reason?.type ?? '';
    if (type === 'abort')
      throw new PolicyUnavailable(`${server} aborted the request: ${errorMessage(answer)}; the turn asks again`, true);
    throw refusal(server, answer);
  }
  const body = answer.body as SglangAnswer | null;
  const meta = body?.meta_info;
  if (!meta) throw new PolicyUnavailable(`${server} returned no meta_info`);
  const finish = meta.finish_reason?.type;
  const pairs = meta.output_token_logprobs;
  checkPromptLength(server, meta.prompt_tokens, request);
  if (finish === 'abort')
    throw new PolicyUnavailable(
      `${server} aborted the request (${meta.finish_reason?.message ?? 'no reason given'}); the turn asks again`,
      true,
    );
  if (finish !== 'stop' && finish !== 'length')
    throw new PolicyUnavailable(
      `${server} ended generation with finish_reason ${JSON.stringify(meta.finish_reason ?? null)}`,
    );
  if (!Array.isArray(pairs))
    throw new PolicyUnavailable(`${server} returned no meta_info.output_token_logprobs (send return_logprob: true)`);
  const ids = pairs.map((entry) => entry[1]);
  const logprobs = pairs.map((entry) => entry[0]);
  if (Array.isArray(body?.output_ids) && JSON.stringify(body.output_ids) !== JSON.stringify(ids))
    throw new PolicyUnavailable(`${server}: output_ids and output_token_logprobs disagree`);
  if (ids.some((id) => !Number.isInteger(id)) || logprobs.some((value) => typeof value !== 'number'))
    throw new PolicyUnavailable(`${server}: output_token_logprobs are not [logprob, id, text] entries`);
  const version = meta.weight_version;
  if (typeof version !== 'string') throw new PolicyUnavailable(`${server} did not state meta_info.weight_version`);
  // a request in flight across an update has one span per version; the spans name every token's
  let versions = ids.map(() => version);
  if (Array.isArray(meta.weight_versions)) {
    versions = ids.map(() => '');
    for (const span of meta.weight_versions)
      for (let index = span.start; index < Math.min(span.end, ids.length); index++) versions[index] = span.version;
    if (versions.some((tokenVersion) => tokenVersion === ''))
      throw new PolicyUnavailable(`${server}: meta_info.weight_versions do not cover every generated token`);
  }
  const other =
    versions.find((tokenVersion) => tokenVersion !== request.version) ??
    (version !== request.version ? version : undefined);
  if (other !== undefined) throw versionMismatch(server, other, request.version);
  return { ids, logprobs, finishReason: finish, version, versions };
}

export async function sglangGenerate(url: string, request: GenerateRequest): Promise<Generated> {
  return readSglangGenerate(`SGLang ${url}`, await post(url, '/generate', sglangGenerateBody(request)), request);
}

/** An SGLang server's window and current weight version. */
export async function describeSglang(url: string): Promise<{ window: number; version: string }> {
  // the served version is /model_info's (/server_info's is the launch value and goes stale)
  const info = await get(url, '/model_info');
  const version = (info.body as { weight_version?: string } | null)?.weight_version;
  if (info.status !== 200 || !version)
    throw new PolicyUnavailable(`SGLang ${url}: GET /model_info answered ${info.status} without a weight_version`);
  // the window is what a request may hold: /v1/models' max_model_len, at most /server_info's max_req_input_len + 1
  const modelLength = ((await get(url, '/v1/models')).body as { data?: { max_model_len?: number }[] } | null)?.data?.[0]
    ?.max_model_len;
  const inputLength = ((await get(url, '/server_info')).body as { max_req_input_len?: number } | null)
    ?.max_req_input_len;
  const window = Math.min(modelLength ?? Infinity, inputLength === undefined ? Infinity : inputLength + 1);
  if (!Number.isFinite(window) || window < 1)
    throw new PolicyUnavailable(`SGLang ${url} states no context length; the context window must be known`);
  return { window, version };
}

/**
 * Publishes a checkpoint directory to SGLang under `version` (in-flight requests finish first; the cache is flushed).
 * Episodes sample SGLang servers (`sglang:URL`), but no training run publishes here yet: a run's
 * server is its embedded one or vLLM's API (`publishPolicy`), and SGLang loads the step's Hugging
 * Face checkpoint, which only a server on the trainer's host could read until checkpoints are
 * store references.
 */
export async function publishToSglang(url: string, weightsPath: string, version: string): Promise<string> {
  const answer = await post(url, '/update_weights_from_disk', {
    model_path: weightsPath,
    load_format: 'auto',
    abort_all_requests: false,
    weight_version: version,
    flush_cache: true,
  });
  const body = answer.body as { success?: boolean; message?: string } | null;
  if (answer.status !== 200 || body?.success !== true)
    throw new Error(`SGLang ${url} did not load ${weightsPath}: ${body?.message ?? errorMessage(answer)}`);
  return version;
}

// ---- by kind ------------------------------------------------------------------------------------

/** One generation for a chat policy's snapshot. */
export async function generateWithServer(
  snapshot: { kind: string; url: string | null; servedModel?: string },
  request: GenerateRequest,
): Promise<Generated> {
  if (!snapshot.url) throw new PolicyUnavailable(`${snapshot.kind}: no server URL`);
  if (snapshot.kind === 'vllm') return vllmGenerate(snapshot.url, snapshot.servedModel ?? request.version, request);
  if (snapshot.kind === 'sglang') return sglangGenerate(snapshot.url, request);
  throw new PolicyUnavailable(`${snapshot.kind}: not a chat model server`);
}

import type { Server, ServerResponse } from 'node:http';
import { z } from 'zod';
import { BatchingGenerator, loadCausalLm, type CausalLm } from './causal-lm';
import { createJsonServer, readJsonBody, sendJson as send } from './http';
import { localCopyOf } from '../activities/store/local-copy';
import { createServingMetrics } from './metrics';

/**
 * The embedded server of a Hugging Face causal LM (serving/causal-lm.ts) behind the subset of
 * vLLM 0.34's API that the `vllm:` client uses (activities/policies/chat/generation-clients.ts),
 * so an embedded model and a vLLM server are interchangeable by URL:
 *
 *   GET  /v1/models          the served name with max_model_len
 *   GET  /weight_info        {"weight_version"}
 *   POST /v1/completions     prompt as token ids; token_ids, log-probs as token_id:N, weight_versions
 *   POST /tokenize           {"prompt"}: the model's tokenizer's ids (specials recognised)
 *   POST /pause?mode=wait    waits for the requests in flight; new ones get 503 until /resume
 *   POST /collective_rpc     {"method": "reload_weights", "kwargs": {"weights_path"}}: an ONNX folder of new weights
 *                            (a path, or a store reference: s3://…, file:///…, model://NAME)
 *   POST /update_weight_version {"new_version"}
 *   POST /resume
 *
 * The distribution sampled is the whole tempered one (top_p 1, no top-k, min-p or penalties:
 * others are refused), and the log-probs are those of that distribution (vLLM's processed_logprobs).
 */

const Completion = z.object({
  model: z.string().optional(),
  prompt: z.array(z.number().int().min(0)).min(1, 'prompt must hold token ids'),
  max_tokens: z.number().int().min(1).default(16),
  temperature: z.number().min(0).default(1),
  top_p: z
    .literal(1, { error: 'only top_p = 1 is served: a truncated distribution would have to reach the trainer' })
    .default(1),
  top_k: z.union([z.literal(-1), z.literal(0)], { error: 'only top_k -1 (off) is served' }).default(-1),
  min_p: z.literal(0, { error: 'only min_p 0 is served' }).default(0),
  repetition_penalty: z.literal(1, { error: 'only repetition_penalty 1 is served' }).default(1),
  presence_penalty: z.literal(0, { error: 'only presence_penalty 0 is served' }).default(0),
  frequency_penalty: z.literal(0, { error: 'only frequency_penalty 0 is served' }).default(0),
  seed: z.number().int().default(0),
  stop_token_ids: z.array(z.number().int().min(0)).default([]),
  logprobs: z.number().int().min(0).nullable().optional(),
  return_token_ids: z.boolean().optional(),
  return_tokens_as_token_ids: z.boolean().optional(),
  return_weight_versions: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  n: z.literal(1, { error: 'only n = 1 is served' }).default(1),
});

export interface CausalLmServerOptions {
  /** the served model name (requests naming another are refused, as vLLM does) */
  name: string;
  /** the model's tokenizer (activities/policies/chat/chat-tokenizer.ts): /tokenize and the answers' texts */
  tokenizer: { decode(ids: readonly number[]): string; encodeMarkup(text: string): number[] };
  /** the ONNX folder served first, and its version */
  graphDir: string;
  version: string;
  /** called once new weights are named (update_weight_version): what a restarted server should serve again */
  onPublished?: (served: { weightsPath: string; version: string }) => void | Promise<void>;
}

export async function createCausalLmServer(options: CausalLmServerOptions): Promise<{
  server: Server;
  version: () => string;
  generator: () => BatchingGenerator;
  device: () => CausalLm['device'];
}> {
  const { tokenizer } = options;
  let model: CausalLm = await loadCausalLm(options.graphDir, options.version);
  let generator = new BatchingGenerator(model);
  let version = options.version;
  let weightsPath = options.graphDir;
  let inFlight = 0;
  let paused = false;
  let drained: (() => void) | null = null;

  const fail = (response: ServerResponse, status: number, type: string, message: string, param: string | null = null) =>
    send(response, status, { error: { message, type, param, code: status } });

  const complete = async (body: unknown, response: ServerResponse) => {
    const parsed = Completion.safeParse(body);
    if (!parsed.success)
      return fail(
        response,
        400,
        'BadRequestError',
        parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; '),
      );
    const request = parsed.data;
    if (request.model !== undefined && request.model !== options.name)
      return fail(
        response,
        404,
        'NotFoundError',
        `The model \`${request.model}\` does not exist. Valid aliases: ${options.name}.`,
        'model',
      );
    if (request.prompt.some((id) => id >= model.vocabSize))
      return fail(
        response,
        400,
        'BadRequestError',
        `prompt holds a token outside the vocabulary of ${model.vocabSize}`,
      );
    if (request.prompt.length >= model.window)
      return fail(
        response,
        400,
        'BadRequestError',
        `the prompt holds ${request.prompt.length} tokens; the window is ${model.window}`,
      );
    if (paused)
      return fail(response, 503, 'ServiceUnavailableError', 'Generation is paused. Please retry after it resumes.');
    const served = version;
    inFlight++;
    let generation;
    try {
      generation = await generator.submit({
        prompt: request.prompt,
        maxTokens: Math.min(request.max_tokens, model.window - request.prompt.length),
        temperature: request.temperature,
        seed: request.seed,
        stopTokenIds: request.stop_token_ids,
      });
    } finally {
      inFlight--;
      if (inFlight === 0 && drained) drained();
    }
    const ids = generation.tokenIds;
    metrics.generated.inc(ids.length);
    metrics.prompted.inc(request.prompt.length);
    const stopReason = generation.finishReason === 'stop' ? ids.at(-1)! : null;
    send(response, 200, {
      id: `cmpl-${Date.now().toString(16)}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: options.name,
      choices: [
        {
          index: 0,
          text: tokenizer.decode(generation.finishReason === 'stop' ? ids.slice(0, -1) : ids),
          logprobs: {
            tokens: ids.map((id) => `token_id:${id}`),
            token_logprobs: generation.logprobs,
            top_logprobs: ids.map((id, index) => ({ [`token_id:${id}`]: generation.logprobs[index] })),
            text_offset: ids.map(() => 0),
          },
          finish_reason: generation.finishReason,
          stop_reason: stopReason,
          token_ids: ids,
          prompt_token_ids: request.prompt,
          weight_versions: [{ version: served, start: 0, end: ids.length }],
        },
      ],
      usage: {
        prompt_tokens: request.prompt.length,
        completion_tokens: ids.length,
        total_tokens: request.prompt.length + ids.length,
      },
    });
  };

  const metrics = createServingMetrics('model_server');
  metrics.versions.set(1);
  const server = createJsonServer(
    metrics.instrument(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      try {
        if (request.method === 'GET' && url.pathname === '/v1/models') {
          return send(response, 200, {
            object: 'list',
            data: [
              {
                id: options.name,
                object: 'model',
                created: 0,
                owned_by: 'agentrl',
                root: model.dir,
                parent: null,
                max_model_len: model.window,
              },
            ],
          });
        }
        if (request.method === 'GET' && url.pathname === '/weight_info')
          return send(response, 200, { weight_version: version });
        if (request.method === 'GET' && url.pathname === '/is_paused')
          return send(response, 200, { is_paused: paused });
        if (request.method !== 'POST')
          return fail(response, 404, 'NotFoundError', `no route ${request.method} ${url.pathname}`);
        const read = await readJsonBody(request);
        if (read === undefined || read === null || typeof read !== 'object' || Array.isArray(read))
          return fail(response, 400, 'BadRequestError', 'the body is not a JSON object');
        const body: object = read;
        switch (url.pathname) {
          case '/v1/completions':
            return await complete(body, response);
          case '/tokenize': {
            const prompt = (body as { prompt?: unknown }).prompt;
            if (typeof prompt !== 'string') return fail(response, 400, 'BadRequestError', 'prompt must be a string');
            const tokens = tokenizer.encodeMarkup(prompt);
            return send(response, 200, { count: tokens.length, max_model_len: model.window, tokens, token_strs: null });
          }
          case '/pause': {
            paused = true;
            if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
            drained = null;
            return send(response, 200, { status: 'paused' });
          }
          case '/resume':
            paused = false;
            return send(response, 200, { status: 'resumed' });
          case '/collective_rpc': {
            const { method, kwargs } = body as { method?: unknown; kwargs?: { weights_path?: unknown } };
            if (method !== 'reload_weights' || typeof kwargs?.weights_path !== 'string')
              return fail(
                response,
                400,
                'BadRequestError',
                'only {"method": "reload_weights", "kwargs": {"weights_path": DIR}} is served',
              );
            if (!paused) return fail(response, 409, 'ConflictError', 'pause generation first (/pause?mode=wait)');
            model = await loadCausalLm(await localCopyOf(kwargs.weights_path), version);
            metrics.loads.inc();
            generator = new BatchingGenerator(model);
            weightsPath = kwargs.weights_path;
            return send(response, 200, { results: [null] });
          }
          case '/update_weight_version': {
            const next = (body as { new_version?: unknown }).new_version;
            if (typeof next !== 'string' || next === '')
              return fail(response, 400, 'BadRequestError', 'new_version must be a non-empty string');
            version = next;
            model = { ...model, version };
            await options.onPublished?.({ weightsPath, version });
            return send(response, 200, { success: true, new_version: version });
          }
          default:
            return fail(response, 404, 'NotFoundError', `no route POST ${url.pathname}`);
        }
      } catch (error) {
        fail(response, 500, 'InternalServerError', (error as Error).message);
      }
    }),
  );
  return { server, version: () => version, generator: () => generator, device: () => model.device };
}

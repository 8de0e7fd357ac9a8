import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { CompletionRequest, type CompletionChoice, type CompletionResponse } from '../shared/completions';
import { generate, loadOnnxPolicy, type LoadedPolicy } from './onnx-policy';

const LoadWeightsRequest = z.object({ model_path: z.string().min(1) });

/** The model path a server was last told to load, from its state file; null when there is none or it is gone. */
function readServedState(path: string): string | null {
  try {
    const state = z.object({ model_path: z.string().min(1) }).parse(JSON.parse(readFileSync(path, 'utf8')));
    return existsSync(state.model_path) ? state.model_path : null;
  } catch {
    return null;
  }
}

async function writeServedState(path: string, modelPath: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ model_path: modelPath, at: new Date().toISOString() }));
  await rename(temporary, path);
}

/** Text of token ids: bytes below 256 as UTF-8, other ids as `<|id|>`. */
function decodeTokens(ids: readonly number[]): string {
  let text = '';
  let bytes: number[] = [];
  const flush = () => {
    text += Buffer.from(bytes).toString('utf8');
    bytes = [];
  };
  for (const id of ids) {
    if (id < 256) bytes.push(id);
    else {
      flush();
      text += `<|${id}|>`;
    }
  }
  flush();
  return text;
}

/**
 * The embedded policy server: onnxruntime-node behind vLLM's `/v1/completions` shape, plus
 * `POST /v1/load_weights {"model_path"}` to swap in new weights and `GET /v1/models`.
 * Requests are served one at a time (a 2-core machine gains nothing from interleaving them).
 */
export async function createPolicyServer(modelPath?: string, options: { stateFile?: string } = {}): Promise<{ server: Server; current: () => LoadedPolicy | null }> {
  // without a model it answers 503 until the first POST /v1/load_weights (a training run publishes its step 0);
  // a server restarted with a state file serves again the last policy it was told to load
  const restored = !modelPath && options.stateFile ? readServedState(options.stateFile) : null;
  let policy: LoadedPolicy | null = modelPath ? await loadOnnxPolicy(modelPath) : restored ? await loadOnnxPolicy(restored).catch(() => null) : null;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => send(response, 500, { error: { message: (error as Error).message, type: 'internal_error' } }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url === '/v1/models') {
      return send(response, 200, { object: 'list', data: policy ? [{ id: policy.version, object: 'model', max_model_len: policy.context, vocab_size: policy.vocabSize }] : [] });
    }
    if (request.method === 'POST' && request.url === '/v1/completions') {
      const loaded = policy;
      if (!loaded) return send(response, 503, { error: { message: 'no model loaded yet: POST /v1/load_weights first', type: 'service_unavailable' } });
      const parsed = CompletionRequest.safeParse(await readJson(request));
      if (!parsed.success) return badRequest(response, parsed.error);
      // as vLLM: a request naming another model is refused, never answered by the one loaded
      if (parsed.data.model !== undefined && parsed.data.model !== loaded.version) {
        return send(response, 404, { error: { message: `The model \`${parsed.data.model}\` does not exist (this server serves ${loaded.version}).`, type: 'NotFoundError' } });
      }
      const prompts = typeof parsed.data.prompt[0] === 'number' ? [parsed.data.prompt as number[]] : (parsed.data.prompt as number[][]);
      if (prompts.some((prompt) => prompt.some((id) => id >= loaded.vocabSize))) {
        return send(response, 400, { error: { message: `prompt: token ids must be below the vocabulary size ${loaded.vocabSize}`, type: 'invalid_request_error' } });
      }
      if (prompts.some((prompt) => prompt.length >= loaded.context)) {
        return send(response, 400, { error: { message: `prompt: longer than the model's context of ${loaded.context} tokens`, type: 'invalid_request_error' } });
      }
      return send(response, 200, await serial(() => complete(parsed.data)));
    }
    if (request.method === 'POST' && request.url === '/v1/load_weights') {
      const parsed = LoadWeightsRequest.safeParse(await readJson(request));
      if (!parsed.success) return badRequest(response, parsed.error);
      let next: LoadedPolicy;
      try {
        next = await loadOnnxPolicy(parsed.data.model_path);
      } catch (error) {
        return send(response, 400, { error: { message: `model_path: ${(error as Error).message}`, type: 'invalid_request_error' } });
      }
      // swapped between requests: a completion in flight finishes on the weights it started with
      await serial(async () => {
        policy = next;
      });
      if (options.stateFile) await writeServedState(options.stateFile, parsed.data.model_path);
      return send(response, 200, { model: next.version });
    }
    send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'not_found' } });
  }

  async function complete(request: CompletionRequest): Promise<CompletionResponse> {
    const prompts = typeof request.prompt[0] === 'number' ? [request.prompt as number[]] : (request.prompt as number[][]);
    const current = policy!;
    const choices: CompletionChoice[] = [];
    let completionTokens = 0;
    for (const prompt of prompts) {
      for (let sample = 0; sample < request.n; sample++) {
        const generation = await generate(current, prompt, {
          maxTokens: request.max_tokens,
          temperature: request.temperature,
          seed: (request.seed ?? randomBytes(4).readUInt32LE()) + choices.length,
          stopTokenIds: request.stop_token_ids,
          ...(request.allowed_token_ids ? { allowedTokenIds: new Set(request.allowed_token_ids) } : {}),
        });
        completionTokens += generation.tokenIds.length;
        const last = generation.tokenIds.at(-1);
        choices.push({
          index: choices.length,
          text: decodeTokens(generation.tokenIds),
          logprobs: request.logprobs === undefined || request.logprobs === null ? null : {
            tokens: generation.tokenIds.map((id) => `token_id:${id}`),
            token_logprobs: generation.logprobs,
            top_logprobs: null,
            text_offset: [],
          },
          finish_reason: generation.finishReason,
          stop_reason: generation.finishReason === 'stop' && last !== undefined ? last : null,
          token_ids: request.return_token_ids ? generation.tokenIds : null,
          prompt_token_ids: request.return_token_ids ? prompt : null,
        });
      }
    }
    const promptTokens = prompts.reduce((sum, prompt) => sum + prompt.length, 0);
    return {
      id: `cmpl-${randomBytes(8).toString('hex')}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: current.version,
      choices,
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  }

  return { server, current: () => policy };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function badRequest(response: ServerResponse, error: z.ZodError): void {
  const issue = error.issues[0];
  send(response, 400, { error: { message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid request'}`, type: 'invalid_request_error' } });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

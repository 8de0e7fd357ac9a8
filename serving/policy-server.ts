import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { z } from 'zod';
import { CompletionRequest, type CompletionChoice, type CompletionResponse } from '../shared/contracts/completions';
import { createJsonServer, readJsonBody, sendJson as send } from './http';
import { generate, loadOnnxPolicy, type LoadedPolicy } from './onnx-policy';
import { localCopyOf } from '../activities/store/local-copy';
import { createServingMetrics, type ServingMetrics } from './metrics';

const LoadWeightsRequest = z.object({ model_path: z.string().min(1) });

/** What the state file keeps: the policy last loaded, and every version published to this server with its reference. */
const ServedState = z.object({ model_path: z.string().min(1), versions: z.record(z.string(), z.string()).optional() });
type ServedState = z.infer<typeof ServedState>;

/** The server's state file; null when there is none or it is unreadable. */
function readServedState(path: string): ServedState | null {
  try {
    return ServedState.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}

async function writeServedState(path: string, state: ServedState): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ ...state, at: new Date().toISOString() }));
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
 * `POST /v1/load_weights {"model_path"}` to publish new weights and `GET /v1/models`. `model_path` is a
 * store reference (`s3://…/policies/v<N>`, `file:///…`) or a local path: the server fetches an object
 * store's policy into its store cache itself, so it shares nothing with the trainer but the store.
 *
 * Every version published to it stays servable: a request naming an earlier version (`model`) is
 * answered by that version's weights, so a publish never fails an episode in flight that still
 * samples the version it started with. Requests without `model` get the version published last.
 * At most `maxLoaded` versions are held in memory, the current one and the one asked for last always
 * among them (the least recently used of the others is dropped and loaded again from the store when
 * asked for); a version whose policy is gone answers 404, as an unknown one.
 * Requests are served one at a time (a 2-core machine gains nothing from interleaving them).
 */
export async function createPolicyServer(
  modelPath?: string,
  options: { stateFile?: string; maxLoaded?: number } = {},
): Promise<{ server: Server; current: () => LoadedPolicy | null; versions: () => string[] }> {
  const maxLoaded = Math.max(1, options.maxLoaded ?? 8);
  // Prometheus metrics at GET /metrics (serving/metrics.ts)
  const metrics = createServingMetrics('policy_server');
  // version -> store reference, in publication order (the last one is the current version)
  const published = new Map<string, string>();
  // version -> loaded session, least recently used first
  const loaded = new Map<string, LoadedPolicy>();
  let currentVersion: string | null = null;
  const hold = (policy: LoadedPolicy): LoadedPolicy => {
    loaded.delete(policy.version);
    loaded.set(policy.version, policy);
    for (const version of loaded.keys()) {
      if (loaded.size <= maxLoaded) break;
      // the current version and the one just asked for stay; the rest go least recently used first
      if (version !== currentVersion && version !== policy.version) loaded.delete(version);
    }
    return policy;
  };
  const publish = (policy: LoadedPolicy, ref: string): void => {
    published.delete(policy.version);
    published.set(policy.version, ref);
    metrics.versions.set(published.size);
    currentVersion = policy.version;
    hold(policy);
  };
  /** The session of a published version, loaded again from the store if it was dropped; null when unknown or gone. */
  const sessionOf = async (version: string): Promise<LoadedPolicy | null> => {
    const held = loaded.get(version);
    if (held) return hold(held);
    const ref = published.get(version);
    if (!ref) return null;
    const policy = await loadPolicyRef(ref, metrics).catch(() => null);
    return policy && policy.version === version ? hold(policy) : null;
  };
  const current = (): LoadedPolicy | null => (currentVersion ? (loaded.get(currentVersion) ?? null) : null);

  // without a model it answers 503 until the first POST /v1/load_weights (a training run publishes its step 0);
  // a server restarted with a state file serves again the versions it was told to load, the last one current
  if (modelPath) {
    publish(await loadPolicyRef(modelPath, metrics), modelPath);
  } else if (options.stateFile) {
    const state = readServedState(options.stateFile);
    for (const [version, ref] of Object.entries(state?.versions ?? {})) published.set(version, ref);
    const last = state ? await loadPolicyRef(state.model_path, metrics).catch(() => null) : null;
    if (last && state) publish(last, state.model_path);
  }
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const server = createJsonServer(metrics.instrument(handle));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url === '/v1/models') {
      // the current version first (clients that read one model read it), then the earlier ones, newest first
      const latest = current();
      const others = [...published.keys()].filter((version) => version !== currentVersion).reverse();
      return send(response, 200, {
        object: 'list',
        data: latest
          ? [latest.version, ...others].map((id) => ({
              id,
              object: 'model',
              max_model_len: latest.context,
              vocab_size: latest.vocabSize,
            }))
          : [],
      });
    }
    if (request.method === 'POST' && request.url === '/v1/completions') {
      if (!currentVersion)
        return send(response, 503, {
          error: { message: 'no model loaded yet: POST /v1/load_weights first', type: 'service_unavailable' },
        });
      const parsed = CompletionRequest.safeParse(await readJsonBody(request));
      if (!parsed.success) return badRequest(response, parsed.error);
      // as vLLM: a request naming a model this server does not serve is refused, never answered by another
      const wanted = parsed.data.model ?? currentVersion;
      const policy = await serial(() => sessionOf(wanted));
      if (!policy) {
        return send(response, 404, {
          error: {
            message:
              `The model \`${wanted}\` does not exist (this server serves ` +
              `${currentVersion}${published.size > 1 ? ` and ${published.size - 1} earlier version(s)` : ''}).`,
            type: 'NotFoundError',
          },
        });
      }
      const prompts =
        typeof parsed.data.prompt[0] === 'number'
          ? [parsed.data.prompt as number[]]
          : (parsed.data.prompt as number[][]);
      if (prompts.some((prompt) => prompt.some((id) => id >= policy.vocabSize))) {
        return send(response, 400, {
          error: {
            message: `prompt: token ids must be below the vocabulary size ${policy.vocabSize}`,
            type: 'invalid_request_error',
          },
        });
      }
      if (prompts.some((prompt) => prompt.length >= policy.context)) {
        return send(response, 400, {
          error: {
            message: `prompt: longer than the model's context of ${policy.context} tokens`,
            type: 'invalid_request_error',
          },
        });
      }
      return send(response, 200, await serial(async () => complete(parsed.data, (await sessionOf(wanted)) ?? policy)));
    }
    if (request.method === 'POST' && request.url === '/v1/load_weights') {
      const parsed = LoadWeightsRequest.safeParse(await readJsonBody(request));
      if (!parsed.success) return badRequest(response, parsed.error);
      let next: LoadedPolicy;
      try {
        next = await loadPolicyRef(parsed.data.model_path, metrics);
      } catch (error) {
        return send(response, 400, {
          error: { message: `model_path: ${(error as Error).message}`, type: 'invalid_request_error' },
        });
      }
      // published between requests: a completion in flight finishes on the weights it started with
      await serial(() => Promise.resolve(publish(next, parsed.data.model_path)));
      if (options.stateFile)
        await writeServedState(options.stateFile, {
          model_path: parsed.data.model_path,
          versions: Object.fromEntries(published),
        });
      return send(response, 200, { model: next.version });
    }
    send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'not_found' } });
  }

  async function complete(request: CompletionRequest, served: LoadedPolicy): Promise<CompletionResponse> {
    const prompts =
      typeof request.prompt[0] === 'number' ? [request.prompt as number[]] : (request.prompt as number[][]);
    const choices: CompletionChoice[] = [];
    let completionTokens = 0;
    for (const prompt of prompts) {
      for (let sample = 0; sample < request.n; sample++) {
        const generation = await generate(served, prompt, {
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
          logprobs:
            request.logprobs === undefined || request.logprobs === null
              ? null
              : {
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
    metrics.generated.inc(completionTokens);
    metrics.prompted.inc(promptTokens);
    return {
      id: `cmpl-${randomBytes(8).toString('hex')}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: served.version,
      choices,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    };
  }

  return { server, current, versions: () => [...published.keys()] };
}

function badRequest(response: ServerResponse, error: z.ZodError): void {
  const issue = error.issues[0];
  send(response, 400, {
    error: {
      message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid request'}`,
      type: 'invalid_request_error',
    },
  });
}

/**
 * A policy by its store reference (s3://…, file:///…, a plain path): fetched into the store cache
 * when it lives in an object store (activities/store/local-copy.ts), then loaded.
 */
async function loadPolicyRef(ref: string, metrics?: ServingMetrics): Promise<LoadedPolicy> {
  const policy = await loadOnnxPolicy(await localCopyOf(ref));
  metrics?.loads.inc();
  return policy;
}

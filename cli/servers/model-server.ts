// The embedded server of a Hugging Face causal LM of shared/models.json, behind the vLLM subset of
// serving/causal-lm-server.ts: node --import tsx cli/servers/model-server.ts --model NAME [--port 8102] [--host
// 127.0.0.1]
// [--state FILE] (the episode and train commands start it as a background service). With --state
// it records every publication there and, restarted, serves the last one again (its weights and
// version), so a run's pinned episodes find their version after a crash. Prints one line once it listens.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadChatTokenizer, modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import { baseVersion, knownModel } from '../../shared/names/models';
import { servingPorts } from '../../shared/names/serving-ports';
import { createCausalLmServer } from '../../serving/causal-lm-server';
import { atomicWrite } from '../../activities/store/files';

/** The publication a --state file holds, when it still names weights on disk. */
function servedBefore(path: string | undefined, model: string): { weightsPath: string; version: string } | null {
  if (!path || !existsSync(path)) return null;
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      model?: unknown;
      weightsPath?: unknown;
      version?: unknown;
    };
    if (saved.model !== model || typeof saved.weightsPath !== 'string' || typeof saved.version !== 'string')
      return null;
    return existsSync(join(saved.weightsPath, 'model.onnx'))
      ? { weightsPath: saved.weightsPath, version: saved.version }
      : null;
  } catch {
    return null;
  }
}

export async function runModelServer(
  options: { model: string; port: number; host: string; state?: string },
  signal?: AbortSignal,
): Promise<void> {
  const entry = knownModel(options.model);
  if (entry.kind !== 'hf-causal-lm' || !entry.tokenizer)
    throw new Error(`--model: ${options.model} is the embedded toy model; it is served by npx agentrl policy-server`);
  const before = servedBefore(options.state, options.model);
  if (before) console.log(`serving ${before.version} again (${before.weightsPath}), as ${options.state} records`);
  const served = await createCausalLmServer({
    name: options.model,
    tokenizer: loadChatTokenizer(entry.tokenizer),
    graphDir: before?.weightsPath ?? join(modelCacheDir(), 'onnx', options.model),
    version: before?.version ?? baseVersion(options.model),
    ...(options.state
      ? {
          onPublished: (served: { weightsPath: string; version: string }) =>
            atomicWrite(options.state!, JSON.stringify({ model: options.model, ...served })),
        }
      : {}),
  });
  const { server } = served;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolveListen);
  });
  console.log(
    `model ${options.model} served at http://${options.host}:${options.port}/v1/completions (on ${served.device()})`,
  );
  await new Promise<void>((resolveStop) => {
    const stop = () => server.close(() => resolveStop());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      state: { type: 'string' },
    },
    strict: true,
  });
  runModelServer({
    model: values.model ?? '',
    port: values.port === undefined ? servingPorts.model : Number(values.port),
    host: values.host ?? '127.0.0.1',
    ...(values.state ? { state: values.state } : {}),
  }).catch((error: unknown) => {
    console.error(`model-server: ${(error as Error).message}`);
    process.exit(1);
  });
}

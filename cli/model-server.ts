// The embedded server of a Hugging Face causal LM of shared/models.json, behind the vLLM subset of
// serving/causal-lm-server.ts: node --import tsx cli/model-server.ts --model NAME [--port 8102] [--host 127.0.0.1]
// (the episode command starts it as a background service). Prints one line once it listens.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadChatTokenizer, modelCacheDir } from '../activities/policies/chat/chat-tokenizer';
import { knownModel } from '../shared/models';
import { createCausalLmServer } from '../serving/causal-lm-server';

/** The version of a model's starting weights, as a served model reports it before any publish. */
export const baseVersion = (name: string) => `${name}-base`;

export async function runModelServer(options: { model: string; port: number; host: string }, signal?: AbortSignal): Promise<void> {
  const entry = knownModel(options.model);
  if (entry.kind !== 'hf-causal-lm' || !entry.tokenizer) throw new Error(`--model: ${options.model} is the embedded toy model; it is served by npx agentrl policy-server`);
  const { server } = await createCausalLmServer({
    name: options.model, tokenizer: loadChatTokenizer(entry.tokenizer), graphDir: join(modelCacheDir(), 'onnx', options.model), version: baseVersion(options.model),
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolveListen);
  });
  console.log(`model ${options.model} served at http://${options.host}:${options.port}/v1/completions`);
  await new Promise<void>((resolveStop) => {
    const stop = () => server.close(() => resolveStop());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

if (require.main === module) {
  const { values } = parseArgs({ options: { model: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } }, strict: true });
  runModelServer({ model: values.model ?? '', port: Number(values.port ?? 8102), host: values.host ?? '127.0.0.1' }).catch((error: unknown) => {
    console.error(`model-server: ${(error as Error).message}`);
    process.exit(1);
  });
}

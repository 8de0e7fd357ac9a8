// The embedded policy server's entry point: node --import tsx serving/main.ts [--model FILE.onnx] [--port 8000] [--host 127.0.0.1]
// (`npx agentrl policy-server` runs the same). Prints one line once it listens; SIGINT or SIGTERM stop it.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createPolicyServer } from './policy-server';

export interface PolicyServerOptions {
  model?: string;
  port: number;
  host: string;
  /** where the server keeps the path of the policy it last loaded, to serve it again after a restart */
  state?: string;
}

export const policyServerUsage = [
  'Usage: npx agentrl policy-server [--model FILE.onnx] [--port 8000] [--host 127.0.0.1] [--state FILE]',
  '',
  'Serves an exported ONNX policy with onnxruntime-node behind vLLM\'s API. Without --model it answers 503',
  'until the first /v1/load_weights (a training run publishes its policies).',
  '',
  'POST /v1/completions   vLLM request shape; prompt as token ids; returns token_ids and log-probs',
  'POST /v1/load_weights  {"model_path": "..."}: swap in new weights between requests',
  'GET  /v1/models        the loaded policy version, its context length and vocabulary size',
  '',
  'Options:',
  '  --model FILE.onnx   the policy to serve from the start          default: none (503 until load_weights)',
  '  --port N            TCP port                                    default: 8000',
  '  --host ADDRESS      address to listen on                        default: 127.0.0.1',
  '  --state FILE        remember the last loaded policy in FILE and  default: none',
  '                      serve it again when restarted without --model',
].join('\n');

/** Serves until SIGINT or SIGTERM (or `signal`), then closes the listener. */
export async function runPolicyServer(options: PolicyServerOptions, signal?: AbortSignal): Promise<void> {
  const { server, current } = await createPolicyServer(options.model ? resolve(options.model) : undefined, options.state ? { stateFile: resolve(options.state) } : {});
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolveListen);
  });
  console.log(`policy ${current()?.version ?? '(none yet)'} served at http://${options.host}:${options.port}/v1/completions`);
  await new Promise<void>((resolveStop) => {
    const stop = () => server.close(() => resolveStop());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** Reads the entry point's flags; a bad one throws with the usage. */
export function parsePolicyServerArgs(argv: string[]): PolicyServerOptions {
  const { values } = parseArgs({ args: argv, options: { model: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, state: { type: 'string' } }, strict: true });
  const port = values.port === undefined ? 8000 : Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`--port: expected a port number, got ${JSON.stringify(values.port)}`);
  return { ...(values.model ? { model: values.model } : {}), ...(values.state ? { state: values.state } : {}), port, host: values.host ?? '127.0.0.1' };
}

if (require.main === module) {
  (async () => {
    let options: PolicyServerOptions;
    try {
      options = parsePolicyServerArgs(process.argv.slice(2));
    } catch (error) {
      console.error(`policy-server: ${(error as Error).message}\n\n${policyServerUsage}`);
      process.exit(2);
    }
    await runPolicyServer(options);
  })().catch((error: unknown) => {
    console.error(`policy-server: ${(error as Error).message}`);
    process.exit(1);
  });
}

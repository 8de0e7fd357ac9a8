// The embedded policy server's entry point (the model server's is beside it): node --import tsx
// cli/servers/policy-server.ts [--model FILE.onnx] [--port 8000] [--host 127.0.0.1]
// (`npx agentrl policy-server` runs the same). Prints one line once it listens; SIGINT or SIGTERM stop it.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createPolicyServer } from '../../serving/policy-server';
import { servingPorts } from '../../shared/names/serving-ports';

export interface PolicyServerOptions {
  model?: string;
  port: number;
  host: string;
  /** where the server keeps the path of the policy it last loaded, to serve it again after a restart */
  state?: string;
  /**
   * how many published versions are held in memory at once (others are loaded again from their files when asked for)
   */
  maxLoaded?: number;
}

export const policyServerUsage = [
  `Usage: npx agentrl policy-server [--model FILE.onnx] [--port ${servingPorts.policyServer}] ` +
    '[--host 127.0.0.1] [--state FILE] ' +
    '[--max-loaded 8]',
  '',
  "Serves an exported ONNX policy with onnxruntime-node behind vLLM's API. Without --model it answers 503",
  'until the first /v1/load_weights (a training run publishes its policies).',
  '',
  'POST /v1/completions   vLLM request shape; prompt as token ids; returns token_ids and log-probs;',
  '                       "model" names the version (any version published here), default the last one',
  'POST /v1/load_weights  {"model_path": "..."}: publish new weights between requests; earlier versions stay served',
  'GET  /v1/models        the served versions, the last published first, with context length and vocabulary size',
  '',
  'Options:',
  '  --model FILE.onnx   the policy to serve from the start          default: none (503 until load_weights)',
  `  --port N            TCP port                                    default: ${servingPorts.policyServer}`,
  '  --host ADDRESS      address to listen on                        default: 127.0.0.1',
  '  --state FILE        remember the published policies in FILE and default: none',
  '                      serve them again when restarted without --model',
  '  --max-loaded N      published versions held in memory at once;  default: 8',
  '                      others are loaded again from their files',
].join('\n');

/** Serves until SIGINT or SIGTERM (or `signal`), then closes the listener. */
export async function runPolicyServer(options: PolicyServerOptions, signal?: AbortSignal): Promise<void> {
  const { server, current } = await createPolicyServer(options.model ? resolve(options.model) : undefined, {
    ...(options.state ? { stateFile: resolve(options.state) } : {}),
    ...(options.maxLoaded ? { maxLoaded: options.maxLoaded } : {}),
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolveListen);
  });
  console.log(
    `policy ${current()?.version ?? '(none yet)'} served at http://${options.host}:${options.port}/v1/completions`,
  );
  await new Promise<void>((resolveStop) => {
    const stop = () => server.close(() => resolveStop());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** Reads the entry point's flags; a bad one throws with the usage. */
export function parsePolicyServerArgs(argv: string[]): PolicyServerOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      state: { type: 'string' },
      'max-loaded': { type: 'string' },
    },
    strict: true,
  });
  const port = values.port === undefined ? servingPorts.policyServer : Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535)
    throw new Error(`--port: expected a port number, got ${JSON.stringify(values.port)}`);
  const maxLoaded = values['max-loaded'] === undefined ? 8 : Number(values['max-loaded']);
  if (!Number.isInteger(maxLoaded) || maxLoaded < 1)
    throw new Error(`--max-loaded: expected a whole number of at least 1, got ${JSON.stringify(values['max-loaded'])}`);
  return {
    ...(values.model ? { model: values.model } : {}),
    ...(values.state ? { state: values.state } : {}),
    port,
    host: values.host ?? '127.0.0.1',
    maxLoaded,
  };
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

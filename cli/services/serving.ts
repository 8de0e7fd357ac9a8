import { join } from 'node:path';
import { servingPorts } from '../../shared/names/serving-ports';
import { codeVersion } from '../../workers/code-version';
import { projectRoot, type LoadedConfig } from '../../workers/config';
import { ensureService } from './supervisor';
import { s3Access } from './store-settings';

/** The embedded inference servers: the toy model's policy server and a real model's server, one per port. */

export const policyServerName = (port: number) => `policy-server-${port}`;
export const modelServerName = (port: number) => `model-server-${port}`;

/**
 * A server's readiness: its own line first (another process answering on the port must not pass for it), then
 * /v1/models.
 */
function servingReady(url: string): (text: string) => Promise<boolean> {
  return async (text) => {
    if (!text.includes(`served at ${url}/`)) return false;
    try {
      return (await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(1000) })).ok;
    } catch {
      return false;
    }
  };
}

/**
 * The embedded policy server on `port` (127.0.0.1; one per port), empty until weights are published; returns its URL.
 * It fetches each published policy from the store by its reference.
 */
export async function ensurePolicyServer(
  config: LoadedConfig,
  port: number,
  log: (line: string) => void,
): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  await ensureService(
    config,
    {
      name: policyServerName(port),
      codeVersion: codeVersion(),
      settings: { port: String(port), ...s3Access(config) },
      command: process.execPath,
      // its state file: restarted after a crash, it serves the last published policy again
      args: [
        '--import',
        'tsx',
        join(projectRoot, 'cli', 'servers', 'policy-server.ts'),
        '--port',
        String(port),
        '--state',
        join(config.stateDir, `${policyServerName(port)}.served`),
      ],
      // `--import tsx` resolves from the project root
      cwd: projectRoot,
      ready: servingReady(url),
    },
    log,
  );
  return url;
}

/**
 * Starts (or finds) the embedded server of a real model; returns its base URL. Its state file keeps
 * the last publication, so a restarted server serves the same weights and version again.
 */
export async function ensureModelServer(
  config: LoadedConfig,
  model: string,
  log: (line: string) => void,
  port = servingPorts.model,
): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  await ensureService(
    config,
    {
      name: modelServerName(port),
      codeVersion: codeVersion(),
      settings: { model, port: String(port), ...s3Access(config) },
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(projectRoot, 'cli', 'servers', 'model-server.ts'),
        '--model',
        model,
        '--port',
        String(port),
        '--state',
        join(config.stateDir, `${modelServerName(port)}.served`),
      ],
      cwd: projectRoot,
      ready: servingReady(url),
    },
    log,
  );
  return url;
}

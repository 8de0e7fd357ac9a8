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
 * The embedded server started from `script` (cli/servers/) on `port` of 127.0.0.1, recorded as `name`;
 * returns its URL. Its state file keeps what was last published to it, so a restarted server serves the
 * same weights and version again.
 */
async function ensureServing(
  config: LoadedConfig,
  log: (line: string) => void,
  server: { name: string; script: string; port: number; settings: Record<string, string>; args: string[] },
): Promise<string> {
  const url = `http://127.0.0.1:${server.port}`;
  await ensureService(
    config,
    {
      name: server.name,
      codeVersion: codeVersion(),
      // it fetches what is published to it from the store, by reference
      settings: { ...server.settings, port: String(server.port), ...s3Access(config) },
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        server.script,
        ...server.args,
        '--port',
        String(server.port),
        '--state',
        join(config.stateDir, `${server.name}.served`),
      ],
      // `--import tsx` resolves from the project root
      cwd: projectRoot,
      ready: servingReady(url),
    },
    log,
  );
  return url;
}

/** The embedded policy server on `port` (one per port), empty until weights are published; returns its URL. */
export const ensurePolicyServer = (config: LoadedConfig, port: number, log: (line: string) => void): Promise<string> =>
  ensureServing(config, log, {
    name: policyServerName(port),
    script: join(projectRoot, 'cli', 'servers', 'policy-server.ts'),
    port,
    settings: {},
    args: [],
  });

/** Starts (or finds) the embedded server of a real model; returns its base URL. */
export const ensureModelServer = (
  config: LoadedConfig,
  model: string,
  log: (line: string) => void,
  port = servingPorts.model,
): Promise<string> =>
  ensureServing(config, log, {
    name: modelServerName(port),
    script: join(projectRoot, 'cli', 'servers', 'model-server.ts'),
    port,
    settings: { model },
    args: ['--model', model],
  });

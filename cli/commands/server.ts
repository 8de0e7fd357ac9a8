import { codeVersion } from '../../workers/code-version';
import { upName } from './up';
import { loadConfig } from '../../workers/config';
import { log, type Command } from '../command';
import {
  devServerName,
  devServerStatus,
  listServices,
  startDevServer,
  stopDevServer,
  stopServices,
  workerName,
} from '../services';

export const server: Command = {
  summary: 'start, stop or show the embedded Temporal dev server and the background services: server start|stop|status',
  usage: [
    'Usage: npx agentrl server start|stop|status',
    '',
    '  start    start the embedded Temporal dev server (SQLite file in the state folder, Web UI, search attributes',
    '           registered), or find the one that runs',
    '  stop     stop `up`, the background episode worker, trainer worker, policy servers and model servers, then the ' +
      'dev server',
    '  status   whether a server answers at the configured address (and whether this project started it), and the',
    '           background services with their pids',
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
      await stopServices(config, upName); // first: it would start the others again
      await stopServices(config, workerName);
      await stopServices(config, 'trainer');
      await stopServices(config, 'policy-server');
      await stopServices(config, 'model-server');
      console.log((await stopDevServer(config)) ? 'stopped' : 'no dev server started by this project is running');
    } else if (action === 'status') {
      const status = await devServerStatus(config);
      const server = !status.running
        ? 'not running'
        : status.pid
          ? `running (pid ${status.pid})`
          : 'running (not started by this project)';
      console.log(`server: ${server} at ${status.address}, UI ${status.uiUrl}`);
      const services = listServices(config).filter((service) => service.name !== devServerName && service.alive);
      if (!services.some((service) => service.name === workerName)) console.log('worker: none');
      for (const { name, record } of services) {
        const stale = name === workerName && record.codeVersion !== codeVersion() ? ' (older than this checkout)' : '';
        console.log(
          `${name}: pid ${record.pid}, code ` +
            `${record.codeVersion}${stale}${record.settings ? `, ${record.settings}` : ''}`,
        );
      }
    } else {
      throw new Error(`server: unknown action ${JSON.stringify(action)}; use start, stop or status`);
    }
    return 0;
  },
};

import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { servingPorts } from '../../shared/names/serving-ports';
import { defaultTaskQueue } from '../../shared/names/task-queues';
import { loadConfig, projectRoot } from '../../workers/config';
import { log, oneOf, positiveInt, type Command } from '../command';
import {
  clearServiceRecord,
  ensurePolicyServer,
  ensureTrainerWorker,
  ensureWorker,
  isAlive,
  readServiceRecord,
  serviceLog,
  startDevServer,
  writeServiceRecord,
} from '../services';
import { baseServices, policyServerService, superviseServices, trainerService } from '../supervisor';
import { codeVersion } from '../../workers/code-version';

const serviceNames = ['server', 'worker', 'trainer', 'policy-server'] as const;
type ServiceName = (typeof serviceNames)[number];
export const upName = 'up';

export const up: Command = {
  summary: "supervise this host's services (dev server, episode worker, trainer, policy server) with no run waiting",
  usage: [
    'Usage: npx agentrl up [--services LIST] [--policy-port N] [--detach]',
    '',
    "Starts this host's services, or finds them running, and keeps them up: every 2 s each is checked and one",
    'that died is started again, as `train` does while it follows a run. So a run started from the Temporal UI',
    'or CLI (workflow type trainingRun on the task queue agentrl-episodes, input {}) survives',
    'a killed worker, trainer or policy server with no agentrl command waiting on it. Stopping `up` (Ctrl-C,',
    'SIGTERM) leaves the services running; `npx agentrl server stop` stops them.',
    '',
    'Options:',
    `  --services LIST    comma-separated, of ${serviceNames.join(', ')}   default: all of them`,
    '                     (a sandbox host without the dev server: worker; a GPU host: trainer)',
    `  --policy-port N    the toy model's policy server   default: ${servingPorts.trainingPolicy}`,
    `  --detach           run in the background (log: <stateDir>/up.log; pid in <stateDir>/up.json)`,
  ].join('\n'),
  options: {
    services: { type: 'string' },
    'policy-port': { type: 'string' },
    detach: { type: 'boolean' },
  },
  async run(values) {
    const config = loadConfig();
    const wanted = ((values.services as string | undefined) ?? serviceNames.join(','))
      .split(',')
      .map((name) => oneOf('--services', name.trim(), serviceNames) as ServiceName);
    const port = values['policy-port']
      ? positiveInt('--policy-port', values['policy-port'] as string)
      : servingPorts.trainingPolicy;
    const running = readServiceRecord(config, upName);
    if (running && isAlive(running.pid) && running.pid !== process.pid) {
      console.log(`up is already running (pid ${running.pid}, log ${serviceLog(config, upName)})`);
      return 0;
    }
    if (values.detach) {
      const out = openSync(serviceLog(config, upName), 'a');
      const args = [
        join(projectRoot, 'bin', 'agentrl.js'),
        'up',
        '--services',
        wanted.join(','),
        '--policy-port',
        String(port),
      ];
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env: process.env });
      child.unref();
      console.log(
        `up: supervising ${wanted.join(', ')} in the background (pid ${child.pid}, log ${serviceLog(config, upName)})`,
      );
      return 0;
    }
    const services = [];
    if (wanted.includes('server')) await startDevServer(config, log);
    if (wanted.includes('worker')) await ensureWorker(config, defaultTaskQueue, log);
    if (wanted.includes('trainer')) await ensureTrainerWorker(config, log);
    if (wanted.includes('policy-server')) await ensurePolicyServer(config, port, log);
    const base = baseServices(config, log).filter((service) =>
      service.name === 'worker' ? wanted.includes('worker') : wanted.includes('server'),
    );
    services.push(...base);
    if (wanted.includes('trainer')) services.push(trainerService(config, log));
    if (wanted.includes('policy-server')) services.push(policyServerService(config, port, log));
    await writeServiceRecord(config, upName, {
      pid: process.pid,
      codeVersion: codeVersion(),
      settings: `services ${wanted.join(',')}, policy port ${port}`,
      startedAt: new Date().toISOString(),
    });
    log(`up: supervising ${services.map((service) => service.name).join(', ')} (pid ${process.pid})`);
    const supervisor = superviseServices(services, log);
    await new Promise<void>((resolveStop) => {
      process.once('SIGINT', resolveStop);
      process.once('SIGTERM', resolveStop);
    });
    supervisor.stop();
    clearServiceRecord(config, upName, process.pid);
    const restarts = Object.entries(supervisor.restarts());
    log(
      'up: stopped; the services keep running' +
        (restarts.length ? ` (restarts: ${restarts.map(([name, count]) => `${name} ${count}`).join(', ')})` : ''),
    );
    return 0;
  },
};

import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { servingPorts } from '../../shared/names/serving-ports';
import { defaultTaskQueue } from '../../shared/names/task-queues';
import { loadConfig, projectRoot } from '../../workers/config';
import { log, oneOf, positiveInt, type Command } from '../command';
import { startDevServer } from '../services/dev-server';
import {
  baseServices,
  keepServicesUp,
  modelServerService,
  policyServerService,
  trainerService,
} from '../services/keep-up';
import { recordOf, recordSelf, runningServices, serviceLog, writeServiceRecord } from '../services/records';
import { ensureModelServer, ensurePolicyServer } from '../services/serving';
import { hfModelNames } from '../../shared/names/models';
import { ensureTrainerWorker } from '../services/trainer';
import { ensureWorker } from '../services/worker';
import { codeVersion } from '../../workers/code-version';

const serviceNames = ['server', 'worker', 'trainer', 'policy-server'] as const;
type ServiceName = (typeof serviceNames)[number];
export const upName = 'up';

export const up: Command = {
  summary: "supervise this host's services (dev server, episode worker, trainer, policy server) with no run waiting",
  usage: [
    'Usage: npx agentrl up [--services LIST] [--policy-port N] [--model NAME] [--detach]',
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
    `  --model NAME       also the embedded server of a real model (${hfModelNames.join(', ')}) on port ` +
      `${servingPorts.model}:`,
    '                     what a run on that model needs, a harness run ({"harness": "mini-swe-agent"}) included',
    `  --detach           run in the background (log: <stateDir>/up.log; record in <stateDir>/services/up.PID.json)`,
  ].join('\n'),
  options: {
    services: { type: 'string' },
    'policy-port': { type: 'string' },
    model: { type: 'string' },
    detach: { type: 'boolean' },
  },
  async run(values) {
    const config = loadConfig();
    const wanted = ((values.services as string | undefined) ?? serviceNames.join(','))
      .split(',')
      .map((name): ServiceName => oneOf('--services', name.trim(), serviceNames));
    const port = values['policy-port']
      ? positiveInt('--policy-port', values['policy-port'] as string)
      : servingPorts.trainingPolicy;
    const running = runningServices(config, upName).find((record) => record.pid !== process.pid);
    if (running) {
      console.log(`up is already running (pid ${running.pid}, log ${serviceLog(config, upName)})`);
      return 0;
    }
    const model = values.model === undefined ? null : oneOf('--model', values.model as string, hfModelNames);
    const settings = { services: wanted.join(','), policyPort: String(port), ...(model ? { model } : {}) };
    if (values.detach) {
      const out = openSync(serviceLog(config, upName), 'a');
      const args = [
        join(projectRoot, 'bin', 'agentrl.js'),
        'up',
        '--services',
        wanted.join(','),
        '--policy-port',
        String(port),
        ...(model ? ['--model', model] : []),
      ];
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env: process.env });
      child.unref();
      // recorded at once, as started in the background: a `server stop` right after finds it
      const record = recordOf(child.pid ?? 0, {
        name: upName,
        origin: 'background',
        codeVersion: codeVersion(),
        settings,
      });
      if (record) await writeServiceRecord(config, record);
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
    if (model) {
      await ensureModelServer(config, model, log, servingPorts.model);
      services.push(modelServerService(config, model, servingPorts.model, log));
    }
    const forget = await recordSelf(config, {
      name: upName,
      codeVersion: codeVersion(),
      settings,
    });
    log(`up: supervising ${services.map((service) => service.name).join(', ')} (pid ${process.pid})`);
    const keepUp = keepServicesUp(services, log);
    await new Promise<void>((resolveStop) => {
      process.once('SIGINT', resolveStop);
      process.once('SIGTERM', resolveStop);
    });
    keepUp.stop();
    forget();
    const restarts = Object.entries(keepUp.restarts());
    log(
      'up: stopped; the services keep running' +
        (restarts.length ? ` (restarts: ${restarts.map(([name, count]) => `${name} ${count}`).join(', ')})` : ''),
    );
    return 0;
  },
};

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Dockerode from 'dockerode';
import { Client, Connection } from '@temporalio/client';
import { createPolicyServer, loadWeights } from '../activities/policy-server';
import { reapClosedEpisodes } from '../activities/reaper';
import { validateTask } from '../activities/task-validation';
import { deploymentId } from '../activities/sandbox-lifecycle';
import { parseDurationMs } from '../shared/duration';
import { defaultTaskQueue } from '../shared/task-queues';
import { codeVersion } from '../workers/code-version';
import { loadConfig, projectRoot } from '../workers/config';
import { runEpisodeWorker } from '../workers/episode-worker';
import { devServerStatus, startDevServer, stopDevServer } from './dev-server';
import { runExamples } from './examples';
import { ensurePolicyServer, stopServices } from './services';
import { runTraining } from './train';
import { findTaskFolders, runEvaluation } from './evaluate';
import { connectWithWorker, runEpisode, withConfigDefaults } from './episode-runner';
import type { Command } from './main';
import { clearWorkerRecord, readWorkerRecord, stopWorker, writeWorkerRecord } from './worker-process';

const log = (line: string) => console.error(`agentrl: ${line}`);

export const commands: Record<string, Command> = {
  episode: {
    summary: 'run one episode and print its outcome',
    usage: [
      'Usage: npx agentrl episode --task DIR --policy scripted:FILE [options]',
      '',
      'Runs one rolloutEpisode workflow (starting the dev server and a worker when none runs) and prints its result.',
      '',
      'Options:',
      '  --task DIR            task folder (task.yaml, repo/, hidden/, ...)            default: the bundled example',
      '  --policy SPEC         scripted:FILE.jsonl                                      default: the example\'s fix',
      '  --checker KIND        strict (fresh container, hidden tests) or weak           default: strict',
      '  --max-turns N         turn budget                                              default: the task\'s, else 50',
      '  --max-tokens N        token budget                                             default: the task\'s, else 262144',
      '  --timeout DURATION    wall-clock deadline, e.g. 60s or 10m                     default: 10m',
      '  --workflow-id ID      workflow id                                              default: generated',
      '  --json                print the result as one JSON object',
    ].join('\n'),
    options: {
      task: { type: 'string' }, policy: { type: 'string' }, checker: { type: 'string' }, 'max-turns': { type: 'string' },
      'max-tokens': { type: 'string' }, timeout: { type: 'string' }, 'workflow-id': { type: 'string' }, json: { type: 'boolean' },
    },
    async run(values) {
      const config = loadConfig();
      const budgets: Record<string, number> = {};
      if (values['max-turns'] !== undefined) budgets.maxTurns = positiveInt('--max-turns', values['max-turns'] as string);
      if (values['max-tokens'] !== undefined) budgets.maxTokens = positiveInt('--max-tokens', values['max-tokens'] as string);
      if (values.timeout !== undefined) {
        const ms = parseDurationMs(values.timeout as string);
        if (ms === null || ms <= 0) throw new Error(`--timeout: expected a duration such as 60s or 10m, got ${JSON.stringify(values.timeout)}`);
        budgets.deadlineMs = ms;
      }
      if (values.checker !== undefined && values.checker !== 'strict' && values.checker !== 'weak') throw new Error(`--checker: expected strict or weak, got ${JSON.stringify(values.checker)}`);
      if (values.task !== undefined && !existsSync(resolve(values.task as string))) throw new Error(`--task: ${resolve(values.task as string)} does not exist`);
      const input = withConfigDefaults(config, {
        ...(values.task ? { task: resolve(values.task as string) } : {}),
        ...(values.policy ? { policy: absolutePolicy(values.policy as string) } : {}),
        ...(values.checker ? { checker: values.checker } : {}),
        budgets,
      });
      const { client, close } = await connectWithWorker(config, log);
      try {
        const result = await runEpisode(client, input, values['workflow-id'] as string | undefined, (progress) =>
          log(`${progress.taskId ?? 'episode'}: ${progress.phase}, ${progress.counters.turns} turn(s), ${progress.counters.tokens} tokens`),
        );
        if (values.json) console.log(JSON.stringify(result, null, 2));
        else {
          console.log(`${result.workflowId}: ${result.outcome}, reward ${result.reward}, true success ${result.trueSuccess} (${result.counters.turns} turns)`);
          for (const finding of result.tamper) console.log(`  tamper: ${finding.kind} ${finding.path}: ${finding.detail}`);
          console.log(`  trajectory: ${result.trajectoryUri}`);
        }
        return 0;
      } finally {
        await close();
      }
    },
  },
  examples: {
    summary: 'run the bundled example episodes and print their outcomes as a table (the main job)',
    usage: 'Usage: npx agentrl examples [--json]\n\nRuns every bundled task with its scripted fix, and reward-hacking scripts under both checkers, then prints a table.',
    options: { json: { type: 'boolean' } },
    async run(values) {
      const config = loadConfig();
      const { client, close } = await connectWithWorker(config, log);
      try {
        return await runExamples(client, config, Boolean(values.json), log);
      } finally {
        await close();
      }
    },
  },
  eval: {
    summary: 'measure pass@k and mean true success of a policy on a task set',
    usage: [
      'Usage: npx agentrl eval --policy SPEC --tasks DIR [-k N] [--samples N] [--checker strict|weak] [--json]',
      '',
      'SPEC: scripted:FILE.jsonl, completions:URL (any vLLM-compatible server), or FILE.onnx (a policy version, e.g.',
      '.agentrl/artifacts/runs/RUN/policies/v3/policy.onnx, served by an embedded policy server on port 8101).',
      '',
      'Runs --samples episodes (default k) of the policy on every task folder under DIR and prints, per task and',
      'overall, pass@k of true success (the audit), mean true success and mean reward by the chosen checker.',
      'Environment failures are reported and not counted as samples.',
    ].join('\n'),
    options: { policy: { type: 'string' }, tasks: { type: 'string' }, k: { type: 'string', short: 'k' }, samples: { type: 'string' }, checker: { type: 'string' }, json: { type: 'boolean' } },
    async run(values) {
      if (!values.policy) throw new Error('eval: --policy is required (e.g. scripted:FILE.jsonl)');
      if (!values.tasks || !existsSync(resolve(values.tasks as string))) throw new Error(`eval: --tasks must name an existing folder, got ${JSON.stringify(values.tasks ?? null)}`);
      const k = values.k === undefined ? 1 : positiveInt('-k', values.k as string);
      const samples = values.samples === undefined ? k : positiveInt('--samples', values.samples as string);
      if (samples < k) throw new Error(`eval: --samples (${samples}) must be at least k (${k})`);
      const checker = (values.checker as string | undefined) ?? 'strict';
      if (checker !== 'strict' && checker !== 'weak') throw new Error(`--checker: expected strict or weak, got ${JSON.stringify(checker)}`);
      const config = loadConfig();
      let policy = absolutePolicy(values.policy as string);
      if ((values.policy as string).endsWith('.onnx')) {
        const model = resolve(values.policy as string);
        if (!existsSync(model)) throw new Error(`--policy: ${model} does not exist`);
        const url = await ensurePolicyServer(config, 8101, log);
        log(`serving ${await loadWeights(url, model)} at ${url}`);
        policy = `completions:${url}`;
      }
      const { client, close } = await connectWithWorker(config, log);
      try {
        return await runEvaluation(client, config, { policy, tasks: resolve(values.tasks as string), k, samples, checker, json: Boolean(values.json) }, log);
      } finally {
        await close();
      }
    },
  },
  train: {
    summary: 'run a training run (trainingRun workflow): sample, score, train, publish, repeat',
    usage: [
      'Usage: npx agentrl train [--input FILE.json] [options]',
      '',
      'Starts a trainingRun workflow (and the dev server, an episode worker, the Python trainer worker and the',
      'embedded policy server when they do not run) and follows it: a progress line while episodes run, one table',
      'row per iteration, the report at the end (runs/<run>/report.md under the artifacts folder). Every field of',
      'the run has a default: with no options it is a short run on the bundled suite. Ctrl-C cancels the run',
      'cleanly; --resume continues it from its last completed step.',
      '',
      'Options (each sets the trainingRun input field in brackets; --input gives the whole object as JSON):',
      '  --iterations N            [iterations]              default 2',
      '  --tasks DIR               [tasks]                   default tasks/suite/train',
      '  --eval-tasks DIR          [evalTasks] (\'\' for none) default tasks/suite/heldout',
      '  --tasks-per-iteration N   [tasksPerIteration]       default 4',
      '  --group-size N            [groupSize]               default 4',
      '  --checker strict|weak     [checker]                 default strict',
      '  --observations full|blank [sampling.observations]   default full',
      '  --warm-start N            [warmStart.episodes]      default 16 format demonstrations',
      '  --seed N                  [seed]                    default 0',
      '  --run-id ID               [runId]                   default train-<time>',
      '  --resume ID               continue run ID (its manifest\'s input) from its last completed step',
      '  --policy-port N           port of the embedded policy server   default 8100',
      '  --json                    print the result as one JSON object',
    ].join('\n'),
    options: {
      input: { type: 'string' }, iterations: { type: 'string' }, tasks: { type: 'string' }, 'eval-tasks': { type: 'string' },
      'tasks-per-iteration': { type: 'string' }, 'group-size': { type: 'string' }, checker: { type: 'string' }, observations: { type: 'string' },
      'warm-start': { type: 'string' }, seed: { type: 'string' }, 'run-id': { type: 'string' }, resume: { type: 'string' }, 'policy-port': { type: 'string' }, json: { type: 'boolean' },
    },
    async run(values) {
      const config = loadConfig();
      let input: Record<string, unknown> = {};
      if (values.input) {
        const path = resolve(values.input as string);
        if (!existsSync(path)) throw new Error(`--input: ${path} does not exist`);
        try {
          input = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        } catch (error) {
          throw new Error(`--input: ${path} is not JSON: ${(error as Error).message}`);
        }
      }
      const count = (flag: string, allowZero = false) => (allowZero ? nonNegativeInt : positiveInt)(`--${flag}`, values[flag] as string);
      if (values.iterations !== undefined) input.iterations = count('iterations');
      if (values.tasks !== undefined) input.tasks = resolve(values.tasks as string);
      if (values['eval-tasks'] !== undefined) input.evalTasks = values['eval-tasks'] === '' ? '' : resolve(values['eval-tasks'] as string);
      if (values['tasks-per-iteration'] !== undefined) input.tasksPerIteration = count('tasks-per-iteration');
      if (values['group-size'] !== undefined) input.groupSize = count('group-size');
      if (values.checker !== undefined) input.checker = values.checker;
      if (values.observations !== undefined) input.sampling = { ...(input.sampling as object | undefined), observations: values.observations };
      if (values['warm-start'] !== undefined) input.warmStart = { ...(input.warmStart as object | undefined), episodes: count('warm-start', true) };
      if (values.seed !== undefined) input.seed = count('seed', true);
      if (values['run-id'] !== undefined) input.runId = values['run-id'];
      const policyPort = values['policy-port'] === undefined ? 8100 : positiveInt('--policy-port', values['policy-port'] as string);
      const result = await runTraining(config, input, { ...(values.resume ? { resume: values.resume as string } : {}), policyPort, json: Boolean(values.json), log });
      if (values.json) console.log(JSON.stringify(result));
      else console.log(`run ${result.runId}: ${result.steps} step(s), policy ${result.policyVersion}\n  report: ${result.reportPath}`);
      return 0;
    },
  },
  'task validate': {
    summary: 'prove tasks sound and record their expected test ids',
    usage: [
      'Usage: npx agentrl task validate DIR [DIR...] [--check]',
      '',
      'In real containers: the starting repository must fail, solution.patch must pass visible, hidden and oracle tests,',
      'and wrong-fix.patch (if present) must pass the visible tests only. Writes expected-tests.json.',
      '',
      '  --check    do not write; fail if expected-tests.json is missing or out of date',
      '  --all      validate every task folder under tasks/ (any depth)',
    ].join('\n'),
    options: { check: { type: 'boolean' }, all: { type: 'boolean' } },
    positionals: true,
    async run(values, positionals) {
      const config = loadConfig();
      const dirs = values.all ? findTaskFolders(join(projectRoot, 'tasks')) : positionals;
      if (dirs.length === 0) throw new Error('task validate: name at least one task folder (or --all)');
      const docker = new Dockerode();
      let failed = 0;
      for (const dir of dirs) {
        const report = await validateTask(dir, { docker, sandbox: config.sandbox }, { check: Boolean(values.check) });
        console.log(`${report.ok ? 'ok  ' : 'FAIL'} ${report.taskId} (${report.dir})`);
        for (const check of report.checks) console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
        if (report.expected) console.log(`  expected tests: ${report.expected.visible.length} visible, ${report.expected.hidden.length} hidden, ${report.expected.oracle.length} oracle${report.recorded ? ' (recorded)' : ''}`);
        if (!report.ok) failed++;
      }
      return failed ? 1 : 0;
    },
  },
  server: {
    summary: 'start, stop or show the embedded Temporal dev server: server start|stop|status',
    usage: 'Usage: npx agentrl server start|stop|status\n\nThe dev server keeps its SQLite file in the state folder, serves the Web UI, and registers the search attributes.\n`stop` also stops the background episode worker, trainer worker and policy server.',
    options: {},
    positionals: true,
    async run(_values, positionals) {
      const config = loadConfig();
      const action = positionals[0] ?? 'status';
      if (action === 'start') {
        const status = await startDevServer(config, log);
        console.log(`Temporal dev server at ${status.address}, UI ${status.uiUrl}${status.pid ? ` (pid ${status.pid})` : ''}`);
      } else if (action === 'stop') {
        await stopWorker(config);
        // the background trainer worker and policy server that `train` started
        await stopServices(config, 'trainer');
        await stopServices(config, 'policy-server');
        console.log((await stopDevServer(config)) ? 'stopped' : 'no dev server started by this project is running');
      } else if (action === 'status') {
        const status = devServerStatus(config);
        const worker = readWorkerRecord(config);
        console.log(`server: ${status.running ? `running (pid ${status.pid})` : 'not started by this project'} at ${status.address}, UI ${status.uiUrl}`);
        console.log(`worker: ${worker ? `pid ${worker.pid}, code ${worker.codeVersion}${worker.codeVersion === codeVersion() ? '' : ' (older than this checkout)'}` : 'none'}`);
      } else {
        throw new Error(`server: unknown action ${JSON.stringify(action)}; use start, stop or status`);
      }
      return 0;
    },
  },
  worker: {
    summary: 'run a worker for this host in the foreground',
    usage: 'Usage: npx agentrl worker [--task-queue NAME]\n\nServes the episode workflows, sandbox acquisition and this host\'s own queue until interrupted.',
    options: { 'task-queue': { type: 'string' } },
    async run(values) {
      const config = loadConfig();
      const taskQueue = (values['task-queue'] as string | undefined) ?? defaultTaskQueue;
      const version = codeVersion();
      try {
        await runEpisodeWorker({
          config,
          taskQueue,
          onReady: async ({ hostId }) => {
            await writeWorkerRecord(config, { pid: process.pid, codeVersion: version, address: config.temporal.address, taskQueue, hostId, startedAt: new Date().toISOString() });
            console.log(`worker ${process.pid} ready: queue ${taskQueue}, host ${hostId}, code ${version}`);
          },
        });
      } finally {
        clearWorkerRecord(config, process.pid);
      }
      return 0;
    },
  },
  'policy-server': {
    summary: 'serve an ONNX policy behind vLLM\'s /v1/completions (token ids in, token ids and log-probs out)',
    usage: [
      'Usage: npx agentrl policy-server [--model FILE.onnx] [--port 8000] [--host 127.0.0.1]',
      '',
      'Without --model it answers 503 until the first /v1/load_weights (a training run publishes its policies).',
      '',
      'POST /v1/completions   vLLM request shape; prompt as token ids; returns token_ids and log-probs',
      'POST /v1/load_weights  {"model_path": "..."}: swap in new weights between requests',
      'GET  /v1/models        the loaded policy version and its context length',
    ].join('\n'),
    options: { model: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
    async run(values) {
      const port = values.port === undefined ? 8000 : positiveInt('--port', values.port as string);
      const { server, current } = await createPolicyServer(values.model ? resolve(values.model as string) : undefined);
      await new Promise<void>((resolveListen) => server.listen(port, (values.host as string | undefined) ?? '127.0.0.1', resolveListen));
      console.log(`policy ${current()?.version ?? '(none yet)'} served at http://${(values.host as string | undefined) ?? '127.0.0.1'}:${port}/v1/completions`);
      await new Promise<void>((resolveStop) => {
        const stop = () => server.close(() => resolveStop());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      return 0;
    },
  },
  reap: {
    summary: 'remove the containers and volumes of closed episodes',
    usage: 'Usage: npx agentrl reap\n\nAsks the server which episodes are closed and removes their sandboxes.',
    options: {},
    async run() {
      const config = loadConfig();
      const connection = await Connection.connect({ address: config.temporal.address });
      try {
        const deployment = deploymentId(config.temporal.address, config.temporal.namespace, defaultTaskQueue);
        const result = await reapClosedEpisodes(new Dockerode(), new Client({ connection, namespace: config.temporal.namespace }), deployment);
        console.log(`removed ${result.removedContainers.length} container(s) and ${result.removedVolumes.length} volume(s)`);
      } finally {
        await connection.close();
      }
      return 0;
    },
  },
};

function nonNegativeInt(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`${flag}: expected a non-negative integer, got ${JSON.stringify(value)}`);
  return number;
}

function positiveInt(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag}: expected a positive integer, got ${JSON.stringify(value)}`);
  return number;
}

/** A scripted policy's file relative to the caller's directory, made absolute for the worker. */
function absolutePolicy(spec: string): string {
  const [kind, ...rest] = spec.split(':');
  return kind === 'scripted' && rest.length ? `scripted:${resolve(rest.join(':'))}` : spec;
}

import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { readManifest, readMetrics, runRefOf } from '../activities/training/run-records';
import { configuredStore } from '../activities/store/open-store';
import { defaultTaskQueue } from '../shared/names/task-queues';
import { servingPorts } from '../shared/names/serving-ports';
import { TrainingRunInput } from '../shared/contracts/run/input';
import { hfModelOf } from '../shared/contracts/run/model';
import type { TrainingProgress } from '../shared/contracts/run/progress';
import { type IterationMetrics } from '../shared/contracts/run-metrics';
import { trainingProgressQuery } from '../workflows/messages';
import type { TrainingRunResult } from '../workflows/training-run';
import type { LoadedConfig } from '../workers/config';
import { connectWithWorker, withCause } from './episode-runner';
import { startDevServer } from './services/dev-server';
import { modelServerService, policyServerService, trainerService, type SupervisedService } from './services/keep-up';
import { ensureModelServer, ensurePolicyServer } from './services/serving';
import { ensureTrainerWorker } from './services/trainer';

/** The port of the embedded policy server a training run publishes to, unless told otherwise. */

const fixed = (value: number | null | undefined) =>
  value === null || value === undefined ? '    -' : value.toFixed(3);

/** One row of the per-iteration table. */
export function iterationRow(line: IterationMetrics): string {
  const outcomes = Object.entries(line.train?.outcomes ?? line.eval?.outcomes ?? {})
    .map(([name, count]) => `${name}:${count}`)
    .join(' ');
  return [
    String(line.iteration).padStart(4),
    String(line.step).padStart(4),
    fixed(line.train?.meanReward).padStart(7),
    fixed(line.train?.trueSuccess).padStart(7),
    fixed(line.eval?.meanReward).padStart(7),
    fixed(line.eval?.trueSuccess).padStart(7),
    fixed(line.training?.loss).padStart(7),
    `${line.time.wallS.toFixed(0)}s`.padStart(6),
    `  ${outcomes}`,
  ].join(' ');
}

export const iterationHeader = '  it step  reward  true-s  ev-rew  ev-true    loss   wall  outcomes';

/**
 * Starts (or resumes) a training run and follows it: a progress line while episodes run, a table row
 * per iteration, and the report's path at the end. Ctrl-C cancels the run cleanly (its episodes
 * release their containers); `--resume RUN` continues it from its last completed step.
 */
export async function runTraining(
  config: LoadedConfig,
  input: Record<string, unknown>,
  options: { resume?: string; policyPort: number; modelPort?: number; json: boolean; log: (line: string) => void },
): Promise<TrainingRunResult> {
  let runInput = input;
  if (options.resume) {
    const runRef = runRefOf(configuredStore(config), options.resume);
    const manifest = await readManifest(runRef);
    if (!manifest) throw new Error(`--resume: no run ${options.resume} (no manifest.json in ${runRef})`);
    runInput = manifest.config;
  }
  const parsed = TrainingRunInput.safeParse(runInput);
  if (!parsed.success)
    throw new Error(
      'training input: ' +
        parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; '),
    );
  const runId = parsed.data.runId ?? `train-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}`;
  // the toy model publishes to the embedded policy server, a real model to its own embedded server
  // (unless the input names another server, which is then the caller's to run)
  const hf = hfModelOf(parsed.data);
  const services: SupervisedService[] = [trainerService(config, options.log)];
  if (hf) {
    const port = options.modelPort ?? servingPorts.model;
    const own = `http://127.0.0.1:${port}`;
    if (!runInput.policyServer || parsed.data.policyServer === own) {
      await ensureModelServer(config, hf.name, options.log, port);
      services.push(modelServerService(config, hf.name, port, options.log));
      if (!runInput.policyServer) runInput = { ...runInput, policyServer: own };
    }
  } else {
    const url = await ensurePolicyServer(config, options.policyPort, options.log);
    if (parsed.data.policyServer !== url && !runInput.policyServer) runInput = { ...runInput, policyServer: url };
    services.push(policyServerService(config, options.policyPort, options.log));
  }
  await startDevServer(config, options.log);
  await ensureTrainerWorker(config, options.log);
  // while the run goes on, a service that dies is started again (the trainer and the policy server too)
  const { client, close } = await connectWithWorker(config, options.log, services);
  try {
    const handle = await startOrAttach(client, runId, { ...runInput, runId }, options.log);
    options.log(
      `training run ${runId}: workflow ${handle.workflowId} (UI: http://127.0.0.1:${config.temporal.uiPort}` +
        `/namespaces/${config.temporal.namespace}/workflows/${handle.workflowId})`,
    );
    // the worker's store is this config's: the run's records are where the table's missed rows are read from
    return await followTrainingRun(handle, { ...options, runRef: runRefOf(configuredStore(config), runId) });
  } finally {
    await close();
  }
}

async function startOrAttach(
  client: Client,
  runId: string,
  input: Record<string, unknown>,
  log: (line: string) => void,
): Promise<WorkflowHandle> {
  try {
    return await client.workflow.start('trainingRun', {
      taskQueue: defaultTaskQueue,
      workflowId: runId,
      args: [input],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    log(`run ${runId} is already running: following it`);
    return client.workflow.getHandle(runId);
  }
}

/**
 * Follows a started run to its result: the per-iteration table on stdout (every iteration once, in order) and the
 * progress line on stderr; Ctrl-C cancels the run.
 */
export async function followTrainingRun(
  handle: WorkflowHandle,
  options: { json: boolean; log: (line: string) => void; runRef: string },
): Promise<TrainingRunResult> {
  const tty = process.stderr.isTTY && !options.json;
  let printedIterations = -1;
  let lastLine = '';
  let cancelling = false;
  const onSignal = () => {
    if (cancelling) process.exit(130);
    cancelling = true;
    options.log(
      `cancelling ${handle.workflowId}: episodes release their containers (Ctrl-C again to leave it running); ` +
        `resume with npx agentrl train --resume ${handle.workflowId}`,
    );
    handle.cancel().catch((error: unknown) => options.log(`cancel failed: ${(error as Error).message}`));
  };
  // Ctrl-C, and a plain `kill`, cancel the run cleanly; a second signal leaves it running
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (!options.json) console.log(iterationHeader);
  // rows printed in iteration order, each once: the iterations a poll did not see (a run followed after it
  // started, two that ended between polls, the last of a run that ended within a second of its step) come from the
  // run's metrics
  const printRows = async (latest: IterationMetrics | null) => {
    if (options.json) return;
    if (latest === null || latest.iteration > printedIterations + 1) {
      try {
        for (const line of await readMetrics(options.runRef)) {
          if (line.iteration <= printedIterations || (latest !== null && line.iteration >= latest.iteration)) continue;
          printedIterations = line.iteration;
          if (tty) process.stderr.write('\r\u001b[K');
          console.log(iterationRow(line));
        }
      } catch (error) {
        options.log(`the run's metrics could not be read for the table: ${(error as Error).message}`);
      }
    }
    if (latest !== null && latest.iteration > printedIterations) {
      printedIterations = latest.iteration;
      if (tty) process.stderr.write('\r\u001b[K');
      console.log(iterationRow(latest));
    }
  };
  let polling: Promise<void> = Promise.resolve();
  const pollOnce = async () => {
    try {
      const progress = await handle.query(trainingProgressQuery);
      if (progress.last && progress.last.iteration > printedIterations) await printRows(progress.last);
      const line = progressLine(progress);
      // progress goes to stderr in every mode: stdout holds only the table, or the JSON result
      if (line === lastLine) return;
      lastLine = line;
      if (tty) process.stderr.write(`\r\u001b[K${line}`);
      else options.log(line);
    } catch {
      // a query can fail while the run continues as new; the next poll asks again
    }
  };
  let busy = false;
  const poll = setInterval(() => {
    if (busy) return; // one query at a time
    busy = true;
    polling = pollOnce().finally(() => {
      busy = false;
    });
  }, 1000);
  try {
    // the handle follows the run across continue-as-new
    const result = await withCause(
      handle.result() as Promise<TrainingRunResult>,
      `the training run ${handle.workflowId}`,
    );
    clearInterval(poll);
    await polling;
    await printRows(null);
    if (tty) process.stderr.write('\r\u001b[K');
    return result;
  } finally {
    clearInterval(poll);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `[#####-----] iteration 2/10 sampling 12/32 episodes, step 3` */
export function progressLine(progress: TrainingProgress): string {
  if (progress.pool) {
    // an asynchronous run samples and trains at once: its pool, not a bar per iteration
    const { inFlight, parked, ready, training } = progress.pool;
    return (
      `step ${Math.min(progress.iteration + 1, progress.iterations)}/${progress.iterations}: ${inFlight} ` +
      (`episode(s) in flight (${parked} parked), ${ready} group(s) ready, trainer ` +
        (`${training ? 'training' : 'idle'}; ${progress.episodesDone} training episodes done, policy step ` +
          `${progress.step}`))
    );
  }
  const width = 20;
  const fraction = progress.episodesTotal ? progress.episodesDone / progress.episodesTotal : 0;
  const filled = Math.round(fraction * width);
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] iteration ` +
    (`${Math.min(progress.iteration + 1, progress.iterations)}/${progress.iterations} ${progress.phase} ` +
      `${progress.episodesDone}/${progress.episodesTotal} episodes, step ${progress.step}`)
  );
}

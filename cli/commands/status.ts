import Dockerode from 'dockerode';
import { Client, Connection } from '@temporalio/client';
import type { TrainingProgress } from '../../shared/contracts/run/progress';
import { trainingProgressQuery } from '../../workflows/messages';
import { hostSandboxCounts } from '../../workers/host-capacity';
import { loadConfig, temporalConnection } from '../../workers/config';
import type { Command } from '../command';
import { devServerStatus } from '../services/dev-server';
import { serviceLines } from '../services/listing';
import { iterationHeader, iterationRow } from '../training';

export const status: Command = {
  summary: "this host's services, and a training run's live progress (from any machine that reaches Temporal)",
  usage: [
    'Usage: npx agentrl status [RUN]',
    '',
    "Prints the Temporal server this host talks to and this host's services, one line per process (episode workers",
    'with their host id and store, background or foreground; trainer, policy and model servers, `up`) with their',
    "pids and settings, and the sandboxes on this host's Docker (episodes', graders', and the warm pool's containers",
    'ready to be claimed). With RUN (a training run id, i.e. its workflow id)',
    "also the run's state from the workflow's progress query: phase, iteration, episodes, step, policy version,",
    'the last iteration as a table row, and for an asynchronous run its pool. The query goes through Temporal, so',
    'it works from any machine configured for the same server (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE).',
  ].join('\n'),
  options: {},
  positionals: true,
  async run(_values, positionals) {
    if (positionals.length > 1) throw new Error(`status: one run at a time, got ${positionals.join(' ')}`);
    const config = loadConfig();
    const server = await devServerStatus(config);
    console.log(
      `server: ${server.running ? 'answering' : 'not answering'} at ${server.address} (namespace ` +
        `${config.temporal.namespace})${server.pid ? `, dev server pid ${server.pid}` : ''}`,
    );
    for (const line of serviceLines(config)) console.log(line);
    const sandboxes = await hostSandboxCounts(new Dockerode()).catch(() => null);
    console.log(
      sandboxes
        ? `sandboxes: ${sandboxes.episodes} episode(s), ${sandboxes.graders} grader(s), ` +
            `${sandboxes.poolReady} warm in the pool (this host's Docker)`
        : "sandboxes: this host's Docker does not answer",
    );
    const run = positionals[0];
    if (!run) return 0;
    if (!server.running) throw new Error(`status ${run}: no Temporal server answers at ${server.address}`);
    const connection = await Connection.connect(temporalConnection(config));
    try {
      const handle = new Client({ connection, namespace: config.temporal.namespace }).workflow.getHandle(run);
      const description = await handle.describe().catch((error: Error) => {
        throw new Error(`status ${run}: no such run (${error.message.split('\n')[0]})`);
      });
      console.log(
        `run ${run}: ${description.status.name.toLowerCase()} ` +
          `(${description.type}, started ${description.startTime.toISOString()})`,
      );
      if (description.type !== 'trainingRun') return 0;
      if (description.status.name !== 'RUNNING') {
        if (description.status.name === 'COMPLETED') {
          const result = (await handle.result()) as { steps?: number; policyVersion?: string; reportRef?: string };
          console.log(`  steps ${result.steps}, policy ${result.policyVersion}, report ${result.reportRef}`);
        }
        return 0;
      }
      const progress: TrainingProgress = await handle.query(trainingProgressQuery);
      console.log(
        `  ${progress.phase}: iteration ${progress.iteration + 1}/${progress.iterations}, episodes ` +
          `${progress.episodesDone}/${progress.episodesTotal}, step ${progress.step}, policy ` +
          `${progress.policyVersion ?? '-'}${progress.resampled ? `, resampled ${progress.resampled}` : ''}`,
      );
      if (progress.pool)
        console.log(
          `  pool: ${progress.pool.inFlight} in flight (${progress.pool.parked} parked), ${progress.pool.ready} ` +
            `group(s) ready, trainer ${progress.pool.training ? 'busy' : 'idle'}`,
        );
      if (progress.last) console.log(`${iterationHeader}\n${iterationRow(progress.last)}`);
    } finally {
      await connection.close();
    }
    return 0;
  },
};

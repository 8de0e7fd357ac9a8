// Records the workflow histories that tests/replay.test.ts replays. Run after an intended change of
// workflow logic: node --import tsx scripts/record-histories.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { policy, scriptedPolicy, startTestServer, startWorker, task } from '../tests/helpers/temporal';
import { projectRoot } from '../workers/config';

const cases: Record<string, Record<string, unknown>> = {
  'fix-strict': { task: task('wrong-comparison'), policy: policy('wrong-comparison', 'fix') },
  'malformed-then-turn-limit': { task: task('off-by-one-range'), policy: scriptedPolicy(['not json', { tool: 'bash', command: 'echo hi' }, { tool: 'bash', command: 'echo again' }]), budgets: { maxTurns: 3 } },
};

async function main(): Promise<void> {
  const env = await startTestServer();
  const worker = await startWorker(env);
  try {
    for (const [name, input] of Object.entries(cases)) {
      const handle = await env.client.workflow.start('rolloutEpisode', { taskQueue: worker.taskQueue, workflowId: `history-${name}`, args: [input] });
      await handle.result();
      const { History } = temporal.api.history.v1;
      // protobuf's own JSON form (64-bit ints and bytes as strings); History.fromObject reads it back
      const json = History.toObject(History.fromObject(await handle.fetchHistory()), { longs: String, enums: String, bytes: String });
      writeFileSync(join(projectRoot, 'tests', 'histories', `${name}.json`), `${JSON.stringify(json, null, 1)}\n`);
      console.log(`recorded ${name}`);
    }
  } finally {
    await worker.stop();
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

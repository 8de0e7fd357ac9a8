// The same short training run on one sandbox host and on two (`npm run bench:hosts`): the second host is a
// second Docker daemon on this machine (scripts/docker-host.sh) with an episode worker of its own, the store
// is the local S3 server, and `npx agentrl train` drives the run. Both layouts share this machine's two
// cores, so read it as correctness under scale (every episode accounted for, spread over the hosts, no
// environment failure), not as a speed-up. Not a test: it prints a table (and `--json` lines).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { s3ClientFromEnvironment } from '../activities/store/s3-store';
import { readMetrics } from '../activities/training/run-records';
import { projectRoot } from '../workers/config';

const { values } = parseArgs({
  options: { json: { type: 'boolean' }, iterations: { type: 'string' }, tasks: { type: 'string' } },
});
const cli = join(projectRoot, 'bin', 'agentrl.js');
const hostScript = join(projectRoot, 'scripts', 'docker-host.sh');
const perHost = 2;
const bucket = `agentrl-bench-hosts-${randomBytes(3).toString('hex')}`;
Object.assign(process.env, {
  AWS_ENDPOINT_URL: process.env.AWS_ENDPOINT_URL ?? `http://127.0.0.1:${process.env.AGENTRL_S3_PORT ?? '9000'}`,
  AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'agentrl-bench',
  AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'agentrl-bench',
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
});
const run = {
  iterations: Number(values.iterations ?? 2),
  tasksPerIteration: Number(values.tasks ?? 4),
  groupSize: 2,
  concurrency: 4,
  evaluation: { tasks: '' },
  warmStart: { episodes: 0, epochs: 1 },
  seed: 11,
};

interface Row {
  hosts: number;
  wallS: number;
  episodes: number;
  episodesPerS: number;
  byHost: Record<string, number>;
  resampled: number;
  steps: number;
  completed: boolean;
}

async function layout(hosts: 1 | 2, port: number): Promise<Row> {
  const state = mkdtempSync(join(tmpdir(), `agentrl-bench-hosts-${hosts}-`));
  const configPath = join(state, 'temporal.yaml');
  writeFileSync(
    configPath,
    `temporal:\n  address: 127.0.0.1:${port}\n  uiPort: ${port + 1000}\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\n`,
  );
  const runId = `bench-hosts-${hosts}-${randomBytes(3).toString('hex')}`;
  // each host runs at most `perHost` sandboxes: one host holds the run's concurrency back, two do not
  const env = {
    ...process.env,
    AGENTRL_CONFIG: configPath,
    AGENTRL_STORE: `s3://${bucket}/bench`,
    AGENTRL_MAX_SANDBOXES: String(perHost),
  };
  const input = join(state, 'run.json');
  writeFileSync(input, JSON.stringify({ ...run, runId }));
  spawnSync(process.execPath, [cli, 'server', 'start'], { env, stdio: 'ignore' });
  let second: ChildProcess | null = null;
  if (hosts === 2)
    second = spawn(process.execPath, [cli, 'worker'], {
      env: {
        ...env,
        DOCKER_HOST: `unix:///run/agentrl-host2.sock`,
        AGENTRL_STATE_DIR: join(state, 'hosts', 'agentrl-host2'),
      },
      stdio: 'ignore',
    });
  const started = Date.now();
  const train = spawnSync(
    process.execPath,
    [cli, 'train', '--json', '--input', input, '--policy-port', String(port + 7)],
    {
      env,
      encoding: 'utf8',
      timeout: 3_600_000,
    },
  );
  const wallS = (Date.now() - started) / 1000;
  second?.kill('SIGTERM');
  spawnSync(process.execPath, [cli, 'server', 'stop'], { env, stdio: 'ignore' });
  let steps = 0;
  try {
    steps = (JSON.parse(train.stdout.trim().split('\n').at(-1) ?? '') as { steps: number }).steps;
  } catch {
    process.stderr.write(
      `bench: the ${hosts}-host run did not complete: ${train.stderr.split('\n').slice(-4).join(' / ')}\n`,
    );
  }
  const metrics = steps ? await readMetrics(`s3://${bucket}/bench/runs/${runId}`) : [];
  const byHost: Record<string, number> = {};
  let episodes = 0;
  let resampled = 0;
  for (const line of metrics) {
    episodes += line.train?.episodes ?? 0;
    resampled += line.train?.resampled?.episodes ?? 0;
    for (const [host, count] of Object.entries(line.train?.hosts ?? {})) byHost[host] = (byHost[host] ?? 0) + count;
  }
  return {
    hosts,
    wallS,
    episodes,
    episodesPerS: episodes / wallS,
    byHost,
    resampled,
    steps,
    completed: train.status === 0 && steps === run.iterations,
  };
}

async function main(): Promise<void> {
  execFileSync('bash', [hostScript, 'start'], { stdio: 'ignore' });
  await s3ClientFromEnvironment().send(new CreateBucketCommand({ Bucket: bucket }));
  const rows = [await layout(1, 17600), await layout(2, 17620)];
  if (values.json) for (const row of rows) console.log(JSON.stringify(row));
  console.log(
    `${run.iterations} iterations x ${run.tasksPerIteration} tasks x ${run.groupSize} episodes, concurrency ` +
      `${run.concurrency}, at most ${perHost} sandboxes per host, S3 store\n`,
  );
  console.log('| hosts | wall s | episodes | episodes/s | episodes per host | resampled | steps | completed |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.hosts} | ${row.wallS.toFixed(0)} | ${row.episodes} | ${row.episodesPerS.toFixed(3)} | ` +
        `${Object.values(row.byHost).join(' / ') || '-'} | ${row.resampled} | ${row.steps} | ${row.completed ? 'yes' : 'no'} |`,
    );
  console.log(
    `\nratio two hosts / one host (episodes/s): ${(rows[1]!.episodesPerS / rows[0]!.episodesPerS).toFixed(2)}x`,
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

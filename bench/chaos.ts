// The chaos script (`npm run chaos`): short training runs through `npx agentrl train`, one per fault,
// each fault injected once at a random moment of the run, and the figures that say whether the run
// lost nothing. Not a test: it prints a table (and `--json` lines) for the README.
//
// Faults: the episode worker (kill -9), the Temporal dev server (kill -9; the CLI's supervisor starts
// it again), the trainer worker in the middle of a step (kill -9), the policy server (kill -9), the
// Docker daemon (stopped and started again: the containers die, their episodes become sandbox_crash
// and are sampled again), a whole second sandbox host (its daemon, scripts/docker-host.sh, stopped
// while it holds an episode and started again later; its worker stays up), and the artifact store's
// disk (a small tmpfs filled until writes fail, then freed). Needs root (dockerd, mount).
// The harness rows (bench/chaos-harness.ts) are single episodes of an agent harness instead: its process killed, its
// worker killed, and a relaunch that asks something else than the record holds.
// `--only NAME[,NAME]` picks faults; `--seed N`.
import { localPathOf } from '../activities/store/local-copy';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { episodeKey } from '../activities/store/episode-records';
import { projectRoot } from '../workers/config';
import { serviceRecord } from '../tests/helpers/worker-process';
import { harnessChaos, harnessFaults, harnessRowFailed, printHarnessTable, type HarnessRow } from './chaos-harness';

const { values } = parseArgs({
  options: { only: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } },
});
let seed = Number(values.seed ?? Date.now() % 100_000);
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const cli = join(projectRoot, 'bin', 'agentrl.js');
const run = {
  iterations: 1,
  tasksPerIteration: 2,
  groupSize: 2,
  evaluation: { tasks: '' },
  concurrency: 2,
  warmStart: { episodes: 4, epochs: 2 },
};
const expectedSteps = 2; // the warm start's and the iteration's
const expectedEpisodes = run.tasksPerIteration * run.groupSize;

interface Context {
  state: string;
  env: NodeJS.ProcessEnv;
  /** what the CLI printed so far (its log lines) */
  stderr: () => string;
}

interface Fault {
  name: string;
  /** whether it strikes now, given what the CLI printed */
  when: (k: number) => (printed: string) => boolean;
  inject(context: Context): Promise<void>;
  /** true once the service is back (recovery time is measured until then) */
  recovered(context: Context, mark: number): Promise<boolean>;
  setUp?(context: Context): void;
  tearDown?(context: Context): void;
}

const pidOf = (context: Context, name: string): number => serviceRecord(context.state, name).pid;
const backLine = (name: string) => (context: Context, mark: number) =>
  Promise.resolve(context.stderr().slice(mark).includes(`${name} is back`));
/** Once at least k of the iteration's episodes are done (a progress line may skip a count). */
const sampling = (k: number) => (printed: string) =>
  [...printed.matchAll(new RegExp(`iteration 1/1 sampling (\\d+)/${expectedEpisodes} episodes`, 'g'))].some(
    (match) => Number(match[1]) >= k,
  );
const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
const dockerAnswers = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
// the second sandbox host (scripts/docker-host.sh) and its worker, for the `host` fault
const hostScript = join(projectRoot, 'scripts', 'docker-host.sh');
const secondHost = { DOCKER_HOST: 'unix:///run/agentrl-host2.sock' };
let secondWorker: ReturnType<typeof spawn> | null = null;
const episodesOn = (env: NodeJS.ProcessEnv) =>
  (
    spawnSync('docker', ['ps', '-q', '--filter', 'label=agentrl.role=agent'], { env, encoding: 'utf8' }).stdout ?? ''
  ).trim().length > 0;

const faults: Fault[] = [
  {
    name: 'worker',
    when: sampling,
    inject: async (c) => void process.kill(pidOf(c, 'worker'), 'SIGKILL'),
    recovered: backLine('worker'),
  },
  {
    name: 'temporal',
    when: sampling,
    inject: async (c) => void process.kill(pidOf(c, 'temporal'), 'SIGKILL'),
    recovered: backLine('temporal'),
  },
  {
    name: 'trainer',
    when: () => (printed) => /iteration 1\/1 training/.test(printed),
    inject: async (c) => {
      await sleep(200 + random() * 800);
      process.kill(pidOf(c, 'trainer'), 'SIGKILL');
    },
    recovered: backLine('trainer'),
  },
  {
    name: 'policy-server',
    when: sampling,
    inject: async (c) => void process.kill(pidOf(c, 'policy-server-18170'), 'SIGKILL'),
    recovered: backLine('policy-server-18170'),
  },
  {
    name: 'docker',
    when: sampling,
    inject: async () => {
      // the first daemon only (a second host's daemon runs beside it)
      const pid = Number(readFileSync('/var/run/docker.pid', 'utf8'));
      process.kill(pid, 'SIGTERM');
      // it stops its containers first; a new daemon cannot start until it is gone
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 1200 && alive(); i++) await sleep(100);
      const log = openSync(join(projectRoot, '.agentrl', 'dockerd.log'), 'a');
      spawn('dockerd', [], { detached: true, stdio: ['ignore', log, log] }).unref();
    },
    recovered: async () => dockerAnswers(),
  },
  {
    name: 'host',
    setUp: (c) => {
      // two hosts of one sandbox each, so the iteration's episodes spread over both; the server first, for the
      // second host's worker to connect to (the CLI's run finds it running)
      Object.assign(c.env, { AGENTRL_MAX_SANDBOXES: '1' });
      execFileSync('bash', [hostScript, 'start'], { stdio: 'ignore' });
      spawnSync(process.execPath, [cli, 'server', 'start'], { env: c.env, stdio: 'ignore' });
      secondWorker = spawn(process.execPath, [cli, 'worker'], {
        env: {
          ...c.env,
          ...secondHost,
          AGENTRL_STATE_DIR: join(c.state, 'hosts', 'agentrl-host2'),
          AGENTRL_ARTIFACTS_DIR: join(c.state, 'artifacts'),
        },
        stdio: 'ignore',
      });
    },
    when: () => () => episodesOn({ ...process.env, ...secondHost }),
    inject: async () => {
      // the host goes away with its episodes (its worker stays up), and comes back a while later
      execFileSync('bash', [hostScript, 'stop'], { stdio: 'ignore' });
      await sleep(5_000);
      execFileSync('bash', [hostScript, 'start'], { stdio: 'ignore' });
    },
    recovered: async () => spawnSync('bash', [hostScript, 'status'], { stdio: 'ignore' }).status === 0,
    tearDown: (c) => {
      spawnSync(process.execPath, [cli, 'reap'], { env: { ...c.env, ...secondHost }, stdio: 'ignore' });
      secondWorker?.kill('SIGTERM');
      secondWorker = null;
    },
  },
  {
    name: 'disk',
    when: sampling,
    setUp: (c) => {
      const artifacts = join(c.state, 'artifacts');
      mkdirSync(artifacts, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=192m', 'tmpfs', artifacts]);
    },
    inject: async (c) => {
      // fill the store's file system until a write fails, hold it full, then free it
      const fill = join(c.state, 'artifacts', 'chaos-fill');
      const handle = openSync(fill, 'w');
      const chunk = Buffer.alloc(1024 * 1024);
      try {
        for (;;) writeSync(handle, chunk);
      } catch {
        // ENOSPC: full
      } finally {
        closeSync(handle);
      }
      await sleep(5000);
      rmSync(fill, { force: true });
    },
    recovered: async () => true,
    tearDown: (c) => void spawnSync('umount', ['-l', join(c.state, 'artifacts')]),
  },
];

interface Row {
  fault: string;
  recoverS: number | null;
  lost: number;
  twice: number;
  trainedOnFailed: number;
  stepsTwice: number;
  containersLeft: number;
  volumesLeft: number;
  completed: boolean;
  sameSteps: boolean;
  note: string;
}

async function chaos(fault: Fault, port: number): Promise<Row> {
  const state = mkdtempSync(join(tmpdir(), `agentrl-chaos-${fault.name}-`));
  const configPath = join(state, 'temporal.yaml');
  writeFileSync(
    configPath,
    `temporal:\n  address: 127.0.0.1:${port}\n  uiPort: ${port + 1000}\nstateDir: ${state}\nartifactsDir: ` +
      `${state}/artifacts\nworker:\n  reapIntervalMs: 5000\n`,
  );
  const env = { ...process.env, AGENTRL_CONFIG: configPath };
  const input = join(state, 'run.json');
  writeFileSync(input, JSON.stringify(run));
  let stderr = '';
  const context: Context = { state, env, stderr: () => stderr };
  fault.setUp?.(context);
  const k = 1 + Math.floor(random() * (expectedEpisodes - 1));
  const trigger = fault.when(k);
  let injectedAt: number | null = null;
  let recoveredAt: number | null = null;
  let note = '';
  const child = spawn(process.execPath, [cli, 'train', '--json', '--policy-port', '18170', '--input', input], { env });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (injectedAt === null && trigger(stderr)) {
      injectedAt = Date.now();
      const mark = stderr.length;
      fault
        .inject(context)
        .then(async () => {
          for (let i = 0; i < 1200 && recoveredAt === null; i++) {
            if (await fault.recovered(context, mark)) recoveredAt = Date.now();
            else await sleep(250);
          }
        })
        .catch((error: unknown) => (note = `injection failed: ${(error as Error).message}`));
    }
  });
  const code = await new Promise<number | null>((resolveExit) => child.on('exit', resolveExit));
  let result: { steps: number; runRef: string } | null = null;
  try {
    result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { steps: number; runRef: string };
  } catch {
    note ||= `the run did not complete (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' / ')}`;
  }
  if (injectedAt === null) note ||= 'the fault never struck';
  const figures = result
    ? runFigures(localPathOf(result.runRef)!)
    : { lost: expectedEpisodes, twice: 0, trainedOnFailed: 0, stepsTwice: 0 };
  spawnSync(process.execPath, [cli, 'reap'], { env, stdio: 'ignore' });
  fault.tearDown?.(context);
  const left = leftovers(result?.runRef.split('/').at(-1) ?? '');
  spawnSync(process.execPath, [cli, 'server', 'stop'], { env, stdio: 'ignore' });
  return {
    fault: fault.name,
    recoverS: injectedAt !== null && recoveredAt !== null ? (recoveredAt - injectedAt) / 1000 : null,
    ...figures,
    ...left,
    completed: code === 0 && result !== null,
    sameSteps: result?.steps === expectedSteps,
    note,
  };
}

/** Lost, doubled and wrongly trained episodes, and steps applied twice, from the run's own records. */
function runFigures(runDir: string): Pick<Row, 'lost' | 'twice' | 'trainedOnFailed' | 'stepsTwice'> {
  const metrics = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { iteration: number; step: number; train?: { episodes: number } });
  const train = metrics.filter((line) => line.train && line.iteration >= 0);
  const episodes = train.reduce((sum, line) => sum + (line.train?.episodes ?? 0), 0);
  const batchIds = readdirSync(join(runDir, 'batches'))
    .filter((name) => name.startsWith('iteration-'))
    .flatMap((name) => batchEpisodeIds(join(runDir, 'batches', name)));
  const artifacts = join(runDir, '..', '..');
  // an episode in a batch must have been scored: environment failures have no reward
  const trainedOnFailed = batchIds.filter((id) => {
    const scoring = join(artifacts, 'episodes', episodeKey(id), 'scoring.json');
    return (
      !existsSync(scoring) ||
      typeof (JSON.parse(readFileSync(scoring, 'utf8')) as { reward?: unknown }).reward !== 'number'
    );
  }).length;
  const steps = metrics.map((line) => line.step);
  return {
    lost: Math.max(0, expectedEpisodes * run.iterations - episodes),
    twice: Math.max(0, episodes - expectedEpisodes * run.iterations) + (batchIds.length - new Set(batchIds).size),
    trainedOnFailed,
    stepsTwice: steps.length - new Set(steps).size,
  };
}

/** The episode ids a batch file (safetensors) names in its metadata. */
function batchEpisodeIds(path: string): string[] {
  const data = readFileSync(path);
  const length = Number(data.readBigUInt64LE(0));
  const header = JSON.parse(data.subarray(8, 8 + length).toString('utf8')) as {
    __metadata__?: { episodeIds?: string };
  };
  return JSON.parse(header.__metadata__?.episodeIds ?? '[]') as string[];
}

/** Containers and volumes of the run still present after reaping, on the first host and the second. */
function leftovers(runId: string): Pick<Row, 'containersLeft' | 'volumesLeft'> {
  const labelled = (kind: 'ps' | 'volume') => {
    const args =
      kind === 'ps'
        ? ['ps', '-a', '--format', '{{.Label "agentrl.workflow-id"}}']
        : ['volume', 'ls', '--format', '{{.Label "agentrl.workflow-id"}}'];
    return [process.env, { ...process.env, ...secondHost }]
      .map((env) => spawnSync('docker', args, { env, encoding: 'utf8' }).stdout ?? '')
      .flatMap((out) => out.split('\n'))
      .filter((id) => runId && id.startsWith(runId)).length;
  };
  return { containersLeft: labelled('ps'), volumesLeft: labelled('volume') };
}

async function main(): Promise<void> {
  const only = values.only ? new Set(values.only.split(',')) : null;
  const known = [...faults, ...harnessFaults].map((fault) => fault.name);
  const unknown = [...(only ?? [])].filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`--only: unknown fault ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const chosen = faults.filter((fault) => !only || only.has(fault.name));
  const chosenHarness = harnessFaults.filter((fault) => !only || only.has(fault.name));
  const rows: Row[] = [];
  for (const [index, fault] of chosen.entries()) {
    process.stderr.write(`chaos: ${fault.name}…\n`);
    const row = await chaos(fault, 17270 + index * 2);
    rows.push(row);
    if (values.json) console.log(JSON.stringify(row));
  }
  const harnessRows: HarnessRow[] = [];
  for (const [index, fault] of chosenHarness.entries()) {
    process.stderr.write(`chaos: ${fault.name}…\n`);
    const row = await harnessChaos(fault, 17270 + (chosen.length + index) * 2);
    harnessRows.push(row);
    if (values.json) console.log(JSON.stringify(row));
  }
  if (rows.length) printTable(rows);
  if (rows.length && harnessRows.length) console.log('');
  if (harnessRows.length) printHarnessTable(harnessRows);
  const bad = rows.filter(
    (row) =>
      row.lost ||
      row.twice ||
      row.trainedOnFailed ||
      row.stepsTwice ||
      row.containersLeft ||
      row.volumesLeft ||
      !row.completed ||
      !row.sameSteps ||
      row.recoverS === null,
  );
  process.exitCode = bad.length || harnessRows.some(harnessRowFailed) ? 1 : 0;
}

/** The training rows' table. */
function printTable(rows: readonly Row[]): void {
  const cells = (row: Row) => [
    row.fault,
    row.recoverS === null ? '-' : row.recoverS.toFixed(1),
    row.lost,
    row.twice,
    row.trainedOnFailed,
    row.stepsTwice,
    row.containersLeft,
    row.volumesLeft,
    row.completed && row.sameSteps ? 'yes' : 'no',
    row.note,
  ];
  console.log(
    '| fault | recover s | episodes lost | counted twice | trained on although failed | steps twice | ' +
      'containers left | volumes left | completed, same steps | note |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${cells(row).join(' | ')} |`);
}

main().catch((error: unknown) => {
  console.error(`chaos: ${(error as Error).message}`);
  process.exitCode = 2;
});

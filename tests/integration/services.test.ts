// The CLI's services as real processes on a real Temporal dev server: a background worker and a
// foreground one each keep a record, and `server stop` leaves no worker process of the checkout in the
// process table; a command that needs the S3 store (the local moto emulator) never runs beside a worker
// on the folder store: a background one is replaced and every artifact of the episode lands in the
// bucket, a foreground one makes the command refuse, naming both stores.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3ClientFromEnvironment } from '../../activities/store/s3-store';
import { projectRoot } from '../../workers/config';
import { scriptedEpisodeArgs, waitFor } from '../helpers/temporal';
import { runCli, stopChild } from '../helpers/worker-process';

const state = mkdtempSync(join(tmpdir(), 'agentrl-services-'));
const configPath = join(state, 'temporal.yaml');
// its own ports and state folder, so it never meets a dev server or worker of a developer's
writeFileSync(
  configPath,
  `temporal:\n  address: 127.0.0.1:17350\n  uiPort: 18350\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\n`,
);
const bucket = `agentrl-services-${randomBytes(4).toString('hex')}`;
const s3Store = `s3://${bucket}/runs`;
const folderStore = `file://${state}/artifacts`;
const cli = join(projectRoot, 'bin', 'agentrl.js');
// the emulator's endpoint and credentials are set for every command: only AGENTRL_STORE picks the store
const env: NodeJS.ProcessEnv = {
  ...process.env,
  AGENTRL_CONFIG: configPath,
  AWS_ENDPOINT_URL: `http://127.0.0.1:${process.env.AGENTRL_S3_PORT ?? '9000'}`,
  AWS_ACCESS_KEY_ID: 'agentrl-test',
  AWS_SECRET_ACCESS_KEY: 'agentrl-test',
  AWS_REGION: 'us-east-1',
};
delete env.AGENTRL_STORE;
const onS3 = { AGENTRL_STORE: s3Store };

const agentrl = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra }, 300_000);

/** The smallest real episode: a scripted fix of a bundled task, five turns. */
const episode = (extra: NodeJS.ProcessEnv = {}) => agentrl([...scriptedEpisodeArgs], extra);

/** `npx agentrl worker` as a user runs it in a terminal: in the foreground, on the folder store. */
async function foregroundWorker(extra: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, 'worker'], {
    env: { ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.resume();
  await waitFor('the foreground worker', () => Promise.resolve(output.includes(`worker ${child.pid} ready`)), 120_000);
  return child;
}

/**
 * The worker processes of this checkout and configuration, from the process table (not the records):
 * `bin/agentrl.js worker` with this test's AGENTRL_CONFIG in its environment.
 */
function workerProcesses(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        return (
          command.includes(cli) && command.includes('worker') && environment.includes(`AGENTRL_CONFIG=${configPath}`)
        );
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** Every file under a folder, relative to it. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => relative(dir, join(dir, name)))
    : [];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const s3 = s3ClientFromEnvironment({
  endpoint: env.AWS_ENDPOINT_URL!,
  forcePathStyle: true,
  region: 'us-east-1',
  credentials: { accessKeyId: 'agentrl-test', secretAccessKey: 'agentrl-test' },
});
const users: ChildProcess[] = [];
before(async () => {
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterEach(async () => {
  await agentrl(['server', 'stop']);
  await Promise.all(users.splice(0).map(stopChild));
});
after(async () => {
  await agentrl(['server', 'stop']);
});

test('a background worker, then a foreground one: both recorded, both listed, and `server stop` leaves no worker process', async () => {
  const first = await episode();
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stderr, /starting a worker \(pid (\d+)/);
  const background = Number(/starting a worker \(pid (\d+)/.exec(first.stderr)![1]);
  const foreground = await foregroundWorker();
  users.push(foreground);

  const status = await agentrl(['status']);
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`worker: pid ${background}, host \\w+, background, `));
  assert.match(status.stdout, new RegExp(`worker: pid ${foreground.pid}, host \\w+, foreground, `));
  assert.deepEqual(workerProcesses().sort(), [background, foreground.pid!].sort());

  const exited = new Promise((resolveExit) => foreground.once('exit', resolveExit));
  const stop = await agentrl(['server', 'stop']);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stderr, new RegExp(`stopped worker ${background} \\(background\\)`));
  assert.match(stop.stderr, new RegExp(`stopped worker ${foreground.pid} \\(foreground\\)`));
  await exited;
  assert.deepEqual(workerProcesses(), [], 'no worker process of this checkout is left');
  assert.match((await agentrl(['status'])).stdout, /worker: none on this host/);
});

test('an episode on the S3 store replaces a background worker on the folder store, and refuses beside a foreground one', async () => {
  const onFolder = await episode();
  assert.equal(onFolder.status, 0, onFolder.stderr);
  assert.match(JSON.parse(onFolder.stdout).trajectoryUri, new RegExp(`^${escape(folderStore)}/`));
  const replaced = Number(/starting a worker \(pid (\d+)/.exec(onFolder.stderr)![1]);
  const localBefore = filesUnder(join(state, 'artifacts'));

  const run = await episode(onS3);
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(
      `replacing worker ${replaced}: its store is ${escape(folderStore)}, this command's is ${escape(s3Store)}`,
    ),
  );
  const result = JSON.parse(run.stdout);
  assert.equal(result.reward, 1);
  assert.match(result.trajectoryUri, new RegExp(`^${escape(s3Store)}/episodes/`));
  assert.match(result.scoringUri, new RegExp(`^${escape(s3Store)}/episodes/`));
  const keys = (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'runs/' }))).Contents!.map(
    (object) => object.Key!,
  );
  const episodeKey = result.trajectoryUri.slice(`${s3Store}/`.length, -'/trajectory.jsonl'.length);
  for (const name of ['trajectory.jsonl', 'scoring.json'])
    assert.ok(keys.includes(`runs/${episodeKey}/${name}`), `${name} is in the bucket`);
  assert.ok(
    keys.some((key) => key.startsWith('runs/blobs/')),
    'and the task snapshot',
  );
  assert.deepEqual(filesUnder(join(state, 'artifacts')), localBefore, 'nothing of it in the folder store');
  assert.equal(workerProcesses().length, 1, 'the folder-store worker is gone');

  // a worker the user runs on the folder store is never stopped for a command: the command refuses
  const user = await foregroundWorker();
  users.push(user);
  const refused = await episode(onS3);
  assert.equal(refused.status, 1, refused.stdout);
  assert.match(refused.stderr, new RegExp(`worker ${user.pid} was started in the foreground`));
  assert.match(refused.stderr, new RegExp(`its store is ${escape(folderStore)}, this command's is ${escape(s3Store)}`));
  assert.equal(user.exitCode, null, 'the foreground worker runs on');
  assert.equal(refused.stdout, '', 'no episode ran');
});

test('a worker of another state folder on the same queue and another store makes a command refuse', async () => {
  // as a second checkout on the same dev server would run one: its own state folder, its own folder store
  const started = await agentrl(['server', 'start']);
  assert.equal(started.status, 0, started.stderr);
  const otherState = mkdtempSync(join(tmpdir(), 'agentrl-services-other-'));
  const other = await foregroundWorker({ AGENTRL_STATE_DIR: otherState });
  users.push(other);
  const refused = await episode(onS3);
  assert.equal(refused.status, 1, refused.stdout);
  assert.match(refused.stderr, /a worker of another checkout, state folder or machine polls agentrl-episodes/);
  assert.match(
    refused.stderr,
    new RegExp(
      `agentrl-${other.pid}@\\S+ host \\w+ store \\w+ \\(${escape(process.execPath)} ${escape(cli)} worker\\)`,
    ),
  );
  assert.match(refused.stderr, new RegExp(`write to another store than this command's \\(${escape(s3Store)}\\)`));
  assert.equal(other.exitCode, null, 'it is not ours to stop');
  assert.deepEqual(workerProcesses(), [other.pid], 'and no worker was started beside it');
});

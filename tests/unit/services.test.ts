// The background services' one mechanism (cli/services/), on small real processes: start, find,
// replace on other code or settings, one record per process (a foreground process beside a background
// one), a pid given to another process, records of an older layout, the lock.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { takeLock } from '../../cli/services/lock';
import { isAlive, processIdentity } from '../../cli/services/processes';
import { readServiceRecords, recordOf, runningServices, writeServiceRecord } from '../../cli/services/records';
import { ensureAnsweringService, ensureService, stopServices, type ServiceSpec } from '../../cli/services/supervisor';
import { storeLocation } from '../../activities/store/open-store';
import { loadConfig } from '../../workers/config';
import { parseWorkerIdentity, storeFingerprint, workerIdentity } from '../../workers/worker-identity';

const config = loadConfig({ AGENTRL_STATE_DIR: mkdtempSync(join(tmpdir(), 'agentrl-services-')) });
const lines: string[] = [];
const log = (line: string) => lines.push(line);
const idle = 'console.log(`ready ${process.pid}`); setInterval(() => {}, 1000)';
const children: ChildProcess[] = [];
after(async () => {
  await stopServices(config);
  for (const child of children) child.kill('SIGKILL');
});

/** A process that prints `ready <pid>` and then idles. */
const toy = (fields: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name: 'toy',
  codeVersion: 'c1',
  settings: { mode: 's1' },
  command: process.execPath,
  args: ['-e', idle],
  ready: (text, pid) => Promise.resolve(text.includes(`ready ${pid}`)),
  startTimeoutMs: 20_000,
  ...fields,
});

/** An idle process this test starts itself, as a user starts one in the foreground. */
function bystander(...extraArgs: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...extraArgs], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/** Records `child` as a foreground service of `name` with `settings`. */
async function recordForeground(child: ChildProcess, name: string, settings: Record<string, string>) {
  const record = recordOf(child.pid!, { name, origin: 'foreground', codeVersion: 'c1', settings });
  assert.ok(record, 'the process runs');
  return writeServiceRecord(config, record);
}

describe('background services', () => {
  test('started once, found again, replaced (and stopped) when its code or settings differ', async () => {
    const first = await ensureService(config, toy(), log);
    assert.ok(isAlive(first.pid));
    assert.deepEqual([first.codeVersion, first.settings, first.origin], ['c1', { mode: 's1' }, 'background']);
    assert.equal((await ensureService(config, toy(), log)).pid, first.pid, 'the same code and settings: reused');
    const newer = await ensureService(config, toy({ codeVersion: 'c2' }), log);
    assert.notEqual(newer.pid, first.pid);
    assert.ok(!isAlive(first.pid), 'the older one is stopped, not left running');
    assert.ok(lines.includes(`replacing toy ${first.pid}: it runs code c1, this checkout is c2`), lines.join('\n'));
    const resettled = await ensureService(config, toy({ codeVersion: 'c2', settings: { mode: 's2' } }), log);
    assert.notEqual(resettled.pid, newer.pid);
    assert.ok(lines.includes(`replacing toy ${newer.pid}: its mode is s1, this command's is s2`), lines.join('\n'));
    assert.deepEqual(
      runningServices(config).map((record) => [record.name, record.pid]),
      [['toy', resettled.pid]],
    );
    assert.deepEqual(
      (await stopServices(config)).map((record) => record.pid),
      [resettled.pid],
    );
    assert.ok(!isAlive(resettled.pid));
    assert.deepEqual(readServiceRecords(config), []);
  });

  test("a log holding multi-byte text from earlier runs does not hide the new process's ready line", async () => {
    // progress bars and non-ASCII output of a previous run: byte and character offsets differ
    const wide = `console.log("██████ 100% ✓ été " + "█".repeat(300)); ${idle}`;
    const earlier = await ensureService(config, toy({ name: 'toy-wide', args: ['-e', wide] }), log);
    const again = await ensureService(config, toy({ name: 'toy-wide', codeVersion: 'c2' }), log);
    assert.notEqual(again.pid, earlier.pid);
    assert.ok(isAlive(again.pid));
    await stopServices(config);
  });

  test('a process that never becomes ready is stopped and its log shown', async () => {
    await assert.rejects(
      ensureService(
        config,
        toy({ name: 'toy-silent', ready: () => Promise.resolve(false), startTimeoutMs: 1_500 }),
        log,
      ),
      /toy-silent did not start; see .*toy-silent\.log/,
    );
    assert.deepEqual(readServiceRecords(config, 'toy-silent'), []);
  });

  test('a service that answers is used as it is; when nothing answers, a process in its records is left alone', async () => {
    const other = await recordForeground(bystander(), 'toy-server', { mode: 's1' });
    const served = await ensureAnsweringService(
      config,
      { ...toy({ name: 'toy-server' }), answers: () => Promise.resolve(true) },
      log,
    );
    assert.equal(served?.pid, other.pid, 'it answers: its record is kept');
    const started = await ensureAnsweringService(
      config,
      { ...toy({ name: 'toy-server' }), answers: () => Promise.resolve(false) },
      log,
    );
    assert.notEqual(started?.pid, other.pid, 'nothing answers: a new one starts');
    assert.ok(isAlive(other.pid), 'and the process the record named is left alone');
    await stopServices(config);
  });
});

describe('one record per process', () => {
  test('a foreground process beside a background one: both recorded, both listed, both stopped', async () => {
    const background = await ensureService(config, toy(), log);
    const foreground = await recordForeground(bystander(), 'toy', { mode: 's1' });
    assert.deepEqual(
      runningServices(config, 'toy').map((record) => [record.pid, record.origin]),
      [
        [background.pid, 'background'],
        [foreground.pid, 'foreground'],
      ].sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    const stopped = await stopServices(config);
    assert.deepEqual(stopped.map((record) => record.pid).sort(), [background.pid, foreground.pid].sort());
    assert.ok(!isAlive(background.pid) && !isAlive(foreground.pid), 'no process of either is left');
  });

  test('a foreground process with the same code and settings is used; one with other settings is refused, never stopped', async () => {
    const user = bystander();
    const same = await recordForeground(user, 'toy', { queue: 'q', store: 'file:///a' });
    const spec = (store: string, queue = 'q') =>
      toy({ settings: { queue, store }, sharedBy: ['queue'], startTimeoutMs: 20_000 });
    assert.equal((await ensureService(config, spec('file:///a'), log)).pid, same.pid);
    await assert.rejects(
      ensureService(config, spec('s3://bucket/prefix'), log),
      (error: Error) =>
        error.message.includes(`toy ${same.pid} was started in the foreground`) &&
        error.message.includes("its store is file:///a, this command's is s3://bucket/prefix") &&
        error.message.includes('It is not stopped for you'),
    );
    assert.ok(isAlive(same.pid), 'the foreground process runs on');
    assert.equal(runningServices(config, 'toy').length, 1, 'and nothing was started beside it');
    // on another queue it takes none of this command's work: a background one starts beside it
    const beside = await ensureService(config, spec('s3://bucket/prefix', 'other'), log);
    assert.notEqual(beside.pid, same.pid);
    assert.ok(isAlive(same.pid));
    await stopServices(config);
  });

  test('a record whose pid now names another process (another start time) is dropped, and that process left alone', async () => {
    const stranger = bystander();
    const identity = processIdentity(stranger.pid!);
    assert.ok(identity);
    const record = recordOf(stranger.pid!, { name: 'toy', origin: 'background', codeVersion: 'c1', settings: {} })!;
    await writeServiceRecord(config, { ...record, processStart: `${identity.start}-earlier` });
    assert.deepEqual(runningServices(config, 'toy'), [], 'not taken for the recorded process');
    await writeServiceRecord(config, { ...record, processStart: `${identity.start}-earlier` });
    assert.deepEqual(await stopServices(config), []);
    assert.ok(isAlive(stranger.pid!), 'a recycled pid is never killed');
    assert.deepEqual(readServiceRecords(config), [], 'its record is gone');
  });

  test('a record of the older layout (one file per name) names a process that is stopped, not orphaned', async () => {
    const old = bystander('agentrl.js', 'worker');
    writeFileSync(join(config.stateDir, 'worker.json'), JSON.stringify({ pid: old.pid, codeVersion: 'c0' }));
    const unrelated = bystander();
    writeFileSync(join(config.stateDir, 'trainer.pid'), String(unrelated.pid));
    // another program's pid file in the state folder is no record
    writeFileSync(join(config.stateDir, 's3-server.pid'), String(unrelated.pid));
    assert.deepEqual(
      readServiceRecords(config).map((record) => [record.name, record.pid, record.codeVersion]),
      [
        ['trainer', unrelated.pid, 'unknown'],
        ['worker', old.pid, 'c0'],
      ],
    );
    const stopped = await stopServices(config);
    assert.deepEqual(
      stopped.map((record) => record.pid),
      [old.pid],
      'the process that looks like a service is stopped',
    );
    assert.ok(!isAlive(old.pid!));
    assert.ok(isAlive(unrelated.pid!), 'one whose command line is not a service is left alone');
    assert.ok(!existsSync(join(config.stateDir, 'worker.json')) && !existsSync(join(config.stateDir, 'trainer.pid')));
    assert.ok(existsSync(join(config.stateDir, 's3-server.pid')));
  });
});

describe('where a worker writes', () => {
  test("a store's location: the folder, or the bucket with the endpoint and region its requests reach", () => {
    assert.deepEqual(storeLocation({ artifactsDir: '/data/artifacts' }), { store: 'file:///data/artifacts' });
    assert.deepEqual(
      storeLocation(
        { store: 's3://bucket/prefix/', artifactsDir: '/data/artifacts' },
        { AWS_ENDPOINT_URL: 'http://s3:9000' },
      ),
      { store: 's3://bucket/prefix', s3Endpoint: 'http://s3:9000', s3Region: 'us-east-1' },
    );
  });

  test("a worker's identity names its pid, machine, host and store; another endpoint is another store", () => {
    const location = { store: 's3://bucket/prefix', s3Endpoint: 'http://s3:9000', s3Region: 'us-east-1' };
    const parsed = parseWorkerIdentity(workerIdentity(4242, '0529adbee8798f8f', location));
    assert.deepEqual(parsed, {
      pid: 4242,
      machine: hostname(),
      hostId: '0529adbee8798f8f',
      store: storeFingerprint(location),
    });
    assert.notEqual(storeFingerprint({ ...location, s3Endpoint: 'https://s3.amazonaws.com' }), parsed.store);
    assert.equal(
      parseWorkerIdentity('agentrl-4242@0529adbee8798f8f'),
      null,
      "an older worker's says nothing of its store",
    );
  });
});

describe('the lock', () => {
  test('exclusive, released by its holder, and taken over from a dead owner', async () => {
    const path = join(config.stateDir, 'x.lock');
    const release = await takeLock(path);
    let second = false;
    const waiting = takeLock(path).then((releaseSecond) => {
      second = true;
      releaseSecond();
    });
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 500));
    assert.equal(second, false, 'held while the first holds it');
    release();
    await waiting;
    assert.equal(second, true);
    writeFileSync(path, '999999999');
    const taken = await takeLock(path);
    taken();
  });
});

describe('service entry points', () => {
  test('every script a service is started from exists (a moved entry point fails here, not in a run)', () => {
    const root = join(__dirname, '..', '..');
    const sources = readdirSync(join(root, 'cli'), { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.ts'),
    );
    const scripts = sources.flatMap((name) =>
      [
        ...readFileSync(join(root, 'cli', name), 'utf8').matchAll(/join\(projectRoot, ((?:'[^']+', )*'[^']+\.ts')\)/g),
      ].map((match) => match[1]!.split(', ').map((part) => part.slice(1, -1))),
    );
    assert.ok(scripts.length >= 2, JSON.stringify(scripts));
    for (const parts of scripts)
      assert.ok(existsSync(join(root, ...parts)), `${relative(root, join(...parts))} is missing`);
  });
});

// The background services' one mechanism (cli/services.ts), on small real processes: start, find,
// replace on other code or settings, records of an older layout, the lock.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  ensureService,
  isAlive,
  listServices,
  readServiceRecord,
  stopServices,
  takeLock,
  type ServiceSpec,
} from '../../cli/services';
import { loadConfig } from '../../workers/config';

const config = loadConfig({ AGENTRL_STATE_DIR: mkdtempSync(join(tmpdir(), 'agentrl-services-')) });
const lines: string[] = [];
const log = (line: string) => lines.push(line);
after(() => stopServices(config, 'toy'));

/** A process that prints `ready <pid>` and then idles. */
const toy = (fields: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name: 'toy',
  codeVersion: 'c1',
  settings: 's1',
  command: process.execPath,
  args: ['-e', 'console.log(`ready ${process.pid}`); setInterval(() => {}, 1000)'],
  ready: async (text, pid) => text.includes(`ready ${pid}`),
  startTimeoutMs: 20_000,
  ...fields,
});

describe('background services', () => {
  test('started once, found again, replaced (and stopped) when its code or settings differ', async () => {
    const first = await ensureService(config, toy(), log);
    assert.ok(isAlive(first.pid));
    assert.deepEqual([first.codeVersion, first.settings], ['c1', 's1']);
    assert.equal((await ensureService(config, toy(), log)).pid, first.pid, 'the same code and settings: reused');
    const newer = await ensureService(config, toy({ codeVersion: 'c2' }), log);
    assert.notEqual(newer.pid, first.pid);
    assert.ok(!isAlive(first.pid), 'the older one is stopped, not left running');
    assert.ok(
      lines.some((line) => line === `replacing toy ${first.pid}: it runs code c1, this checkout is c2`),
      lines.join('\n'),
    );
    const resettled = await ensureService(config, toy({ codeVersion: 'c2', settings: 's2' }), log);
    assert.notEqual(resettled.pid, newer.pid);
    assert.deepEqual(
      listServices(config).map((service) => [service.name, service.alive]),
      [['toy', true]],
    );
    assert.equal(await stopServices(config, 'toy'), 1);
    assert.ok(!isAlive(resettled.pid));
    assert.equal(readServiceRecord(config, 'toy'), null);
  });

  test("a log holding multi-byte text from earlier runs does not hide the new process's ready line", async () => {
    // progress bars and non-ASCII output of a previous run: byte and character offsets differ
    const earlier = await ensureService(
      config,
      toy({
        name: 'toy-wide',
        args: [
          '-e',
          'console.log("██████ 100% ✓ été " + "█".repeat(300)); console.log(`ready ${process.pid}`); setInterval(() => {}, 1000)',
        ],
      }),
      log,
    );
    const again = await ensureService(
      config,
      toy({
        name: 'toy-wide',
        codeVersion: 'c2',
        args: ['-e', 'console.log(`ready ${process.pid}`); setInterval(() => {}, 1000)'],
      }),
      log,
    );
    assert.notEqual(again.pid, earlier.pid);
    assert.ok(isAlive(again.pid));
    await stopServices(config, 'toy-wide');
  });

  test('a process that never becomes ready is stopped and its log shown', async () => {
    await assert.rejects(
      ensureService(config, toy({ name: 'toy-silent', ready: async () => false, startTimeoutMs: 1_500 }), log),
      /toy-silent did not start; see .*toy-silent\.log/,
    );
    assert.equal(readServiceRecord(config, 'toy-silent'), null);
  });

  test('a record of an older layout names a process that is replaced, not orphaned', async () => {
    const old = await ensureService(config, toy(), log);
    writeFileSync(
      join(config.stateDir, 'toy.json'),
      JSON.stringify({ pid: old.pid, key: 'old layout', startedAt: '' }),
    );
    assert.deepEqual(readServiceRecord(config, 'toy'), {
      pid: old.pid,
      codeVersion: 'unknown',
      settings: '(an older record)',
      startedAt: '',
    });
    const next = await ensureService(config, toy(), log);
    assert.notEqual(next.pid, old.pid);
    assert.ok(!isAlive(old.pid));
    await stopServices(config, 'toy');
  });

  test('a service that answers is used as it is; when nothing answers, a live pid in its record is not taken for it', async () => {
    const bystander = await ensureService(config, toy({ name: 'toy-bystander' }), log);
    writeFileSync(
      join(config.stateDir, 'toy-server.json'),
      JSON.stringify({ pid: bystander.pid, codeVersion: 'c1', settings: 's1', startedAt: '' }),
    );
    const served = await ensureService(config, toy({ name: 'toy-server', answers: async () => true }), log);
    assert.equal(served.pid, bystander.pid, 'it answers: the record is kept');
    const started = await ensureService(config, toy({ name: 'toy-server', answers: async () => false }), log);
    assert.notEqual(started.pid, bystander.pid, 'nothing answers: a new one starts');
    assert.ok(isAlive(bystander.pid), 'and the pid the record named is left alone');
    await stopServices(config, 'toy');
  });

  test('the lock is exclusive, released by its holder, and taken over from a dead owner', async () => {
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
    const sources = readdirSync(join(root, 'cli')).filter((name) => name.endsWith('.ts'));
    const scripts = sources.flatMap((name) =>
      [
        ...readFileSync(join(root, 'cli', name), 'utf8').matchAll(/join\(projectRoot, ((?:'[^']+', )*'[^']+\.ts')\)/g),
      ].map((match) => match[1]!.split(', ').map((part) => part.slice(1, -1))),
    );
    assert.ok(scripts.length >= 2, JSON.stringify(scripts));
    for (const parts of scripts) assert.ok(existsSync(join(root, ...parts)), `${parts.join('/')} is missing`);
  });
});

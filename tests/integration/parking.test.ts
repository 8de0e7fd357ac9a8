// Parking: an episode that outlasts its segment saves its tree, releases its container and waits
// durably; it resumes in a fresh container restored from the snapshot, on any host. Against a dev
// server of the test's own (its history in a file), so the server can be killed and started again.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { projectRoot } from '../../workers/config';
import { startRestartableServer, type RestartableServer } from '../helpers/dev-server';
import { containersOf, readTrajectory, scriptedPolicy, task, volumesOf, waitFor } from '../helpers/temporal';
import { killChild, spawnWorker, stopChild, waitReady } from '../helpers/worker-process';
import { episodeProgressQuery } from '../../workflows/messages';

const state = mkdtempSync(join(tmpdir(), 'agentrl-parking-'));
// the store every host shares (a shared mount across machines)
const artifacts = join(state, 'artifacts');
let server: RestartableServer;
let connection: Connection;
let client: Client;
const workers: ChildProcess[] = [];

before(async () => {
  server = await startRestartableServer(join(state, 'temporal.db'));
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
});
after(async () => {
  for (const worker of workers) await stopChild(worker);
  await connection?.close();
  await server?.kill();
});

/**
 * Lists every entry under the repository as the agent sees it: path bytes, bits, owner, mtime (s), links, content hash.
 */
const treeListing = {
  tool: 'bash',
  command: String.raw`python3 -c "
import hashlib, os, stat
rows = []
for folder, dirs, files in os.walk(b'.'):
    for name in dirs + files:
        path = os.path.join(folder, name)
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode): what = os.readlink(path).hex()
        elif stat.S_ISREG(info.st_mode): what = hashlib.sha256(open(path, 'rb').read()).hexdigest()
        else: what = '-'
        rows.append('%s %o %d:%d %d %d %s' % (path.hex(), info.st_mode, info.st_uid, info.st_gid, int(info.st_mtime), info.st_nlink, what))
print(len(rows), hashlib.sha256('\n'.join(sorted(rows)).encode()).hexdigest())
print('\n'.join(sorted(rows)))
"`,
};

/**
 * The fix, plus what a byte-exact tree must keep: a symlink, a dangling one, one that points above the repository,
 * set-id and private bits, a hard link, one to a set-id file in a folder of mode 000, a fifo, an empty folder, a
 * name that is not UTF-8, modification times before 1970 and after 2262.
 */
const actions = [
  {
    tool: 'bash',
    command: String.raw`sed -i 's/items\[start:end - 1\]/items[start:end]/' pager/__init__.py && mkdir -p notes/empty && chmod 700 notes && ln -s ../pager/__init__.py notes/link && ln -s /nowhere dangling && printf 'a\0b' > notes/data.bin && chmod 4750 notes/data.bin && ln notes/data.bin hard && mkfifo notes/pipe && touch "notes/$(printf '\377\376')-not-utf8" && touch -d '2001-02-03 04:05:06' notes/data.bin && touch -d '1950-01-01 00:00:00' notes/old && touch -d '2300-01-01 00:00:00' notes/far && ln -s ../../etc/passwd notes/up && mkdir locked && printf x > locked/suid && chmod 4755 locked/suid && ln locked/suid suid-link && chmod 000 locked && git status --short | wc -l`,
  },
  treeListing,
  // the segment ends here: parked after 2 turns
  treeListing,
  { tool: 'bash', command: 'python3 -m pytest -q' },
  { tool: 'submit' },
];

test('parked after 2 turns, the worker killed and the dev server restarted meanwhile: resumed on a new container, tree byte-identical, every turn once, the same outcome as without parking', async () => {
  const taskQueue = `park-${Date.now()}`;
  const policy = scriptedPolicy(actions);
  let worker = spawnWorker(server.address, join(state, 'worker'), taskQueue, artifacts);
  workers.push(worker);
  await waitReady(join(state, 'worker'), worker.pid!);

  const workflowId = `parked-${Date.now()}`;
  const handle = await client.workflow.start('rolloutEpisode', {
    taskQueue,
    workflowId,
    args: [{ task: task('off-by-one-range'), policy, segment: { maxTurns: 2 }, timeouts: { heartbeatMs: '3s' } }],
  });
  // parked: in the UI by its search attribute, holding no container
  await waitFor(
    'the episode to park',
    async () => {
      for await (const execution of client.workflow.list({
        query: `WorkflowId = "${workflowId}" AND AgentrlPhase = "parked"`,
      }))
        return execution;
      return null;
    },
    180_000,
  );
  assert.equal((await handle.query(episodeProgressQuery)).phase, 'parked');
  await waitFor(
    "the parked episode's container and volumes to go",
    async () => (await containersOf(workflowId)).length === 0 && (await volumesOf(workflowId)).length === 0,
    30_000,
  );

  // while parked: the worker killed, the dev server killed and started again
  await killChild(worker);
  await server.kill();
  await server.start();
  worker = spawnWorker(server.address, join(state, 'other-host'), taskQueue, artifacts);
  workers.push(worker);
  await waitReady(join(state, 'other-host'), worker.pid!);

  // resumed by the CLI, which exits 0 once the server has the resume
  const resumed = spawnSync(
    process.execPath,
    [join(projectRoot, 'bin', 'agentrl.js'), 'episode', 'resume', workflowId],
    {
      env: { ...process.env, TEMPORAL_ADDRESS: server.address, AGENTRL_STATE_DIR: join(state, 'cli') },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`${workflowId}: resume accepted`));
  const parked = (await handle.result()) as EpisodeResult;

  const turns = readTrajectory(parked.trajectoryUri);
  assert.deepEqual(
    turns.map((turn) => turn.turn),
    [0, 1, 2, 3, 4],
  );
  const [, before, afterResume] = turns;
  assert.match(before!.observation, /^\d+ [0-9a-f]{64}\n/);
  assert.equal(afterResume!.observation, before!.observation, 'the restored tree lists exactly as the parked one');
  // the listing covers what the first turn made
  const hex = (path: string | Buffer) => Buffer.from(path).toString('hex');
  for (const expected of [
    hex(Buffer.concat([Buffer.from('./notes/'), Buffer.from([0xff, 0xfe]), Buffer.from('-not-utf8')])),
    `${hex('./notes/pipe')} 10644`,
    `${hex('./notes/data.bin')} 104750 1000:1000 981173106 2`,
    `${hex('./dangling')} 120777`,
  ]) {
    assert.ok(before!.observation.includes(expected), `${expected} in\n${before!.observation}`);
  }
  assert.equal(parked.parks, 1);

  // the same episode without parking
  const plain = (await client.workflow.execute('rolloutEpisode', {
    taskQueue,
    workflowId: `unparked-${Date.now()}`,
    args: [{ task: task('off-by-one-range'), policy }],
  })) as EpisodeResult;
  assert.deepEqual(
    [parked.outcome, parked.reward, parked.trueSuccess],
    [plain.outcome, plain.reward, plain.trueSuccess],
  );
  assert.deepEqual([parked.outcome, parked.reward, parked.trueSuccess], ['submitted', 1, true]);
  assert.equal(parked.counters.turns, plain.counters.turns);
  await waitFor(
    "the episode's containers to be released",
    async () => (await containersOf(workflowId)).length === 0,
    60_000,
  );
});

test('a resume sent before the park is kept; --segment-turns parks it again; a parked episode past its time to live ends as abandoned', async () => {
  const taskQueue = `park-early-${Date.now()}`;
  const stateDir = join(state, 'early');
  const worker = spawnWorker(server.address, stateDir, taskQueue, artifacts);
  workers.push(worker);
  await waitReady(stateDir, worker.pid!);
  const policy = scriptedPolicy([
    { tool: 'bash', command: 'sleep 3; echo one' },
    { tool: 'bash', command: 'echo two' },
    { tool: 'bash', command: 'echo three' },
    { tool: 'submit' },
  ]);
  const workflowId = `early-${Date.now()}`;
  const handle = await client.workflow.start('rolloutEpisode', {
    taskQueue,
    workflowId,
    args: [{ task: task('off-by-one-range'), policy, segment: { maxTurns: 1, parkTtlMs: '4s' } }],
  });
  await waitFor(
    'the first turn to run',
    async () => (await handle.query(episodeProgressQuery).catch(() => null))?.phase === 'running',
    120_000,
  );
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), 'episode', 'resume', workflowId, ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: server.address, AGENTRL_STATE_DIR: join(state, 'cli') },
      encoding: 'utf8',
      timeout: 60_000,
    });
  const early = cli('--segment-turns', '1');
  assert.equal(early.status, 0, early.stderr);
  assert.match(early.stdout, /resumes when it parks/);
  // parks after turn 0, resumes at once with the kept request, parks again after turn 1 and is never resumed again
  const result = (await handle.result()) as EpisodeResult;
  assert.equal(result.outcome, 'abandoned');
  assert.equal(result.reward, null);
  assert.equal(result.parks, 2);
  assert.match(result.error ?? '', /time to live of 4000 ms/);
  assert.deepEqual(
    readTrajectory(result.trajectoryUri).map((turn) => turn.observation.split('\n')[0]),
    ['one', 'two'],
  );
  assert.deepEqual(await containersOf(workflowId), []);
  // an ended episode cannot be resumed: the CLI says so and exits non-zero
  const late = cli();
  assert.notEqual(late.status, 0);
  assert.match(late.stderr, /has already ended \(completed\)/);
  const bad = cli('--segment-turns', '0');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--segment-turns: expected a positive integer/);
});

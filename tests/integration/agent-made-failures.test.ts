// Whatever the agent does inside its sandbox is its own doing: the call is answered, the episode goes on and is scored,
// never `sandbox_crash` (an environment failure, erased from training). Each episode damages its sandbox from the
// agent's bash tool, calls `echo alive` after every blow, and submits; through the sandbox's executor and through one
// `docker exec` per call (sandbox.executor: exec).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  readTrajectory,
  runEpisode,
  scriptedPolicy,
  startWorker,
  task,
  testConfig,
  useEpisodeServer,
  type RunningWorker,
} from '../helpers/temporal';

const suite = useEpisodeServer();

const alive = 'echo alive';
const fix = "sed -i 's/end - 1]/end]/' pager/__init__.py && echo fixed";

/** One episode's blows, each followed by `echo alive`, then a submit. */
interface Blows {
  /** the blows in order: [name, bash command or tool call] */
  blows: [string, string | Record<string, unknown>][];
  /** blows after which `echo alive` cannot run (the repository root cannot be entered): answered with an error */
  locksOut?: string[];
  /** calls before the first blow */
  setup?: string[];
}

const episodes: Record<string, Blows> = {
  // the tree's modes and owners, /tmp's and HOME's, then the repository root itself (the fix is in first: a tree of
  // mode 000 files is still read, as root, and graded)
  modes: {
    setup: [fix],
    blows: [
      [
        'owners',
        'chown -R 0:0 /work 2>&1 | head -1; chgrp -R nogroup /work 2>&1 | head -1; chmod 000 /tmp "$HOME" 2>&1 | head -1',
      ],
      ['tree modes', 'chmod -R 000 /work/* /work/.git; echo done'],
      ['root mode', 'chmod 000 .; echo done'],
      ['warm call', "python3 -c 'print(1)'"],
    ],
    locksOut: ['root mode', 'warm call'],
  },
  // the tree deleted, both disks filled, the spool filled with garbage, HOME deleted
  space: {
    blows: [
      ['tree deleted', 'rm -rf /work/* /work/.[!.]* /work 2>&1 | tail -1; ls -A /work | wc -l'],
      [
        'disks filled',
        'head -c 400M /dev/zero > /work/fill; head -c 100M /dev/zero > /tmp/fill; df /work /tmp | wc -l',
      ],
      ['spool filled', 'head -c 100M /dev/zero > /run/agentrl/junk; echo filled'],
      // through docker exec, a request this large goes through the spool
      ['large write', { tool: 'write_file', path: 'large.txt', content: 'x'.repeat(100_000) }],
      ['home deleted', 'rm -rf "$HOME"/* "$HOME"/.[!.]*; echo gone'],
    ],
  },
  // the agent's processes killed, its runner signalled and its limits lowered, a fork bomb, descriptors exhausted
  processes: {
    blows: [
      ['kill all', 'kill -9 -1'],
      ['runner signalled', 'kill -TERM $PPID; sleep 1'],
      ['runner limits', 'prlimit --pid $PPID --nofile=4:4 --fsize=0:0 --nproc=1:1; echo limited'],
      ['fork bomb', 'f() { f | f & }; f; sleep 2; echo bombed'],
      [
        'descriptors',
        'python3 -c \'import os\nfds = []\ntry:\n    while True: fds.append(os.open("/dev/null", 0))\nexcept OSError as error: print(error.strerror)\'',
      ],
      ['warm kill all', "python3 -c 'import os; os.kill(-1, 9)'"],
    ],
  },
};

async function runBlows(worker: { taskQueue: string }, spec: Blows) {
  const actions: Record<string, unknown>[] = (spec.setup ?? []).map((command) => ({ tool: 'bash', command }));
  const answers: { name: string; blow: number; alive: number }[] = [];
  for (const [name, blow] of spec.blows) {
    answers.push({ name, blow: actions.length, alive: actions.length + 1 });
    actions.push(typeof blow === 'string' ? { tool: 'bash', command: blow } : blow, { tool: 'bash', command: alive });
  }
  actions.push({ tool: 'write_file', path: 'notes.txt', content: 'still here\n' }, { tool: 'submit' });
  const result = await runEpisode(suite.env, worker, {
    task: task('off-by-one-range'),
    policy: scriptedPolicy(actions),
    budgets: { toolTimeoutMs: '10s', maxTurns: actions.length + 1 },
  });
  const turns = readTrajectory(result.trajectoryUri);
  const trace = [
    `${result.outcome} (reward ${result.reward}): ${result.error}`,
    ...turns.map(
      (turn) => `${turn.status} ${turn.action.slice(0, 70)} -> ${JSON.stringify(turn.observation.slice(0, 160))}`,
    ),
  ].join('\n');
  assert.equal(result.outcome, 'submitted', trace);
  assert.equal(typeof result.reward, 'number', trace);
  assert.equal(turns.length, actions.length, trace);
  for (const { name, blow, alive: after } of answers) {
    assert.ok(['ok', 'tool_error'].includes(turns[blow]!.status), `${name}: ${turns[blow]!.observation}`);
    if (spec.locksOut?.includes(name)) {
      assert.equal(turns[after]!.status, 'tool_error', `${name}: ${turns[after]!.observation}`);
      assert.match(turns[after]!.observation, /^error: .*\/work/, name);
    } else assert.equal(turns[after]!.observation, 'alive\n[exit code 0]', `after ${name}: ${trace}`);
  }
  return { result, turns, answers };
}

for (const path of ['executor', 'docker exec'] as const)
  describe(`the agent's own damage, through ${path}, is its scored outcome`, { concurrency: 3 }, () => {
    let oneShot: RunningWorker | undefined;
    before(async () => {
      if (path === 'executor') return;
      const config = testConfig(suite.env.address);
      oneShot = await startWorker(suite.env, { ...config, sandbox: { ...config.sandbox, executor: 'exec' } });
    });
    after(async () => {
      await oneShot?.stop();
    });
    const worker = () => oneShot ?? suite.worker;

    test('modes and owners of its tree, /tmp and HOME, and of the repository root', async () => {
      const { result, turns } = await runBlows(worker(), episodes.modes!);
      assert.equal(result.reward, 1, 'the fixed tree, all of it mode 000, was read and graded');
      assert.equal(turns.at(-2)!.status, 'tool_error', 'write_file into a root of mode 000 is a tool error');
    });

    test('its tree deleted, its disks and the spool filled, its HOME deleted', async () => {
      const { result, turns, answers } = await runBlows(worker(), episodes.space!);
      assert.equal(result.reward, 0);
      const spool = answers.find((answer) => answer.name === 'spool filled')!;
      assert.match(turns[spool.blow]!.observation, /filled\n\[exit code 0\]$/);
    });

    test('its processes killed, its runner signalled and limited, a fork bomb, descriptors exhausted', async () => {
      const { result, turns, answers } = await runBlows(worker(), episodes.processes!);
      assert.equal(result.reward, 0);
      const observation = (name: string) => turns[answers.find((answer) => answer.name === name)!.blow]!.observation;
      assert.equal(observation('kill all'), 'error: the tool call killed its own runner');
      assert.match(observation('runner limits'), /limited\n\[exit code 0\]$/);
      assert.match(observation('descriptors'), /Too many open files/);
    });
  });

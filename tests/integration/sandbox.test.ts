// The sandbox as the agent sees it, through real tool calls in a real container.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { labels } from '../../activities/sandbox/container';
import { docker, readTrajectory, runEpisode, scriptedPolicy, task, useEpisodeServer } from '../helpers/temporal';

const suite = useEpisodeServer();

const probes = {
  interfaces: 'ls /sys/class/net',
  user: 'id -u; id -un',
  capabilities: 'grep -E "^(CapEff|CapPrm|NoNewPrivs)" /proc/self/status',
  readOnlyRoot: 'touch /usr/planted 2>&1; echo rc=$?',
  network: 'python3 -c "import socket; socket.create_connection((\'1.1.1.1\', 53), timeout=2)" 2>&1 | tail -1',
  pidsLimit: 'cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max',
  flood:
    "python3 -c \"\nimport os, time\nborn = 0\nfor _ in range(5000):\n    try:\n        if os.fork() == 0:\n            time.sleep(30); os._exit(0)\n        born += 1\n    except OSError as error:\n        print('fork refused after', born, 'children:', error.strerror); break\n\"",
  afterFlood: 'echo alive; ps -e --no-headers | wc -l',
  git: 'git rev-list --all --count; git for-each-ref | wc -l; git reflog | wc -l; git status --porcelain | wc -l',
  diskLimit: 'head -c 400M /dev/zero 2>&1 >big; echo rc=$?; rm -f big',
} as const;

test('inside the sandbox: loopback only, not root, no capabilities, read-only root, a bounded process flood, one-commit git', async () => {
  const names = Object.keys(probes) as (keyof typeof probes)[];
  const spec = scriptedPolicy([...names.map((name) => ({ tool: 'bash', command: probes[name] })), { tool: 'submit' }]);
  const hostLoadBefore = execFileSync('sh', ['-c', 'echo ok']).toString();
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: spec,
    budgets: { toolTimeoutMs: '10s', maxTurns: 20 },
  });
  assert.equal(result.outcome, 'submitted');
  const seen = Object.fromEntries(
    readTrajectory(result.trajectoryUri)
      .slice(0, names.length)
      .map((turn, index) => [names[index], turn.observation]),
  );
  assert.equal(seen.interfaces, 'lo\n[exit code 0]', 'no network interface but loopback');
  assert.match(seen.user, /^1000\nagent\n/);
  assert.match(seen.capabilities, /CapPrm:\s+0000000000000000/);
  assert.match(seen.capabilities, /CapEff:\s+0000000000000000/);
  assert.match(seen.capabilities, /NoNewPrivs:\s+1/);
  assert.match(seen.readOnlyRoot, /Read-only file system|Permission denied/);
  assert.match(seen.network, /Network is unreachable|Errno 101|timed out/);
  assert.match(seen.pidsLimit, /^256\n/);
  assert.match(seen.flood, /fork refused after \d+ children: Resource temporarily unavailable/);
  const born = Number(/after (\d+) children/.exec(seen.flood)![1]);
  assert.ok(born < 256, `the pids limit stopped the flood at ${born} children`);
  assert.match(seen.afterFlood, /^alive\n/, 'the sandbox still works after the flood');
  assert.ok(Number(seen.afterFlood!.split('\n')[1]) < 10, 'the flood was killed with its tool call');
  assert.equal(seen.git, '1\n1\n0\n0\n[exit code 0]', 'one commit, one ref, no reflog, clean tree');
  assert.match(seen.diskLimit, /No space left on device/);
  assert.equal(execFileSync('sh', ['-c', 'echo ok']).toString(), hostLoadBefore, 'the host still forks');
});

test('the bash tool runs bash: pipefail, [[ ]], arrays, here-strings, and a pipe closed early as in a terminal', async () => {
  const calls = [
    'set -o pipefail; false | true; echo $?',
    '[[ abc == a* ]] && echo matched',
    'words=(a \'b c\'); echo ${#words[@]} "${words[1]}"',
    "cat <<< $'tab\\there'",
    'set -o pipefail; yes | head -1; echo ${PIPESTATUS[@]}',
  ];
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: scriptedPolicy([...calls.map((command) => ({ tool: 'bash', command })), { tool: 'submit' }]),
    budgets: { toolTimeoutMs: '10s', maxTurns: calls.length + 1 },
  });
  assert.equal(result.outcome, 'submitted');
  assert.deepEqual(
    readTrajectory(result.trajectoryUri)
      .slice(0, calls.length)
      .map((turn) => turn.observation),
    [
      '1\n[exit code 0]',
      'matched\n[exit code 0]',
      '2 b c\n[exit code 0]',
      'tab\there\n[exit code 0]',
      // no "Broken pipe" from yes: SIGPIPE ends it, as in a terminal
      'y\n141 0\n[exit code 0]',
    ],
  );
});

test('the sweep from the host: a background loop whose call killed its own runner is gone at the next call and during scoring', async () => {
  const loop =
    "nohup sh -c 'while :; do echo x >> /work/loop.log; sleep 0.05; done' >/dev/null 2>&1 & sleep 0.3; echo started";
  // the second call kills its runner first, so the runner's own end-of-call kill never runs
  const killRunner =
    'nohup sh -c "while :; do echo y >> /work/loop2.log; sleep 0.05; done" >/dev/null 2>&1 & sleep 0.2; kill -9 $PPID';
  const look = 'ps -u agent -o args= | grep -c "[w]hile :" ; wc -c < /work/loop.log; wc -c < /work/loop2.log';
  const spec = scriptedPolicy([
    { tool: 'bash', command: loop },
    { tool: 'bash', command: killRunner },
    { tool: 'bash', command: look },
    { tool: 'bash', command: 'sleep 1; ' + look },
    { tool: 'submit' },
  ]);
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: spec,
    budgets: { toolTimeoutMs: '10s', maxTurns: 8 },
  });
  assert.equal(result.outcome, 'submitted');
  const turns = readTrajectory(result.trajectoryUri);
  assert.match(turns[0]!.observation, /started/);
  assert.match(turns[1]!.observation, /killed its own runner/);
  const [loops, size1, size2] = turns[2]!.observation.split('\n').map((line) => Number(line.trim()));
  assert.equal(loops, 0, `no loop of the agent's user is alive at the third call: ${turns[2]!.observation}`);
  // nothing grew while the fourth call slept (scoring runs the same sweep before it reads the tree)
  const later = turns[3]!.observation.split('\n').map((line) => Number(line.trim()));
  assert.deepEqual(later.slice(0, 3), [0, size1, size2]);
});

test('the sweep works when the agent filled the pids limit and killed its runner', async () => {
  const fill =
    'python3 -c "\nimport os, time\nwhile True:\n    try:\n        if os.fork() == 0:\n            time.sleep(600); os._exit(0)\n    except OSError:\n        break\ntime.sleep(600)" >/dev/null 2>&1 & sleep 3; kill -9 $PPID';
  const spec = scriptedPolicy([
    { tool: 'bash', command: fill },
    { tool: 'bash', command: 'ps -u agent -o pid= | wc -l' },
    { tool: 'submit' },
  ]);
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: spec,
    budgets: { toolTimeoutMs: '20s', maxTurns: 4 },
  });
  assert.equal(result.outcome, 'submitted');
  const turns = readTrajectory(result.trajectoryUri);
  assert.equal(turns[1]!.status, 'ok', `the next call runs: ${turns[1]!.observation}`);
  assert.ok(
    Number(turns[1]!.observation.split('\n')[0]) < 6,
    `only the call's own processes remain: ${turns[1]!.observation}`,
  );
});

test('bad tool calls are observations and the episode goes on: NUL bytes, 10 MB arguments, non-UTF-8 and 100 MB output, a symlink escape', async () => {
  const big = 'x'.repeat(10 * 1024 * 1024);
  const calls = [
    { tool: 'bash', command: 'echo a\u0000b' },
    { tool: 'write_file', path: 'big.txt', content: big },
    { tool: 'bash', command: 'wc -c < big.txt' },
    { tool: 'bash', command: "printf 'ok \\377\\376 end\\n'" },
    { tool: 'bash', command: 'head -c 100M /dev/zero | tr "\\0" y; echo' },
    { tool: 'bash', command: 'ln -s /etc /work/etc-link && echo linked' },
    { tool: 'write_file', path: 'etc-link/agentrl-escape', content: 'x' },
    '{"tool": "bash", "command": ',
    { tool: 'bash', command: 'echo still here' },
    { tool: 'submit' },
  ];
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: scriptedPolicy(calls),
    budgets: { toolTimeoutMs: '30s', maxTurns: 12, maxTokens: 100_000_000 },
  });
  assert.equal(result.outcome, 'submitted');
  const turns = readTrajectory(result.trajectoryUri);
  assert.equal(turns.length, calls.length);
  assert.equal(turns[0]!.status, 'tool_error');
  assert.equal(
    turns[0]!.observation,
    'error: invalid bash call: command: must not contain NUL bytes (a shell command cannot hold them)',
  );
  assert.equal(turns[1]!.status, 'ok');
  assert.match(turns[2]!.observation, /^10485760\n/);
  assert.match(turns[3]!.observation, /^ok \uFFFD\uFFFD end\n/);
  assert.ok(
    turns[4]!.observation.length < 200_000,
    `a 100 MB output is cut to the observation size (${turns[4]!.observation.length} characters)`,
  );
  assert.match(turns[4]!.observation, /\[exit code 0\] \[output truncated: 104857601 bytes in all\]$/);
  assert.equal(turns[6]!.observation, 'error: path leaves the repository through a symlink');
  assert.equal(turns[7]!.status, 'tool_error');
  assert.match(turns[7]!.observation, /not valid JSON/);
  assert.match(turns[8]!.observation, /^still here\n/);
});

test("tool calls go through the sandbox's executor: the agent cannot reach its socket, and a killed executor is started again", async () => {
  const workflowId = `test-executor-${randomBytes(4).toString('hex')}`;
  const spec = scriptedPolicy([
    { tool: 'bash', command: 'tr "\\0" " " < /proc/$PPID/cmdline; echo; id -u' },
    {
      tool: 'bash',
      command:
        'ls /run/agentrl/ctl 2>&1; python3 -c "import socket; socket.socket(socket.AF_UNIX).connect(\'/run/agentrl/ctl/exec.sock\')" 2>&1 | tail -1',
    },
    { tool: 'bash', command: 'sleep 4; echo slow' },
    { tool: 'bash', command: 'echo after' },
    { tool: 'submit' },
  ]);
  const running = runEpisode(
    suite.env,
    suite.worker,
    { task: task('off-by-one-range'), policy: spec, budgets: { toolTimeoutMs: '20s', maxTurns: 8 } },
    workflowId,
  );
  // while the third call sleeps, the executor is killed from the host (the agent's uid cannot signal it)
  let killed: number | null = null;
  const deadline = Date.now() + 60_000;
  while (killed === null && Date.now() < deadline) {
    const [info] = await docker.listContainers({ filters: { label: [`${labels.workflowId}=${workflowId}`] } });
    if (info) {
      const top = await docker.getContainer(info.Id).top({ ps_args: '-eo user,pid,args' });
      const rows = (top.Processes as string[][]) ?? [];
      if (rows.some((row) => row[2] === 'sleep 4')) {
        const executor = rows.find((row) => row[0] === 'root' && row[2]!.includes('--serve'));
        if (executor) {
          process.kill(Number(executor[1]), 'SIGKILL');
          killed = Number(executor[1]);
        }
      }
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  }
  const result = await running;
  assert.ok(killed !== null, 'the executor was found and killed during the third call');
  assert.equal(result.outcome, 'submitted');
  const turns = readTrajectory(result.trajectoryUri);
  assert.match(turns[0]!.observation, /^python3 -I -S \/run\/agentrl\/run-tool\.py --serve 1000 \n1000\n/);
  assert.match(turns[1]!.observation, /Permission denied/);
  assert.doesNotMatch(turns[1]!.observation, /exec\.sock\n/, 'the agent cannot list the executor folder');
  assert.match(turns[1]!.observation, /PermissionError|Permission denied/);
  assert.equal(turns[2]!.observation, 'slow\n[exit code 0]', 'the call in flight finished though its executor died');
  assert.equal(turns[3]!.observation, 'after\n[exit code 0]', 'the next call started a new executor');
  const phases = result.timings.turnPhases!;
  assert.ok(phases.toolMs >= 4000, `the tool phase holds the sleep: ${JSON.stringify(result.timings)}`);
  assert.ok(phases.storeMs > 0 && phases.sweepMs > 0, JSON.stringify(phases));
});

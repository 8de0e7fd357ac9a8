// The sandbox's warm interpreter (sandbox/warm-python.py) through real tool calls: a simple python3 command runs there
// with the result a cold start gives; anything that could differ runs cold. `X ;` is the same command for the shell,
// but not a simple one, so it always starts a cold interpreter: the pairs below compare the two in one sandbox.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translateAction } from '../../shared/compact-actions/language';
import { readTrajectory, runEpisode, scriptedPolicy, task, useEpisodeServer } from '../helpers/temporal';

const suite = useEpisodeServer();

const commandOf = (action: string) => {
  const parsed = translateAction(action);
  assert.ok(parsed.ok && parsed.call.tool === 'bash');
  return parsed.call.command;
};
const masked = (text: string) => text.replace(/ in \d+\.\d+s/g, ' in Xs').replace(/ at 0x[0-9a-f]+/g, ' at 0x');
const preloaded = `python3 -c 'import sys; print("pytest" in sys.modules)'`;

test('run, locate and the test command give what a cold interpreter gives, passing, failing and not collecting', async () => {
  const checks = [commandOf('run'), commandOf('locate'), 'python3 -m pytest -q'];
  const actions: Record<string, unknown>[] = [{ tool: 'bash', command: 'sleep 0.5' }];
  const pairs: [number, number][] = [];
  const pair = (command: string) => {
    pairs.push([actions.length, actions.length + 1]);
    actions.push({ tool: 'bash', command }, { tool: 'bash', command: `${command} ;` });
  };
  // as given (a test fails), fixed (all pass), a source file that does not parse (a collection error)
  for (const state of [
    'echo as given',
    "sed -i 's/end - 1]/end]/' pager/__init__.py && echo fixed",
    "printf '\\n)\\n' >> pager/__init__.py && echo broken",
  ]) {
    actions.push({ tool: 'bash', command: state });
    checks.forEach(pair);
  }
  // the proof that the warm interpreter ran the simple form: it has pytest imported before the call's code runs
  pair(preloaded);
  // a file of the repository named like a module the warm interpreter has imported: only a cold start imports it
  actions.push({ tool: 'write_file', path: 'json.py', content: 'MINE = True\n' });
  pair(`python3 -c 'import json, sys; print(getattr(json, "MINE", False), "pytest" in sys.modules)'`);
  actions.push({ tool: 'bash', command: 'rm json.py' });
  // the call's limits hold: a timeout kills it, a crash is reported as bash reports it (bash execs a lone simple
  // command: the interpreter leads the call's process group, and its signal is the call's)
  pair(`python3 -c 'import time; print("started", flush=True); time.sleep(30)'`);
  pair(`python3 -c 'import os; print(os.getuid(), sorted(os.listdir("/proc/self/fd")), os.getpgrp() == os.getpid())'`);
  pair(`python3 -c 'import os; os.abort()'`);
  pair(`python3 -c 'raise KeyboardInterrupt'`);
  // bash's own syntax in what looks like a simple command: bash runs it, never the warm interpreter as written
  const argvOf = `python3 -c 'import sys; print(sys.argv[1:], "pytest" in sys.modules)'`;
  const bashSyntax = actions.length;
  actions.push({ tool: 'bash', command: `${argvOf} {a,b} $'t\\tu' x{1..2} <<< ignored` });
  actions.push({
    tool: 'bash',
    command: "pgrep -c -u agent -f '[p]ython3 -[cm] '; ls /run/agentrl/ctl 2>&1 | head -1",
  });
  actions.push({ tool: 'submit' });
  const result = await runEpisode(suite.env, suite.worker, {
    task: task('off-by-one-range'),
    policy: scriptedPolicy(actions),
    budgets: { toolTimeoutMs: '3s', maxTurns: actions.length + 1 },
  });
  assert.equal(result.outcome, 'submitted');
  const turns = readTrajectory(result.trajectoryUri);
  const observation = (index: number) => masked(turns[index]!.observation);
  const [prePair, shadowPair, timeoutPair, identityPair, abortPair, interruptPair] = pairs.slice(9);
  for (const [warm, cold] of pairs.slice(0, 9)) assert.equal(observation(warm), observation(cold));
  assert.match(observation(pairs[0]![0]), /1 failed/);
  assert.match(observation(pairs[3]![0]), /passed/);
  assert.match(observation(pairs[8]![0]), /error/i);
  assert.equal(observation(prePair![0]), 'True\n[exit code 0]', 'the simple form ran warm');
  assert.equal(observation(prePair![1]), 'False\n[exit code 0]', 'the other ran cold');
  assert.equal(observation(shadowPair![0]), 'True False\n[exit code 0]', 'a shadowing file: cold, and the file wins');
  assert.equal(observation(shadowPair![0]), observation(shadowPair![1]));
  for (const [warm, cold] of [timeoutPair!, identityPair!, abortPair!, interruptPair!])
    assert.equal(observation(warm), observation(cold));
  assert.match(observation(timeoutPair![0]), /^started\n\[timed out/);
  assert.match(observation(identityPair![0]), /^1000 \['0', '1', '2', '3'\] True/);
  assert.equal(observation(abortPair![0]), '[killed by signal 6]');
  assert.match(observation(interruptPair![0]), /^Traceback[^]*\nKeyboardInterrupt\n\[killed by signal 2\]$/);
  assert.equal(
    observation(bashSyntax),
    "['a', 'b', 't\\tu', 'x1', 'x2'] False\n[exit code 0]",
    "bash's expansions, in a cold interpreter",
  );
  // no process of the agent's outlives its calls, and the agent cannot reach the interpreter's socket
  assert.match(turns[actions.length - 2]!.observation, /^0\nls: cannot open directory/);
});

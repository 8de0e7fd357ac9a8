// Benchmark and check (not a test): the sandbox's warm interpreter (sandbox/warm-python.py) against cold starts, on
// every bundled task. One episode per task runs, in four states of its repository (as given; the solution applied;
// every test erroring in setup; the package failing to import, a collection error), the compact actions' `run` and
// `locate` and the task's test command, each twice: as the action writes it (a simple python3 command: warm) and with
// ` ;` after it (the shell runs it: a cold interpreter, the path main had). The observations must be equal (pytest's
// timings masked); the tool call's own time (TurnSummary.phases.toolMs) is compared. The same run measures main's
// `run` as it was (a cold interpreter that starts pytest in a second cold one).
//   node --import tsx bench/warm-python.ts [TASK_FOLDER ...]    (default: every bundled task)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { translateAction } from '../shared/compact-actions/language';
import { readTrajectory, scriptedPolicy, startTestServer, startWorker, tasksDir } from '../tests/helpers/temporal';

const EventType = temporal.api.enums.v1.EventType;

// main's `run` before the warm interpreter: pytest in a second interpreter started by subprocess
const mainRun = [
  'import os, re, subprocess, sys',
  'cmd = ["python3", "-m", "pytest", "-q", "-x", "--tb=line", "-p", "no:cacheprovider"]',
  'done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)',
  'print(done.stdout[-2000:])',
  'sys.exit(done.returncode)',
].join('\n');
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

const commandOf = (action: string) => {
  const parsed = translateAction(action);
  if (!parsed.ok || parsed.call.tool !== 'bash') throw new Error(`${action} is not a bash action`);
  return parsed.call.command;
};

function taskFolders(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      if (!name.isDirectory()) continue;
      const path = join(dir, name.name);
      if (existsSync(join(path, 'task.yaml')) || existsSync(join(path, 'task.toml'))) found.push(path);
      else walk(path);
    }
  };
  walk(tasksDir);
  return found.sort();
}

function testCommand(folder: string): string {
  const yaml = join(folder, 'task.yaml');
  const line = existsSync(yaml) ? /^testCommand:\s*(.+)$/m.exec(readFileSync(yaml, 'utf8')) : null;
  return line ? line[1]!.trim() : 'python3 -m pytest -q';
}

const sources =
  "find . -name '*.py' -not -path './tests/*' -not -path '*/tests/*' -not -name 'test_*' -not -name " +
  "'conftest.py' -not -path './.git/*' | sort | head -1";
const reset = 'git checkout -q -- . && git clean -fdq && echo reset';

/** The repository states and the actions that make each from the starting tree. */
function states(folder: string): { name: string; actions: Record<string, unknown>[] }[] {
  const solution = join(folder, 'solution.patch');
  return [
    { name: 'as given', actions: [{ tool: 'bash', command: reset }] },
    ...(existsSync(solution)
      ? [
          {
            name: 'solved',
            actions: [
              { tool: 'bash', command: reset },
              { tool: 'write_file', path: '.bench-solution.patch', content: readFileSync(solution, 'utf8') },
              { tool: 'bash', command: 'git apply .bench-solution.patch && rm .bench-solution.patch && echo applied' },
            ],
          },
        ]
      : []),
    {
      name: 'setup error',
      actions: [
        { tool: 'bash', command: reset },
        {
          tool: 'bash',
          command:
            'printf \'\\nimport pytest\\n@pytest.fixture(autouse=True)\\ndef _bench_broken():\\n    raise RuntimeError("setup broke")\\n\' >> conftest.py; echo broken',
        },
      ],
    },
    {
      name: 'collection error',
      actions: [
        { tool: 'bash', command: reset },
        { tool: 'bash', command: `f=$(${sources}); printf '\\n)\\n' >> "$f"; echo "$f"` },
      ],
    },
  ];
}

// what differs between any two runs: pytest's timings, objects' addresses
const masked = (text: string) => text.replace(/ in \d+\.\d+s/g, ' in Xs').replace(/ at 0x[0-9a-f]+/g, ' at 0x');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const folders = process.argv.slice(2).length ? process.argv.slice(2) : taskFolders();
  const env = await startTestServer();
  const worker = await startWorker(env);
  const times: Record<string, number[]> = {};
  const add = (key: string, ms: number) => (times[key] ??= []).push(ms);
  let compared = 0;
  const differences: string[] = [];
  try {
    for (const folder of folders) {
      const checks = [
        ['run', commandOf('run')],
        ['locate', commandOf('locate')],
        ['test command', testCommand(folder)],
      ] as const;
      // the sandbox's warm interpreter is started at acquire; a scripted policy acts at once, so it waits for it here
      const actions: Record<string, unknown>[] = [{ tool: 'bash', command: 'sleep 0.5' }];
      const pairs: { state: string; check: string; warm: number; cold: number }[] = [];
      const mainRuns: number[] = [];
      for (const state of states(folder)) {
        actions.push(...state.actions);
        for (const [check, command] of checks) {
          pairs.push({ state: state.name, check, warm: actions.length, cold: actions.length + 1 });
          actions.push({ tool: 'bash', command }, { tool: 'bash', command: `${command} ;` });
        }
        mainRuns.push(actions.length);
        actions.push({ tool: 'bash', command: `python3 -c ${quote(mainRun)} ;` });
      }
      actions.push({ tool: 'submit' });
      const handle = await env.client.workflow.start('rolloutEpisode', {
        taskQueue: worker.taskQueue,
        workflowId: `warm-python-${relative(tasksDir, folder).replace(/\W/g, '-')}-${Date.now()}`,
        args: [
          {
            task: folder,
            policy: scriptedPolicy(actions),
            budgets: { maxTurns: actions.length + 1, toolTimeoutMs: '120s' },
          },
        ],
      });
      const result = (await handle.result()) as { trajectoryUri: string; outcome: string };
      const turns = readTrajectory(result.trajectoryUri);
      // each turn's tool time, from the takeTurn activities' results in the history
      const toolMs: number[] = [];
      for (const event of (await handle.fetchHistory()).events ?? []) {
        if (event.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) continue;
        const payload = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
        const summary = payload
          ? defaultPayloadConverter.fromPayload<{ turn?: number; phases?: { toolMs: number } }>(payload)
          : null;
        if (summary?.phases && typeof summary.turn === 'number') toolMs[summary.turn] = summary.phases.toolMs;
      }
      let equal = 0;
      for (const pair of pairs) {
        const warm = turns[pair.warm]?.observation ?? '(missing)';
        const cold = turns[pair.cold]?.observation ?? '(missing)';
        compared += 1;
        if (masked(warm) === masked(cold)) equal += 1;
        else {
          const [a, b] = [masked(warm), masked(cold)];
          let at = 0;
          while (at < a.length && a[at] === b[at]) at += 1;
          const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 120), at + 180));
          differences.push(
            `${relative(tasksDir, folder)} / ${pair.state} / ${pair.check} (from character ${at}):\n  warm ${around(a)}\n  cold ${around(b)}`,
          );
        }
        add(`${pair.check} warm`, toolMs[pair.warm] ?? NaN);
        add(`${pair.check} cold`, toolMs[pair.cold] ?? NaN);
      }
      for (const turn of mainRuns) add("main's run (cold)", toolMs[turn] ?? NaN);
      console.log(`${relative(tasksDir, folder)}: ${equal}/${pairs.length} equal (${result.outcome})`);
    }
    console.log('\ntool call time (ms, the call in the sandbox)');
    for (const [key, values] of Object.entries(times))
      console.log(
        `  ${key.padEnd(22)} p50 ${percentile(values, 50).toFixed(1).padStart(7)}   p95 ${percentile(values, 95).toFixed(1).padStart(7)}   (n=${values.length})`,
      );
    const ratio = (a: string, b: string) => (percentile(times[a]!, 50) / percentile(times[b]!, 50)).toFixed(2);
    console.log(`ratio run warm / main's run: p50 ${ratio('run warm', "main's run (cold)")}x (target: at most 0.3x)`);
    console.log(`ratio run warm / run cold: p50 ${ratio('run warm', 'run cold')}x`);
    console.log(`ratio locate warm / cold: p50 ${ratio('locate warm', 'locate cold')}x`);
    console.log(`ratio test command warm / cold: p50 ${ratio('test command warm', 'test command cold')}x`);
    if (process.env.BENCH_VERBOSE) console.log(JSON.stringify(times));
    console.log(`\nobservations equal: ${compared - differences.length}/${compared}`);
    for (const difference of differences) console.log(difference);
    if (differences.length) process.exitCode = 1;
  } finally {
    await worker.stop();
    await env.teardown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

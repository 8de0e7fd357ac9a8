// The harness rows of the chaos script: single episodes of mini-swe-agent through `npx agentrl episode --harness`,
// driven by a scripted chat backend (replies:FILE), each run once uninterrupted (the baseline) and once with a fault
// that lands while the harness runs. The figures say whether the relaunch replayed the record: the same trajectory
// as the baseline, one generation per distinct call, and nothing left behind.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { createArtifactStore } from '../activities/store/artifact-store';
import { createEpisodeRecords } from '../activities/store/episode-records';
import type { EpisodeResult } from '../shared/contracts/episode';
import { serviceRecord } from '../tests/helpers/worker-process';
import { projectRoot } from '../workers/config';

const cli = join(projectRoot, 'bin', 'agentrl.js');
const taskDir = join(projectRoot, 'tasks', 'wrong-comparison');

export interface HarnessFault {
  name: string;
  /** the commands of the scripted replies, in order; the harness's own finish follows them */
  commands: readonly string[];
  /** strikes once the episode has made this many model calls */
  afterCalls: number;
  /** whether the relaunched harness asks something the record does not hold (a divergence is then expected) */
  diverges: boolean;
  /** the fault; returns a note when it could not strike */
  inject(state: string, workflowId: string): string | null;
}

/** Kills the harness in the episode's sandbox as the agent's uid; a note when no harness process was there. */
function killHarness(_state: string, workflowId: string): string | null {
  const found = spawnSync(
    'docker',
    ['ps', '-q', '--filter', `label=agentrl.workflow-id=${workflowId}`, '--filter', 'label=agentrl.role=agent'],
    { encoding: 'utf8' },
  );
  const container = found.stdout.trim().split('\n')[0];
  if (!container) return 'no sandbox of the episode to kill the harness in';
  const killed = spawnSync('docker', ['exec', '-u', '1000:1000', container, 'pkill', '-9', '-f', 'bin/mini']);
  return killed.status === 0 ? null : `pkill found no harness process (exit ${killed.status})`;
}

function applyPatch(): string {
  const patch = readFileSync(join(taskDir, 'solution.patch'), 'utf8');
  return `cat > /tmp/fix.patch <<'AGENTRL_EOF'\n${patch}AGENTRL_EOF\ngit apply /tmp/fix.patch && echo applied`;
}

// outputs that do not change between runs (pytest's time is cut), so the relaunch sees what the first launch saw;
// the kill lands during the sleep
const replayable = [
  'ls intervals tests',
  'cat intervals/__init__.py',
  'sleep 4; echo slept',
  applyPatch(),
  "python3 -m pytest -q 2>&1 | tail -1 | sed -E 's/ in [0-9.]+s//'",
];

export const harnessFaults: HarnessFault[] = [
  { name: 'harness-process', commands: replayable, afterCalls: 3, diverges: false, inject: killHarness },
  {
    name: 'harness-worker',
    commands: replayable,
    afterCalls: 3,
    diverges: false,
    inject: (state) => {
      process.kill(serviceRecord(state, 'worker').pid, 'SIGKILL');
      return null;
    },
  },
  {
    name: 'harness-divergence',
    // the hostname is the container's: the relaunch's fresh sandbox answers the first command differently
    commands: ['cat /etc/hostname', 'sleep 4; echo slept', 'ls', applyPatch(), replayable.at(-1)!],
    afterCalls: 2,
    diverges: true,
    inject: killHarness,
  },
];

export interface HarnessRow {
  fault: string;
  /** a divergence is expected: the trajectory is then not the baseline's */
  diverges: boolean;
  /** from the fault to the first new generation (the record replayed, the harness sampling again) */
  recoverS: number | null;
  /** from the fault to the relaunched harness's start */
  relaunchS: number | null;
  /** from the fault to the last call the relaunch had answered from the record */
  replayedByS: number | null;
  /** the uninterrupted harness's start: from its launch to its first model call */
  baselineStartS: number | null;
  completed: boolean;
  baselineCompleted: boolean;
  sameTrajectory: boolean;
  turns: number;
  generations: number;
  /** the calls generated before the relaunch (the record the relaunch can replay) */
  recordedBefore: number;
  launches: number;
  replayed: number;
  divergences: number;
  discarded: number;
  containersLeft: number;
  volumesLeft: number;
  note: string;
}

/** Whether the row shows a loss: the checks differ for a divergence, whose trajectory is a new one. */
export function harnessRowFailed(row: HarnessRow): boolean {
  const common =
    !row.completed ||
    !row.baselineCompleted ||
    row.recoverS === null ||
    row.launches !== 2 ||
    row.containersLeft > 0 ||
    row.volumesLeft > 0 ||
    row.note !== '';
  // the record made before the fault is either answered again or dropped at the divergence, never generated twice
  if (row.diverges)
    return (
      common ||
      row.divergences !== 1 ||
      row.replayed + row.discarded !== row.recordedBefore ||
      row.generations !== row.turns + row.discarded
    );
  return (
    common ||
    !row.sameTrajectory ||
    row.divergences !== 0 ||
    row.replayed !== row.recordedBefore ||
    row.generations !== row.turns
  );
}

/** One harness row: the baseline episode, then the faulted one, in one state folder with its own dev server. */
export async function harnessChaos(fault: HarnessFault, port: number): Promise<HarnessRow> {
  const state = mkdtempSync(join(tmpdir(), `agentrl-chaos-${fault.name}-`));
  const configPath = join(state, 'temporal.yaml');
  writeFileSync(
    configPath,
    `temporal:\n  address: 127.0.0.1:${port}\n  uiPort: ${port + 1000}\nstateDir: ${state}\nartifactsDir: ` +
      `${state}/artifacts\nworker:\n  reapIntervalMs: 5000\n`,
  );
  const env = { ...process.env, AGENTRL_CONFIG: configPath };
  const repliesFile = join(state, 'replies.jsonl');
  writeFileSync(
    repliesFile,
    repliesOf(fault.commands)
      .map((text) => JSON.stringify(text))
      .join('\n') + '\n',
  );
  const stamp = Date.now();
  const address = `127.0.0.1:${port}`;
  let note = '';
  try {
    const baselineId = `chaos-${fault.name}-baseline-${stamp}`;
    const baseline = await episode(env, repliesFile, baselineId);
    if (!baseline.result) note = `the baseline did not complete: ${baseline.failure}`;
    const workflowId = `chaos-${fault.name}-${stamp}`;
    let struckAt: number | null = null;
    const faulted = await episode(env, repliesFile, workflowId, (printed) => {
      if (struckAt !== null) return;
      const calls = [...printed.matchAll(/: running, (\d+) turn\(s\)/g)].map((match) => Number(match[1]));
      if (!calls.some((count) => count >= fault.afterCalls)) return;
      struckAt = Date.now();
      try {
        const missed = fault.inject(state, workflowId);
        if (missed) note ||= missed;
      } catch (error) {
        note ||= `the fault could not strike: ${(error as Error).message}`;
      }
    });
    if (struckAt === null) note ||= 'the fault never struck';
    if (!faulted.result) note ||= `the episode did not complete: ${faulted.failure}`;
    // counted before any reaping: the crashed launch's sandbox must have gone with the episode
    const left = leftovers(workflowId);
    const [history, baselineHistory] = await Promise.all([
      historyFigures(address, workflowId),
      historyFigures(address, baselineId),
    ]);
    const since = (at: number | null | undefined) =>
      at !== null && at !== undefined && struckAt !== null ? (at - struckAt) / 1000 : null;
    const [baselineLaunch] = baselineHistory.launchedAt;
    const [baselineCall] = baselineHistory.firstCallAt;
    const result = faulted.result;
    const harness = result?.counters.harness;
    const trajectory = (which: EpisodeResult | null) =>
      which ? trajectoryIds(join(state, 'artifacts'), which.episodeId) : Promise.resolve(null);
    const [mine, theirs] = await Promise.all([trajectory(result), trajectory(baseline.result)]);
    return {
      fault: fault.name,
      diverges: fault.diverges,
      recoverS: since(history.sampledAgainAt),
      relaunchS: since(history.launchedAt[1]),
      replayedByS: since(history.replayEndAt),
      baselineStartS:
        baselineLaunch !== undefined && baselineCall !== null && baselineCall !== undefined
          ? (baselineCall - baselineLaunch) / 1000
          : null,
      generations: history.generations,
      recordedBefore: history.recordedBefore,
      completed: result?.outcome === 'submitted' && result.reward === 1,
      baselineCompleted: baseline.result?.outcome === 'submitted' && baseline.result.reward === 1,
      sameTrajectory: mine !== null && theirs !== null && isDeepStrictEqual(mine, theirs),
      turns: result?.counters.turns ?? 0,
      launches: harness?.launches ?? 0,
      replayed: harness?.replayed ?? 0,
      divergences: harness?.divergences ?? 0,
      discarded: harness?.discarded ?? 0,
      ...left,
      note,
    };
  } finally {
    spawnSync(process.execPath, [cli, 'server', 'stop'], { env, stdio: 'ignore' });
  }
}

/** The scripted backend's replies in mini-swe-agent's tool-call format: the commands, then its way to finish. */
function repliesOf(commands: readonly string[]): string[] {
  const call = (command: string) =>
    `<tool_call>\n${JSON.stringify({ name: 'bash', arguments: { command } })}\n</tool_call>`;
  return [
    ...commands.map((command) => `I run it.\n${call(command)}`),
    call('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'),
  ];
}

/** One `npx agentrl episode --harness` run; `onPrinted` hears its progress lines as they come. */
async function episode(
  env: NodeJS.ProcessEnv,
  repliesFile: string,
  workflowId: string,
  onPrinted?: (printed: string) => void,
): Promise<{ result: EpisodeResult | null; failure: string }> {
  const child = spawn(
    process.execPath,
    [
      cli,
      'episode',
      '--harness',
      'mini-swe-agent',
      '--policy',
      `replies:${repliesFile}`,
      '--task',
      taskDir,
      '--workflow-id',
      workflowId,
      '--json',
    ],
    { env },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    onPrinted?.(stderr);
  });
  const code = await new Promise<number | null>((resolveExit) => child.on('exit', resolveExit));
  try {
    return { result: JSON.parse(stdout) as EpisodeResult, failure: '' };
  } catch {
    return { result: null, failure: `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}` };
  }
}

const millis = (time: { seconds?: unknown; nanos?: number | null }) =>
  Number(time.seconds) * 1000 + (time.nanos ?? 0) / 1e6;

/** What an episode's history says about its launches and generations (times in ms since the epoch). */
interface HistoryFigures {
  /** completed generateCall activities */
  generations: number;
  /** the generations completed before the second launch was scheduled */
  recordedBefore: number;
  /** each runHarness scheduled */
  launchedAt: number[];
  /** the first model call each launch's harness made (its update accepted) */
  firstCallAt: (number | null)[];
  /** the last call answered before the second launch's first generation: where its replay ended */
  replayEndAt: number | null;
  /** the second launch's first generateCall scheduled */
  sampledAgainAt: number | null;
}

async function historyFigures(address: string, workflowId: string): Promise<HistoryFigures> {
  const connection = await Connection.connect({ address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const scheduled = new Map<string, string>();
    const figures: HistoryFigures = {
      generations: 0,
      recordedBefore: 0,
      launchedAt: [],
      firstCallAt: [],
      replayEndAt: null,
      sampledAgainAt: null,
    };
    for (const event of history.events ?? []) {
      const at = millis(event.eventTime!);
      const launch = figures.launchedAt.length - 1;
      const attributes = event.activityTaskScheduledEventAttributes;
      if (attributes) {
        const type = attributes.activityType?.name ?? '';
        scheduled.set(String(event.eventId), type);
        if (type === 'runHarness') {
          figures.launchedAt.push(at);
          figures.firstCallAt.push(null);
        }
        if (type === 'generateCall' && launch === 1) figures.sampledAgainAt ??= at;
      }
      if (event.workflowExecutionUpdateAcceptedEventAttributes && launch >= 0) figures.firstCallAt[launch] ??= at;
      if (event.workflowExecutionUpdateCompletedEventAttributes && launch === 1 && figures.sampledAgainAt === null)
        figures.replayEndAt = at;
      const done = event.activityTaskCompletedEventAttributes;
      if (done && scheduled.get(String(done.scheduledEventId)) === 'generateCall') {
        figures.generations++;
        if (figures.launchedAt.length < 2) figures.recordedBefore++;
      }
    }
    return figures;
  } finally {
    await connection.close();
  }
}

/** Each turn's generated ids and the last context's ids: what training gets from the episode. */
async function trajectoryIds(artifactsDir: string, episodeId: string) {
  const store = createArtifactStore(artifactsDir);
  const records = createEpisodeRecords(store);
  const turns = await records.readTurns(episodeId);
  const generated = await Promise.all(turns.map((turn) => store.getJson(turn.action.tokenIdsRef, z.array(z.number()))));
  const last = turns.at(-1)?.model?.contextRef;
  return { generated, context: last ? (await records.readContext(last)).ids : [] };
}

/** The episode's containers and volumes still present, by its workflow id's label. */
function leftovers(workflowId: string): Pick<HarnessRow, 'containersLeft' | 'volumesLeft'> {
  const count = (args: string[]) =>
    (
      spawnSync('docker', [...args, '-q', '--filter', `label=agentrl.workflow-id=${workflowId}`], { encoding: 'utf8' })
        .stdout ?? ''
    )
      .split('\n')
      .filter(Boolean).length;
  return { containersLeft: count(['ps', '-a']), volumesLeft: count(['volume', 'ls']) };
}

/** The harness rows' table. */
export function printHarnessTable(rows: readonly HarnessRow[]): void {
  const seconds = (value: number | null) => (value === null ? '-' : value.toFixed(1));
  console.log(
    '| fault | recover s | relaunch s | replayed by s | harness start s (baseline) | completed | ' +
      'same trajectory as the baseline | turns | generations | calls before the fault | replayed | divergences | ' +
      'discarded | containers left | volumes left | note |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${[
        row.fault,
        seconds(row.recoverS),
        seconds(row.relaunchS),
        seconds(row.replayedByS),
        seconds(row.baselineStartS),
        row.completed ? 'yes' : 'no',
        row.sameTrajectory ? 'yes' : row.diverges ? 'no (diverged)' : 'no',
        row.turns,
        row.generations,
        row.recordedBefore,
        row.replayed,
        row.divergences,
        row.discarded,
        row.containersLeft,
        row.volumesLeft,
        row.note,
      ].join(' | ')} |`,
    );
}

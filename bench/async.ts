// Synchronous against asynchronous training (a benchmark, not a test), in one invocation on this machine:
//
//   node --import tsx bench/async.ts [--parts throughput,learning,staleness] [--throughput-minutes 15]
//     [--learning-minutes 15] [--seeds 0,1] [--staleness-minutes 10] [--etas 1,4,8] [--off-policy none,decoupled]
//     [--slow-seconds 10] [--slow-share 0.12] [--slow-cap 10] [--concurrency 4] [--policy-port 8100] [--json FILE]
//
// throughput: both modes on the same heavy-tailed task set at equal trainer capacity (one trainer worker,
//   the same tasks and group sizes per step, the same concurrency): trained episodes per hour, the trainer's
//   and the sampler's idle shares (no episode acting; `slots idle`: the share of the concurrency unused)
//   and the machine's CPU utilisation. The set (heavyTailedTasks) is the suite's training tasks with a draw in
//   their test module: an eighth of the episodes' containers wait 10 to 100 s (a Pareto tail) at every test
//   run, so those episodes take many times the median (the measured quantiles are printed).
// learning: both modes on the bundled suite for --learning-minutes each, per seed: held-out true success
//   at equal wall-clock.
// staleness: asynchronous runs with η in --etas × --off-policy, --staleness-minutes each, on the
//   heavy-tailed set with one group per step, so that the sampler runs η steps ahead and observed staleness
//   reaches η: the staleness histogram, stale groups, importance weights and held-out true success per row.
//
// The idle shares are read by polling each run's progress query every half second, the same way for both
// modes: the trainer is busy while a step trains, the sampler idles while no episode acts.
import { localPathOf } from '../activities/store/local-copy';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { connectWithWorker, withCause } from '../cli/episode-runner';
import { startDevServer } from '../cli/services/dev-server';
import { policyServerService, trainerService } from '../cli/services/keep-up';
import { ensurePolicyServer } from '../cli/services/serving';
import { ensureTrainerWorker } from '../cli/services/trainer';
import type { EpisodeResult } from '../shared/contracts/episode';
import { defaultTaskQueue } from '../shared/names/task-queues';
import type { IterationMetrics } from '../shared/contracts/run-metrics';
import { trainingProgressQuery } from '../workflows/messages';
import type { TrainingRunResult } from '../workflows/training-run';
import { loadConfig, projectRoot, temporalConnection } from '../workers/config';

const { values } = parseArgs({
  options: {
    parts: { type: 'string', default: 'throughput,learning,staleness' },
    'throughput-minutes': { type: 'string', default: '15' },
    'learning-minutes': { type: 'string', default: '15' },
    seeds: { type: 'string', default: '0,1' },
    'staleness-minutes': { type: 'string', default: '10' },
    etas: { type: 'string', default: '1,4,8' },
    'off-policy': { type: 'string', default: 'none,decoupled' },
    'slow-seconds': { type: 'string', default: '10' },
    'slow-share': { type: 'string', default: '0.12' },
    'slow-cap': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '4' },
    'policy-port': { type: 'string', default: '8100' },
    json: { type: 'string' },
  },
});

const log = (line: string) => console.error(`bench:async: ${line}`);
const fixed = (value: number | null | undefined, digits = 3) =>
  value === null || value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');

/**
 * The heavy-tailed task set: the suite's training tasks, whose visible test module, at its first import in
 * a container, draws once how long that container waits at every import of the tests (kept in /tmp): with
 * probability `share` it is slow, and then waits `seconds` × min(cap, share / u) for a uniform u < share (a
 * Pareto tail from `seconds` to `cap` × `seconds`), else not at all. An episode's checks all run in its own
 * container, so about an eighth of the episodes wait at every check (and a grading is slow as often):
 * the slowest tenth take many times the median, and within a group one episode may be slow while the
 * others are not.
 */
function heavyTailedTasks(seconds: number, share: number, cap: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-heavy-tail-'));
  const train = join(projectRoot, 'tasks', 'suite', 'train');
  const preamble = [
    'import os as _bench_os, random as _bench_random, time as _bench_time',
    "_bench_draw = '/tmp/.agentrl-bench-draw'",
    'if not _bench_os.path.exists(_bench_draw):',
    '    _bench_u = _bench_random.random()',
    `    open(_bench_draw, 'w').write(str(${seconds} * min(${cap}, ${share} / max(_bench_u, 1e-9)) if _bench_u ` +
      `< ${share} else 0))`,
    '_bench_time.sleep(float(open(_bench_draw).read()))',
    '',
  ].join('\n');
  for (const name of readdirSync(train).sort()) {
    cpSync(join(train, name), join(dir, name), { recursive: true });
    const tests = join(dir, name, 'repo', 'tests');
    for (const file of readdirSync(tests).filter((entry) => entry.startsWith('test_') && entry.endsWith('.py'))) {
      writeFileSync(join(tests, file), `${preamble}${readFileSync(join(tests, file), 'utf8')}`);
    }
  }
  return dir;
}

/** Busy and total jiffies of all CPUs. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

interface Measured {
  runId: string;
  result: TrainingRunResult;
  metrics: IterationMetrics[];
  wallS: number;
  trainerBusyShare: number;
  samplerIdleShare: number;
  slotIdleShare: number;
  cpu: number;
  episodes: EpisodeResult[];
}

/** Runs one training run to its end, polling its progress for the idle shares and /proc/stat for the CPU. */
async function measure(client: Client, input: Record<string, unknown>): Promise<Measured> {
  const runId = input.runId as string;
  log(`${runId}: ${String(input.mode)} run, ${String(input.timeBudgetMinutes)} min budget`);
  const handle = await client.workflow.start('trainingRun', {
    taskQueue: defaultTaskQueue,
    workflowId: runId,
    args: [input],
  });
  let polls = 0;
  let trainerBusy = 0;
  let samplerIdle = 0;
  let slotsIdle = 0;
  let measuring = false;
  const concurrency = input.concurrency as number;
  let cpuStart = cpuTimes();
  let startedAt = Date.now();
  const poll = setInterval(() => {
    handle
      .query(trainingProgressQuery)
      .then((progress) => {
        // the set-up and the warm start are the same in both modes: measured from the first policy-gradient iteration
        // on
        if (!measuring && (progress.phase === 'sampling' || progress.pool) && progress.phase !== 'warm-start') {
          measuring = true;
          cpuStart = cpuTimes();
          startedAt = Date.now();
        }
        if (!measuring || ['evaluating', 'stopping', 'reporting', 'done'].includes(progress.phase)) return;
        polls++;
        // acting episodes: the pool's in flight less the parked; a synchronous iteration's lanes stay busy until its
        // last episodes
        const acting = progress.pool
          ? progress.pool.inFlight - progress.pool.parked
          : progress.phase === 'sampling'
            ? Math.min(concurrency, progress.episodesTotal - progress.episodesDone)
            : 0;
        const training = progress.pool
          ? progress.pool.training
          : progress.phase === 'training' || progress.phase === 'publishing';
        if (training) trainerBusy++;
        if (acting === 0) samplerIdle++;
        slotsIdle += 1 - Math.min(1, acting / concurrency);
      })
      .catch(() => undefined);
  }, 500);
  let result: TrainingRunResult;
  try {
    result = await withCause(handle.result() as Promise<TrainingRunResult>, `run ${runId}`);
  } finally {
    clearInterval(poll);
  }
  const cpuEnd = cpuTimes();
  const metrics = readFileSync(join(localPathOf(result.runRef)!, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as IterationMetrics);
  const episodes: EpisodeResult[] = [];
  for await (const execution of client.workflow.list({
    query: `AgentrlRunId = "${runId}" AND ExecutionStatus = "Completed"`,
  })) {
    if (/\.(it\d+|g\d+)\./.test(execution.workflowId))
      episodes.push((await client.workflow.getHandle(execution.workflowId).result()) as EpisodeResult);
  }
  return {
    runId,
    result,
    metrics,
    episodes,
    wallS: (Date.now() - startedAt) / 1000,
    trainerBusyShare: polls ? trainerBusy / polls : 0,
    samplerIdleShare: polls ? samplerIdle / polls : 0,
    slotIdleShare: polls ? slotsIdle / polls : 0,
    cpu: (cpuEnd.busy - cpuStart.busy) / Math.max(1, cpuEnd.total - cpuStart.total),
  };
}

/**
 * Trained episodes per hour: the episodes of the steps' batches over the time from the first
 * policy-gradient iteration's start to the last step's line (the lines' wall times add up to it in both
 * modes; the end of an asynchronous run, which lets its episodes in flight go, is not counted).
 */
// the warm start's line (iteration -1) is neither a step nor sampled by the policy
const stepLines = (run: Measured) => run.metrics.filter((line) => line.train && line.iteration >= 0);
const perHour = (run: Measured) =>
  stepLines(run).reduce((sum, line) => sum + line.train!.episodes, 0) /
  (stepLines(run).reduce((sum, line) => sum + line.time.wallS, 0) / 3600);
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const durationS = (episode: EpisodeResult) =>
  (episode.timings.acquireMs + episode.timings.turnsMs + episode.timings.scoringMs) / 1000;
const finalHeldOut = (run: Measured) => run.metrics.filter((line) => line.eval).at(-1)?.eval?.trueSuccess ?? null;

const common = (concurrency: number) => ({
  tasksPerIteration: 4,
  groupSize: 4,
  concurrency,
  iterations: 10_000,
  credit: { stopCredit: 5 },
  warmStart: { episodes: 16, epochs: 20 },
});

async function main(): Promise<void> {
  const config = loadConfig();
  const parts = values.parts.split(',');
  const concurrency = Number(values.concurrency);
  const policyPort = Number(values['policy-port']);
  const url = await ensurePolicyServer(config, policyPort, log);
  await startDevServer(config, log);
  await ensureTrainerWorker(config, log);
  const { close } = await connectWithWorker(config, log, [
    trainerService(config, log),
    policyServerService(config, policyPort, log),
  ]);
  const connection = await Connection.connect(temporalConnection(config));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const report: Record<string, unknown> = {};
  try {
    const heavy = {
      dir: heavyTailedTasks(Number(values['slow-seconds']), Number(values['slow-share']), Number(values['slow-cap'])),
    };
    log(
      `heavy-tailed set ${heavy.dir}: ${values['slow-share']} of the containers wait ${values['slow-seconds']} ` +
        `to ${Number(values['slow-seconds']) * Number(values['slow-cap'])} s at every import of the tests`,
    );
    if (parts.includes('throughput')) {
      const minutes = Number(values['throughput-minutes']);
      const runs: Measured[] = [];
      for (const mode of ['sync', 'async'] as const) {
        runs.push(
          await measure(client, {
            runId: `bench-${mode}-${stamp}`,
            mode,
            tasks: heavy.dir,
            evaluation: { tasks: '' },
            timeBudgetMinutes: minutes,
            policyServer: url,
            seed: 0,
            ...common(concurrency),
            // η 4: a slow episode's group still makes a batch a few steps later (AReaL's usual range is 2 to 8)
            ...(mode === 'async' ? { async: { maxStaleness: 4 } } : {}),
          }),
        );
      }
      const durations = runs.flatMap((run) => run.episodes.map(durationS)).sort((a, b) => a - b);
      const slowest = durations.slice(Math.floor(durations.length * 0.9));
      console.log(
        `\nthroughput on the heavy-tailed set (${durations.length} training episodes: median ` +
          (`${fixed(quantile(durations, 0.5), 1)} s, p90 ${fixed(quantile(durations, 0.9), 1)} s, slowest tenth ` +
            `from ${fixed(slowest[0], 1)} s = ${fixed((slowest[0] ?? NaN) / quantile(durations, 0.5), 1)}x the median)`),
      );
      console.log(
        'mode    steps  episodes  minutes  episodes/h  trainer idle  sampler idle  slots idle  CPU    vs sync',
      );
      const base = perHour(runs[0]!);
      for (const run of runs) {
        const steps = run.metrics.filter((line) => line.training && line.iteration >= 0).length;
        const episodes = run.metrics.reduce(
          (sum, line) => sum + (line.iteration >= 0 ? (line.train?.episodes ?? 0) : 0),
          0,
        );
        const minutes = stepLines(run).reduce((sum, line) => sum + line.time.wallS, 0) / 60;
        console.log(
          `${run.runId.startsWith('bench-sync') ? 'sync ' : 'async'}   ${String(steps).padStart(5)}  ` +
            (`${String(episodes).padStart(8)}  ${minutes.toFixed(1).padStart(7)}  ` +
              (`${perHour(run).toFixed(0).padStart(10)}  ${fixed(1 - run.trainerBusyShare, 2).padStart(12)}  ` +
                (`${fixed(run.samplerIdleShare, 2).padStart(12)}  ${fixed(run.slotIdleShare, 2).padStart(10)}  ` +
                  `${fixed(run.cpu, 2)}  ${fixed(perHour(run) / base, 2)}x`))),
        );
      }
      report.throughput = runs.map((run) => ({
        runId: run.runId,
        perHour: perHour(run),
        trainerIdle: 1 - run.trainerBusyShare,
        samplerIdle: run.samplerIdleShare,
        slotsIdle: run.slotIdleShare,
        cpu: run.cpu,
        wallS: run.wallS,
        medianS: quantile(durations, 0.5),
      }));
    }
    if (parts.includes('learning')) {
      const minutes = Number(values['learning-minutes']);
      const rows: string[] = [];
      const learning: unknown[] = [];
      for (const seed of values.seeds.split(',').map(Number)) {
        for (const mode of ['sync', 'async'] as const) {
          const run = await measure(client, {
            runId: `bench-learn-${mode}-s${seed}-${stamp}`,
            mode,
            tasks: 'tasks/suite/train',
            evaluation: { tasks: 'tasks/suite/heldout', limit: 0, samples: 2 },
            timeBudgetMinutes: minutes,
            policyServer: url,
            seed,
            ...common(concurrency),
            ...(mode === 'async' ? { async: { maxStaleness: 2 } } : {}),
          });
          const evals = run.metrics.filter((line) => line.eval);
          rows.push(
            `${mode.padEnd(5)}  ${String(seed).padStart(4)}  ` +
              (`${String(run.metrics.filter((line) => line.training && line.iteration >= 0).length).padStart(5)}  ` +
                (`${perHour(run).toFixed(0).padStart(10)}  ${fixed(evals[0]?.eval?.trueSuccess).padStart(13)}  ` +
                  `${fixed(finalHeldOut(run)).padStart(13)}`)),
          );
          learning.push({
            runId: run.runId,
            mode,
            seed,
            heldOutStart: evals[0]?.eval?.trueSuccess ?? null,
            heldOutFinal: finalHeldOut(run),
            perHour: perHour(run),
          });
        }
      }
      console.log(
        `\nlearning at equal wall-clock (${minutes} min per run, bundled suite, held-out: all tasks x 2 samples)`,
      );
      console.log('mode   seed  steps  episodes/h  heldout-start  heldout-final');
      for (const row of rows) console.log(row);
      report.learning = learning;
    }
    if (parts.includes('staleness')) {
      const minutes = Number(values['staleness-minutes']);
      const rows: string[] = [];
      const cells: unknown[] = [];
      for (const eta of values.etas.split(',').map(Number)) {
        for (const offPolicy of values['off-policy'].split(',')) {
          const run = await measure(client, {
            runId: `bench-eta${eta}-${offPolicy}-${stamp}`,
            mode: 'async',
            async: { maxStaleness: eta, groupsPerStep: 1 },
            loss: { offPolicy },
            tasks: heavy.dir,
            evaluation: { tasks: 'tasks/suite/heldout', limit: 8, samples: 2 },
            timeBudgetMinutes: minutes,
            policyServer: url,
            seed: 0,
            ...common(Math.max(concurrency, 8)),
          });
          const lines = run.metrics.filter((line) => line.async);
          const histogram = lines.reduce<number[]>(
            (sum, line) =>
              line
                .async!.staleness.histogram.map((count, index) => count + (sum[index] ?? 0))
                .concat(sum.slice(line.async!.staleness.histogram.length)),
            [],
          );
          const tokens = histogram.reduce((a, b) => a + b, 0);
          const weights = lines.flatMap((line) => (line.async!.importanceWeight ? [line.async!.importanceWeight] : []));
          const stale = lines.reduce((sum, line) => sum + line.async!.stale, 0);
          const maxSeen = histogram.length - 1;
          rows.push(
            `${String(eta).padStart(3)}  ${offPolicy.padEnd(9)}  ${String(lines.length).padStart(5)}  ` +
              (`${perHour(run).toFixed(0).padStart(10)}  ${String(maxSeen).padStart(8)}  ` +
                `${fixed(histogram.reduce((sum, count, s) => sum + count * s, 0) / Math.max(1, tokens), 2).padStart(6)}  ${String(stale).padStart(5)}  ${fixed(Math.max(...weights.map((w) => w.max)), 2).padStart(6)}  ${fixed(weights.reduce((sum, w) => sum + w.truncatedShare, 0) / Math.max(1, weights.length), 3).padStart(8)}  ${fixed(finalHeldOut(run)).padStart(8)}  ${histogram.map((count) => (count / Math.max(1, tokens)).toFixed(2)).join(' ')}`),
          );
          cells.push({
            runId: run.runId,
            eta,
            offPolicy,
            steps: lines.length,
            histogram,
            stale,
            heldOut: finalHeldOut(run),
          });
        }
      }
      console.log(
        `\nstaleness (${minutes} min per cell, heavy-tailed set, one group per step, concurrency ` +
          `${Math.max(concurrency, 8)})`,
      );
      console.log(
        '  η  offPolicy  steps  episodes/h  max seen  mean s  stale  w max  w > cap  heldout  staleness ' +
          'histogram (share of trained tokens at 0, 1, 2, ...)',
      );
      for (const row of rows) console.log(row);
      report.staleness = cells;
    }
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    await connection.close();
    await close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:async: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);

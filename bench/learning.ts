// The learning experiment (a benchmark, not a test): training runs on the embedded defaults under
// the strict checker, the weak checker and with blanked observations, each on a time budget, then
// the per-iteration figures of every run and a side-by-side table of reward vs true success.
//
//   node --import tsx bench/learning.ts [--minutes 60] [--seeds 0,1] [--variants strict,weak,blank,gigpo,no-dual-clip,mask-all,
//     gae,gae-turn,trunc-bootstrap,trunc-zero,trunc-drop]
//     [--json FILE]
//     [--eval-every 10] [--eval-tail 3] [--concurrency 4] [--lr 1e-3] [--epochs 4] [--kl-coef 0.03]
//     [--stop-credit 5] [--max-turns 12] [--context 768] [--policy-port 8100]
//
// --max-turns overrides every task's turn budget (the bundled tasks say 8) for the demonstrations,
// training and evaluation alike, and --context sets the model's window to hold that many turns: with
// 12 turns a policy can locate, then edit and check up to five times, and submit.
//
// Held-out tasks are evaluated at the start, every --eval-every iterations (the curve), and before
// each of the last --eval-tail − 1 iterations and after the last step: "held-out last 3" is the mean
// of the last three evaluations.
//
// Two invocations can run side by side (e.g. one variant each) with different --policy-port values.
//
// Every run is a real trainingRun: episodes in containers, the strict or weak checker, the PyTorch
// trainer, onnxruntime inference. Held-out tasks are never trained on or used for a choice.
import { localPathOf } from '../activities/store/local-copy';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelConfig } from '../shared/contracts/run/model';
import { type IterationMetrics } from '../shared/contracts/run-metrics';
import { loadConfig } from '../workers/config';
import { runTraining } from '../cli/training';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    seeds: { type: 'string', default: '0,1' },
    variants: { type: 'string', default: 'strict,weak,blank' },
    json: { type: 'string' },
    'eval-every': { type: 'string', default: '10' },
    'eval-tail': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    'policy-port': { type: 'string', default: '8100' },
    lr: { type: 'string', default: '1e-3' },
    epochs: { type: 'string', default: '4' },
    'kl-coef': { type: 'string', default: '0.03' },
    'stop-credit': { type: 'string', default: '5' },
    'max-turns': { type: 'string', default: '12' },
    context: { type: 'string', default: '768' },
  },
});

const variants: Record<
  string,
  {
    checker: 'strict' | 'weak';
    observations: 'full' | 'blank';
    estimator?: string;
    clipRatioC?: number | null;
    lossMask?: 'all';
    truncation?: 'zero' | 'drop' | 'bootstrap';
    /** overrides --max-turns: a budget that truncates often, for the truncation rows */
    maxTurns?: number;
  }
> = {
  strict: { checker: 'strict', observations: 'full' },
  weak: { checker: 'weak', observations: 'full' },
  blank: { checker: 'strict', observations: 'blank' },
  // credit finer than the episode: GiGPO's step groups (shared/math/gigpo.ts), strict checker
  gigpo: { checker: 'strict', observations: 'full', estimator: 'gigpo' },
  // the loss without dual-clip (verl's default c = 3 is on in every other variant)
  'no-dual-clip': { checker: 'strict', observations: 'full', clipRatioC: null },
  // the loss-mask ablation (Search-R1's): the loss trains on observations too
  'mask-all': { checker: 'strict', observations: 'full', lossMask: 'all' },
  // critic PPO: GAE per action token, and per turn
  gae: { checker: 'strict', observations: 'full', estimator: 'gae' },
  'gae-turn': { checker: 'strict', observations: 'full', estimator: 'gae_turn' },
  // truncation on a turn budget that cuts often (6 turns): the critic's bootstrap against zero and drop
  'trunc-bootstrap': {
    checker: 'strict',
    observations: 'full',
    estimator: 'gae',
    truncation: 'bootstrap',
    maxTurns: 6,
  },
  'trunc-zero': { checker: 'strict', observations: 'full', estimator: 'gae', truncation: 'zero', maxTurns: 6 },
  'trunc-drop': { checker: 'strict', observations: 'full', estimator: 'gae', truncation: 'drop', maxTurns: 6 },
};

const log = (line: string) => console.error(`learning: ${line}`);
const fixed = (value: number | null | undefined) =>
  value === null || value === undefined ? '    -' : value.toFixed(3);
const share = (part: number | undefined, whole: number | undefined) =>
  part === undefined || !whole ? '    -' : (part / whole).toFixed(2);
const seconds = (value: number | null) => (value === null ? '-' : value.toFixed(0));
const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);

interface RunSummary {
  variant: string;
  seed: number;
  runId: string;
  iterations: number;
  episodes: number;
  minutes: number;
  startEval: number | null;
  lastThreeEval: number | null;
  finalTrainReward: number | null;
  finalTrainTrueSuccess: number | null;
  finalEvalReward: number | null;
  finalEvalTrueSuccess: number | null;
  /** mean wall seconds of a training iteration (the held-out evaluations it carries included) */
  iterationS: number | null;
  /** mean seconds of the trainer's step per iteration (the critic's value loss included where there is one) */
  trainerS: number | null;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const minutes = Number(values.minutes);
  const seeds = values.seeds.split(',').map(Number);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const summaries: RunSummary[] = [];
  for (const variantName of values.variants.split(',')) {
    const variant = variants[variantName];
    if (!variant) throw new Error(`unknown variant ${variantName}; known: ${Object.keys(variants).join(', ')}`);
    for (const seed of seeds) {
      const runId = `learn-${variantName}-s${seed}-${stamp}`;
      log(`${runId}: ${minutes} min budget`);
      const started = Date.now();
      const result = await runTraining(
        config,
        {
          runId,
          seed,
          checker: variant.checker,
          sampling: { observations: variant.observations },
          credit: {
            ...(variant.estimator ? { estimator: variant.estimator } : {}),
            ...(variant.truncation ? { truncation: variant.truncation } : {}),
            stopCredit: Number(values['stop-credit']),
          },
          loss: {
            ...(variant.clipRatioC !== undefined ? { clipRatioC: variant.clipRatioC } : {}),
            ...(variant.lossMask ? { mask: variant.lossMask } : {}),
            klCoef: Number(values['kl-coef']),
          },
          ...(variant.lossMask ? { ablation: true } : {}),
          iterations: 10_000,
          timeBudgetMinutes: minutes,
          tasksPerIteration: 8,
          groupSize: 8,
          evaluation: {
            tasks: 'tasks/suite/heldout',
            limit: 0,
            samples: 4,
            every: Number(values['eval-every']),
            tail: Number(values['eval-tail']),
          },
          concurrency: Number(values.concurrency),
          optimizer: { lr: Number(values.lr), epochs: Number(values.epochs) },
          budgets: { maxTurns: variant.maxTurns ?? Number(values['max-turns']) },
          model: { ...defaultModelConfig, context: Number(values.context) },
          warmStart: { episodes: 128, epochs: 16 },
        },
        { policyPort: Number(values['policy-port']), json: false, log },
      );
      const metrics = readMetrics(join(localPathOf(result.runRef)!, 'metrics.jsonl'));
      printRun(runId, metrics);
      summaries.push(summarise(variantName, seed, runId, metrics, (Date.now() - started) / 60_000));
      // after every run, so a long invocation that is stopped keeps the runs it finished
      if (values.json) writeFileSync(values.json, JSON.stringify(summaries, null, 2));
    }
  }
  printSummary(summaries);
}

function readMetrics(path: string): IterationMetrics[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as IterationMetrics);
}

function printRun(runId: string, metrics: readonly IterationMetrics[]): void {
  console.log(`\n${runId}`);
  // submit|pass, submit|fail: how often the policy submitted right after a check that passed / failed
  console.log(
    '  it  episodes  train-reward  train-true  heldout-reward  heldout-true  tampered  submit|pass  submit|fail  wall-s',
  );
  let episodes = 0;
  for (const line of metrics) {
    episodes += (line.train?.episodes ?? 0) + (line.eval?.episodes ?? 0);
    console.log(
      `${String(line.iteration).padStart(4)}  ${String(episodes).padStart(8)}  ` +
        (`${fixed(line.train?.meanReward).padStart(12)}  ${fixed(line.train?.trueSuccess).padStart(10)}  ` +
          (`${fixed(line.eval?.meanReward).padStart(14)}  ${fixed(line.eval?.trueSuccess).padStart(12)}  ` +
            (`${String(line.train?.tampered ?? '-').padStart(8)}  ` +
              (`${share(line.train?.stops?.submittedAfterPass, line.train?.stops?.afterPass).padStart(11)}  ` +
                (`${share(line.train?.stops?.submittedAfterFail, line.train?.stops?.afterFail).padStart(11)}  ` +
                  `${line.time.wallS.toFixed(0).padStart(6)}`))))),
    );
  }
}

function summarise(
  variant: string,
  seed: number,
  runId: string,
  metrics: readonly IterationMetrics[],
  minutes: number,
): RunSummary {
  const evals = metrics.filter((line) => line.eval?.trueSuccess !== null && line.eval?.trueSuccess !== undefined);
  const trains = metrics.filter((line) => line.train);
  const lastTrains = trains.slice(-3);
  return {
    variant,
    seed,
    runId,
    minutes,
    iterations: trains.length,
    episodes: metrics.reduce((sum, line) => sum + (line.train?.episodes ?? 0) + (line.eval?.episodes ?? 0), 0),
    startEval: evals[0]?.eval?.trueSuccess ?? null,
    lastThreeEval: evals.length ? mean(evals.slice(-3).map((line) => line.eval!.trueSuccess!)) : null,
    finalTrainReward: lastTrains.length ? mean(lastTrains.map((line) => line.train!.meanReward ?? 0)) : null,
    finalTrainTrueSuccess: lastTrains.length ? mean(lastTrains.map((line) => line.train!.trueSuccess ?? 0)) : null,
    finalEvalReward: evals.at(-1)?.eval?.meanReward ?? null,
    finalEvalTrueSuccess: evals.at(-1)?.eval?.trueSuccess ?? null,
    iterationS: trains.length ? mean(trains.map((line) => line.time.wallS)) : null,
    trainerS: trains.length ? mean(trains.map((line) => line.time.trainingS)) : null,
  };
}

function printSummary(summaries: readonly RunSummary[]): void {
  console.log(
    '\nside by side (train: mean of the last three iterations; held-out: start, mean of the last three ' +
      'evaluations, final)',
  );
  console.log(
    'variant          seed  iters  episodes   min  train-reward  train-true  gap    heldout-start  heldout-last3  ' +
      'heldout-final-reward  heldout-final-true  iter-s  trainer-s',
  );
  for (const run of summaries) {
    const gap =
      run.finalTrainReward !== null && run.finalTrainTrueSuccess !== null
        ? run.finalTrainReward - run.finalTrainTrueSuccess
        : null;
    console.log(
      `${run.variant.padEnd(15)}  ${String(run.seed).padStart(4)}  ${String(run.iterations).padStart(5)}  ` +
        (`${String(run.episodes).padStart(8)}  ${run.minutes.toFixed(0).padStart(4)}  ` +
          (`${fixed(run.finalTrainReward).padStart(12)}  ${fixed(run.finalTrainTrueSuccess).padStart(10)}  ` +
            (`${fixed(gap)}  ${fixed(run.startEval).padStart(13)}  ${fixed(run.lastThreeEval).padStart(13)}  ` +
              (`${fixed(run.finalEvalReward).padStart(20)}  ${fixed(run.finalEvalTrueSuccess).padStart(18)}  ` +
                `${seconds(run.iterationS).padStart(6)}  ${seconds(run.trainerS).padStart(9)}`)))),
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`learning: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);

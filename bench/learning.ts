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
//
// A real model (--model smollm2-135m-instruct, shared/models.json): per seed one run under the strict
// checker on the curriculum (--tasks, --eval-tasks; default its `function` level, whose prompts name the
// function but not the line): held-out true success before the warm start (--before-seeds), after it
// (the warm start imitates demo:solve episodes, the training tasks' reference fixes), every --eval-every
// iterations and over the last three evaluations, with the episodes, tokens generated and trained, and
// each step's mismatch between the server's and the trainer's log-probs against the real-model test's
// bounds. --device cuda runs the trainer and the model server on a GPU (bf16 where it has it), falling
// back to the CPU with a warning where there is none.
//
//   node --import tsx bench/learning.ts --model smollm2-135m-instruct [--minutes 35] [--seeds 0,1]
//     [--tasks tasks/curriculum/function/train] [--eval-tasks tasks/curriculum/function/heldout]
//     [--tasks-per-iteration 4] [--group-size 4] [--concurrency 8] [--lr 1e-5] [--minibatches 2]
//     [--kl-coef 0.03] [--max-turns 3] [--warm-start-episodes 8 (a seeded sample of the training tasks)]
//     [--warm-start-epochs 2] [--warm-start-minibatches 4]
//     [--warm-start-lr 1e-4] [--eval-every 4] [--before-seeds 0] [--device auto|cpu|cuda] [--model-port 8102]
//
// Three turns: read the file with line numbers, fix the line, submit (the demonstrator drops its test
// run first when turns are short). At the `line` level (the prompt quotes the line) the warm start
// alone reached 0.875 held-out true success, which leaves RL little to show.

import { localPathOf } from '../activities/store/local-copy';
import { writeFileSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelConfig } from '../shared/contracts/run/model';
import { type IterationMetrics } from '../shared/contracts/run-metrics';
import { loadConfig } from '../workers/config';
import { runTraining } from '../cli/training';
import { mismatchBounds } from '../shared/contracts/trainer-contract';

const { values: given } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seeds: { type: 'string', default: '0,1' },
    variants: { type: 'string', default: 'strict,weak,blank' },
    json: { type: 'string' },
    'eval-every': { type: 'string' },
    'eval-tail': { type: 'string', default: '3' },
    concurrency: { type: 'string' },
    'policy-port': { type: 'string', default: '8100' },
    lr: { type: 'string' },
    epochs: { type: 'string', default: '4' },
    'kl-coef': { type: 'string' },
    'stop-credit': { type: 'string', default: '5' },
    'max-turns': { type: 'string' },
    context: { type: 'string', default: '768' },
    model: { type: 'string' },
    tasks: { type: 'string', default: 'tasks/curriculum/function/train' },
    'eval-tasks': { type: 'string', default: 'tasks/curriculum/function/heldout' },
    'tasks-per-iteration': { type: 'string', default: '4' },
    'group-size': { type: 'string', default: '4' },
    'warm-start-episodes': { type: 'string' },
    'warm-start-epochs': { type: 'string', default: '2' },
    'warm-start-minibatches': { type: 'string', default: '4' },
    minibatches: { type: 'string', default: '2' },
    'warm-start-lr': { type: 'string', default: '1e-4' },
    'before-seeds': { type: 'string', default: '0' },
    device: { type: 'string', default: 'auto' },
    'model-port': { type: 'string', default: '8102' },
  },
});
// the toy model's defaults, and a real model's where they differ
const values = {
  ...given,
  minutes: given.minutes ?? (given.model ? '35' : '60'),
  'eval-every': given['eval-every'] ?? (given.model ? '4' : '10'),
  concurrency: given.concurrency ?? (given.model ? '8' : '4'),
  lr: given.lr ?? (given.model ? '1e-5' : '1e-3'),
  'kl-coef': given['kl-coef'] ?? '0.03',
  'max-turns': given['max-turns'] ?? (given.model ? '3' : '12'),
};

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
  if (values.model) return modelMain(values.model);
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

interface ModelRunSummary {
  seed: number;
  runId: string;
  iterations: number;
  episodes: number;
  minutes: number;
  /** held-out true success before the warm start (null: not evaluated in this run), after it, the last three */
  before: number | null;
  afterWarmStart: number | null;
  lastThree: number | null;
  finalTrainReward: number | null;
  finalTrainTrueSuccess: number | null;
  /** episodes whose reward and true success differ (a forged or a missed grade), over the whole run */
  rewardTrueGaps: number;
  generatedTokens: number;
  trainedTokens: number;
  maxMismatchDev: number | null;
  maxMismatchKl: number | null;
  mismatchWithinBounds: boolean;
}

/** The real model's learning runs: warm start, then RL, one run per seed (see the header). */
async function modelMain(model: string): Promise<void> {
  const config = loadConfig();
  const minutes = Number(values.minutes);
  const seeds = values.seeds.split(',').map(Number);
  const beforeSeeds = new Set(values['before-seeds'].split(',').filter(Boolean).map(Number));
  const device = values.device;
  if (!['auto', 'cpu', 'cuda'].includes(device)) throw new Error(`--device: auto, cpu or cuda, not ${device}`);
  // the trainer and the model server read it when they start (trainer/agentrl_trainer/devices.py, serving/causal-lm.ts)
  process.env.AGENTRL_DEVICE = device;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const summaries: ModelRunSummary[] = [];
  for (const seed of seeds) {
    const runId = `learn-${model}-s${seed}-${stamp}`;
    log(`${runId}: ${minutes} min budget, device ${device}`);
    const started = Date.now();
    const result = await runTraining(
      config,
      {
        runId,
        seed,
        model: { name: model },
        checker: 'strict',
        tasks: values.tasks,
        iterations: 10_000,
        timeBudgetMinutes: minutes,
        tasksPerIteration: Number(values['tasks-per-iteration']),
        groupSize: Number(values['group-size']),
        concurrency: Number(values.concurrency),
        evaluation: {
          tasks: values['eval-tasks'],
          limit: 0,
          samples: 1,
          every: Number(values['eval-every']),
          tail: Number(values['eval-tail']),
          beforeWarmStart: beforeSeeds.has(seed),
        },
        optimizer: { lr: Number(values.lr), epochs: 1, minibatches: Number(values.minibatches) },
        budgets: { maxTurns: Number(values['max-turns']) },
        loss: { klCoef: Number(values['kl-coef']) },
        // the last step's checkpoint and the warm start's (the KL anchor): a step's is about 1.5 GB
        keepCheckpoints: 1,
        // demonstrations of a seeded sample of 8 training tasks (half a curriculum level's 16), each imitated `epochs`
        // times
        warmStart: {
          episodes: Number(values['warm-start-episodes'] ?? Math.min(8, taskFolders(values.tasks).length)),
          epochs: Number(values['warm-start-epochs']),
          minibatches: Number(values['warm-start-minibatches']),
          lr: Number(values['warm-start-lr']),
        },
      },
      { policyPort: Number(values['policy-port']), modelPort: Number(values['model-port']), json: false, log },
    );
    const metrics = readMetrics(join(localPathOf(result.runRef)!, 'metrics.jsonl'));
    printModelRun(runId, metrics);
    summaries.push(summariseModelRun(seed, runId, metrics, (Date.now() - started) / 60_000));
    if (values.json) writeFileSync(values.json, JSON.stringify(summaries, null, 2));
  }
  printModelSummary(model, summaries);
}

/** The task folders (with task.yaml) directly under a folder. */
function taskFolders(dir: string): string[] {
  if (!existsSync(dir)) throw new Error(`${dir} does not exist (python3 tasks/generate_curriculum.py writes it)`);
  return readdirSync(dir).filter((name) => existsSync(join(dir, name, 'task.yaml')));
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

function printModelRun(runId: string, metrics: readonly IterationMetrics[]): void {
  console.log(`\n${runId}`);
  console.log(
    '  it  episodes  train-reward  train-true  heldout-reward  heldout-true  generated  trained  ' +
      'mismatch-dev  mismatch-kl  wall-s',
  );
  let episodes = 0;
  for (const line of metrics) {
    episodes += (line.train?.episodes ?? 0) + (line.eval?.episodes ?? 0);
    const mismatch = line.training?.mismatch;
    console.log(
      `${(line.iteration === -1 ? 'warm' : String(line.iteration)).padStart(4)}  ${String(episodes).padStart(8)}  ` +
        (`${fixed(line.train?.meanReward).padStart(12)}  ${fixed(line.train?.trueSuccess).padStart(10)}  ` +
          (`${fixed(line.eval?.meanReward).padStart(14)}  ${fixed(line.eval?.trueSuccess).padStart(12)}  ` +
            (`${String(line.batch?.generatedTokens ?? '-').padStart(9)}  ${String(line.batch?.tokens ?? '-').padStart(7)}  ` +
              (`${mismatch ? mismatch.meanAbsRatioDev.toExponential(1).padStart(12) : '           -'}  ` +
                (`${mismatch ? mismatch.kl.toExponential(1).padStart(11) : '          -'}  ` +
                  `${line.time.wallS.toFixed(0).padStart(6)}`))))),
    );
  }
}

function summariseModelRun(
  seed: number,
  runId: string,
  metrics: readonly IterationMetrics[],
  minutes: number,
): ModelRunSummary {
  const warm = metrics.find((line) => line.iteration === -1);
  const evals = metrics.filter(
    (line) => line.iteration >= 0 && line.eval?.trueSuccess !== null && line.eval?.trueSuccess !== undefined,
  );
  // the first evaluation after the warm start is iteration 0's, before its step
  const afterWarmStart = metrics.find((line) => line.iteration === 0)?.eval?.trueSuccess ?? null;
  const trains = metrics.filter((line) => line.iteration >= 0 && line.train);
  const lastTrains = trains.slice(-3);
  // imitation steps are trained on the demonstrator's tokens, whose log-probs no server gave
  const policySteps = metrics.filter((line) => line.iteration >= 0 && line.training?.mismatch);
  const devs = policySteps.map((line) => line.training!.mismatch!.meanAbsRatioDev);
  const kls = policySteps.map((line) => Math.abs(line.training!.mismatch!.kl));
  const gaps = metrics.reduce(
    (sum, line) => sum + (line.iteration >= 0 ? (line.train?.rewardTrueGap ?? 0) + (line.eval?.rewardTrueGap ?? 0) : 0),
    0,
  );
  return {
    seed,
    runId,
    minutes,
    iterations: trains.length,
    episodes: metrics.reduce((sum, line) => sum + (line.train?.episodes ?? 0) + (line.eval?.episodes ?? 0), 0),
    before: warm?.eval?.trueSuccess ?? null,
    afterWarmStart,
    lastThree:
      evals.length > 1
        ? mean(
            evals
              .slice(1)
              .slice(-3)
              .map((line) => line.eval!.trueSuccess!),
          )
        : null,
    finalTrainReward: lastTrains.length ? mean(lastTrains.map((line) => line.train!.meanReward ?? 0)) : null,
    finalTrainTrueSuccess: lastTrains.length ? mean(lastTrains.map((line) => line.train!.trueSuccess ?? 0)) : null,
    rewardTrueGaps: gaps,
    generatedTokens: metrics.reduce((sum, line) => sum + (line.batch?.generatedTokens ?? 0), 0),
    trainedTokens: metrics.reduce((sum, line) => sum + (line.batch?.tokens ?? 0), 0),
    maxMismatchDev: devs.length ? Math.max(...devs) : null,
    maxMismatchKl: kls.length ? Math.max(...kls) : null,
    mismatchWithinBounds:
      devs.every((dev) => dev <= mismatchBounds.meanAbsRatioDev) && kls.every((kl) => kl <= mismatchBounds.kl),
  };
}

function printModelSummary(model: string, summaries: readonly ModelRunSummary[]): void {
  console.log(
    `\n${model}, strict checker (held-out true success: before the warm start, after it, mean of the last three ` +
      'evaluations after it; train: mean of the last three iterations)',
  );
  console.log(
    'seed  iters  episodes   min  before  after-warm  last3   gain   train-reward  train-true  reward≠true  ' +
      'generated  trained  max-mismatch-dev  max-mismatch-kl  within-bounds',
  );
  for (const run of summaries) {
    const gain = run.lastThree !== null && run.afterWarmStart !== null ? run.lastThree - run.afterWarmStart : null;
    console.log(
      `${String(run.seed).padStart(4)}  ${String(run.iterations).padStart(5)}  ${String(run.episodes).padStart(8)}  ` +
        (`${run.minutes.toFixed(0).padStart(4)}  ${fixed(run.before).padStart(6)}  ${fixed(run.afterWarmStart).padStart(10)}  ` +
          (`${fixed(run.lastThree)}  ${fixed(gain).padStart(6)}  ${fixed(run.finalTrainReward).padStart(12)}  ` +
            (`${fixed(run.finalTrainTrueSuccess).padStart(10)}  ${String(run.rewardTrueGaps).padStart(11)}  ` +
              (`${String(run.generatedTokens).padStart(9)}  ${String(run.trainedTokens).padStart(7)}  ` +
                (`${(run.maxMismatchDev?.toExponential(1) ?? '-').padStart(16)}  ` +
                  `${(run.maxMismatchKl?.toExponential(1) ?? '-').padStart(15)}  ${run.mismatchWithinBounds ? 'yes' : 'NO'}`))))),
    );
  }
  console.log(
    `mismatch bounds (the real-model test's): mean |r - 1| <= ${mismatchBounds.meanAbsRatioDev}, |KL| <= ${mismatchBounds.kl}`,
  );
}

function summarise(
  variant: string,
  seed: number,
  runId: string,
  metrics: readonly IterationMetrics[],
  minutes: number,
): RunSummary {
  const evals = metrics.filter(
    (line) => line.iteration >= 0 && line.eval?.trueSuccess !== null && line.eval?.trueSuccess !== undefined,
  );
  // the warm start's line (iteration -1) holds the demonstrations, not the policy's episodes
  const trains = metrics.filter((line) => line.train && line.iteration >= 0);
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

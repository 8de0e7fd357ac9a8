import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CheckerKinds } from '../../shared/contracts/episode';
import { ObservationModes } from '../../shared/contracts/model-context';
import { modelNames } from '../../shared/names/models';
import { servingPorts } from '../../shared/names/serving-ports';
import { OffPolicyModes } from '../../shared/math/off-policy';
import { loadConfig } from '../../workers/config';
import { log, nonNegativeInt, oneOf, positiveInt, type Command } from '../command';
import { runTraining } from '../training';
import { harnessFlag } from '../harness-flag';
import { localPathOf } from '../../activities/store/local-copy';
import { runInputWithNewNames } from '../../shared/contracts/run/input';

export const train: Command = {
  summary: 'the main job: a training run (trainingRun workflow): sample episodes, score, train, publish, repeat',
  usage: [
    'Usage: npx agentrl train [--input FILE.json] [options]',
    '',
    'Starts a trainingRun workflow (and the dev server, an episode worker, the Python trainer worker and the',
    'embedded policy server when they do not run) and follows it: a progress line while episodes run, one table',
    'row per iteration, the report at the end (runs/<run>/report.md under the artifacts folder). Every field of',
    'the run has a default: with no options it is a short run on the bundled suite. Ctrl-C (or SIGTERM) cancels',
    'the run cleanly; --resume continues it from its last completed step.',
    '',
    'Options (each sets the trainingRun input field in brackets; --input gives the whole object as JSON):',
    '  --input FILE.json         the trainingRun input (its blocks, or the flat fields of before); the options',
    '                            below override its fields',
    `  --model NAME              [model.name] ${modelNames.join(', ')}   default toy`,
    '                            a real model trains from its prepared weights, is served by its embedded server',
    `                            (port ${servingPorts.model}, started when none runs) and takes its presets ` +
      `(shared/models.json)`,
    '                            for the fields the input leaves out',
    '  --iterations N            [iterations]              default 2',
    '  --tasks DIR               [tasks]                   default tasks/suite/train',
    "  --eval-tasks DIR          [evaluation.tasks] ('' for none) default tasks/suite/heldout",
    '  --tasks-per-iteration N   [tasksPerIteration]       default 4',
    '  --group-size N            [groupSize]               default 4',
    '  --checker strict|weak     [checker]                 default strict',
    '  --observations full|blank [sampling.observations]   default full',
    '  --warm-start N            [warmStart.episodes]      default 16 format demonstrations',
    '  --seed N                  [seed]                    default 0',
    '  --mode sync|async         [mode]                    default sync (async: sampling never waits for training)',
    '  --max-staleness N         [async.maxStaleness] async only   default 2',
    '  --off-policy MODE         [loss.offPolicy] none, tis or decoupled   default none',
    '  --segment-turns N         [async.segment.maxTurns] async: park episodes every N turns   default none',
    '  --harness NAME            [harness] an agent harness (shared/harnesses.json) run unmodified in each sandbox,',
    '                            calling the policy through the model gateway   default none (the built-in loop)',
    '  --run-id ID               [runId]                   default train-<time>',
    "  --resume ID               continue run ID (its manifest's input) from its last completed step",
    `  --policy-port N           port of the embedded policy server   default ${servingPorts.trainingPolicy}`,
    `  --model-port N            port of a real model's embedded server   default ${servingPorts.model}`,
    '  --json                    print the result as one JSON object',
  ].join('\n'),
  options: {
    input: { type: 'string' },
    model: { type: 'string' },
    iterations: { type: 'string' },
    tasks: { type: 'string' },
    'eval-tasks': { type: 'string' },
    'tasks-per-iteration': { type: 'string' },
    'group-size': { type: 'string' },
    checker: { type: 'string' },
    observations: { type: 'string' },
    'warm-start': { type: 'string' },
    seed: { type: 'string' },
    mode: { type: 'string' },
    'max-staleness': { type: 'string' },
    'off-policy': { type: 'string' },
    'segment-turns': { type: 'string' },
    harness: { type: 'string' },
    'run-id': { type: 'string' },
    resume: { type: 'string' },
    'policy-port': { type: 'string' },
    'model-port': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const config = loadConfig();
    let input: Record<string, unknown> = {};
    if (values.input) {
      const path = resolve(values.input as string);
      if (!existsSync(path)) throw new Error(`--input: ${path} does not exist`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new Error(`--input: ${path} is not JSON: ${(error as Error).message}`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error(`--input: ${path} must hold one JSON object (the trainingRun input)`);
      // flat fields of before are read into their blocks first, so that an option overrides either form
      input = runInputWithNewNames(parsed as Record<string, unknown>, `--input ${path}`);
    }
    const count = (flag: string, allowZero = false) =>
      (allowZero ? nonNegativeInt : positiveInt)(`--${flag}`, values[flag] as string);
    if (values.model !== undefined) {
      const name = values.model as string;
      if (!modelNames.includes(name))
        throw new Error(`--model: unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`);
      input.model = name === 'toy' ? { ...(input.model as object | undefined), name } : { name };
    }
    if (values.iterations !== undefined) input.iterations = count('iterations');
    if (values.tasks !== undefined) input.tasks = resolve(values.tasks as string);
    if (values['eval-tasks'] !== undefined)
      setIn(input, 'evaluation', { tasks: values['eval-tasks'] === '' ? '' : resolve(values['eval-tasks'] as string) });
    if (values['tasks-per-iteration'] !== undefined) input.tasksPerIteration = count('tasks-per-iteration');
    if (values['group-size'] !== undefined) input.groupSize = count('group-size');
    if (values.harness !== undefined) input.harness = harnessFlag(values.harness as string);
    if (values.checker !== undefined) input.checker = oneOf('--checker', values.checker as string, CheckerKinds);
    if (values.observations !== undefined)
      setIn(input, 'sampling', {
        observations: oneOf('--observations', values.observations as string, ObservationModes),
      });
    if (values['warm-start'] !== undefined) setIn(input, 'warmStart', { episodes: count('warm-start', true) });
    if (values.seed !== undefined) input.seed = count('seed', true);
    if (values.mode !== undefined) input.mode = oneOf('--mode', values.mode as string, ['sync', 'async'] as const);
    if (values['max-staleness'] !== undefined) setIn(input, 'async', { maxStaleness: count('max-staleness', true) });
    if (values['off-policy'] !== undefined)
      setIn(input, 'loss', { offPolicy: oneOf('--off-policy', values['off-policy'] as string, OffPolicyModes) });
    if (values['segment-turns'] !== undefined) {
      const block = (input.async ?? {}) as Record<string, unknown>;
      setIn(input, 'async', {
        segment: { ...(block.segment as object | undefined), maxTurns: count('segment-turns') },
      });
    }
    if (values['run-id'] !== undefined) input.runId = values['run-id'];
    const policyPort =
      values['policy-port'] === undefined
        ? servingPorts.trainingPolicy
        : positiveInt('--policy-port', values['policy-port'] as string);
    const modelPort =
      values['model-port'] === undefined
        ? servingPorts.model
        : positiveInt('--model-port', values['model-port'] as string);
    const result = await runTraining(config, input, {
      ...(values.resume ? { resume: values.resume as string } : {}),
      policyPort,
      modelPort,
      json: Boolean(values.json),
      log,
    });
    if (values.json) console.log(JSON.stringify(result));
    else
      console.log(
        [
          `run ${result.runId}: ${result.steps} step(s), policy ${result.policyVersion}`,
          `  report: ${localPathOf(result.reportRef) ?? result.reportRef}`,
          ...shortRunNote(result.steps),
        ].join('\n'),
      );
    return 0;
  },
};

/**
 * The learning bench's shortest documented run that shows learning (docs/benchmarks.md, "Credit finer than the
 * episode", GRPO seed 0): its command, wall time and held-out true success. Its runs took 5–6 trainer steps (the
 * warm start's, then 4–5 iterations of 64 episodes); a run of fewer can show the loop working, not learning.
 */
export const learningEvidence = {
  command: 'npm run bench:learning -- --minutes 12 --seeds 0 --variants strict --eval-every 3',
  minutes: '13–14',
  heldOutStart: 0.094,
  heldOutLastThree: 0.354,
  steps: 5,
};

/** The closing lines of a run too short to show learning: what it did show, and where learning shows. */
export function shortRunNote(steps: number): string[] {
  if (steps >= learningEvidence.steps) return [];
  const { command, minutes, heldOutStart, heldOutLastThree } = learningEvidence;
  return [
    '',
    `A run this short (${steps} trainer steps) exercises the whole loop end to end: episodes in containers,`,
    'scoring, trainer steps, the new weights published and served. It cannot show learning: the rewards of a',
    'few episodes move by chance from one iteration to the next. Learning shows in',
    `  ${command}`,
    `(about ${minutes} minutes on 2 cores; held-out true success rose from ${heldOutStart.toFixed(2)} to ` +
      `${heldOutLastThree.toFixed(2)},`,
    'the mean of its last three evaluations: docs/benchmarks.md).',
  ];
}

/** Sets fields of one block of the input, keeping the block's other fields. */
function setIn(input: Record<string, unknown>, block: string, fields: Record<string, unknown>): void {
  input[block] = { ...(input[block] as object | undefined), ...fields };
}

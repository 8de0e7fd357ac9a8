import { readdirSync } from 'node:fs';
import { isTaskFolder } from '../activities/tasks/task-loader';
import { join, relative } from 'node:path';
import type { Client } from '@temporalio/client';
import type { CheckerKind, EpisodeResult } from '../shared/contracts/episode';
import { mean, passAtK } from '../shared/math/metrics';
import { environmentFailures } from '../shared/contracts/outcomes';
import type { LoadedConfig } from '../workers/config';
import { runEpisode, withConfigDefaults } from './episode-runner';
import { printTable } from './table';
import { runMany } from './run-many';

/** Every task folder below `root` (task.yaml, or a Harbor folder's task.toml), sorted. */
export function findTaskFolders(root: string): string[] {
  if (isTaskFolder(root)) return [root];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => findTaskFolders(join(root, entry.name)))
    .sort();
}

export interface TaskEvaluation {
  task: string;
  samples: number;
  correct: number;
  environmentFailures: number;
  passAtK: number | null;
  meanReward: number | null;
  meanTrueSuccess: number | null;
}

/** pass@k and means of one task's episodes; environment failures are not samples. */
export function evaluateTask(task: string, results: readonly EpisodeResult[], k: number): TaskEvaluation {
  const valid = results.filter((result) => !environmentFailures.includes(result.outcome));
  const correct = valid.filter((result) => result.trueSuccess === true).length;
  return {
    task,
    samples: valid.length,
    correct,
    environmentFailures: results.length - valid.length,
    passAtK: valid.length >= k ? passAtK(valid.length, correct, k) : null,
    meanReward: valid.length ? mean(valid.map((result) => result.reward ?? 0)) : null,
    meanTrueSuccess: valid.length ? mean(valid.map((result) => (result.trueSuccess ? 1 : 0))) : null,
  };
}

/** Runs `samples` episodes of a policy on every task under a folder and reports pass@k of true success. */
export async function runEvaluation(
  client: Client,
  config: LoadedConfig,
  options: { policy: string; tasks: string; k: number; samples: number; checker: CheckerKind; json: boolean },
  log: (line: string) => void,
): Promise<number> {
  const tasks = findTaskFolders(options.tasks);
  if (tasks.length === 0)
    throw new Error(`--tasks: no task folder (with task.yaml or task.toml) under ${options.tasks}`);
  const stamp = Date.now().toString(36);
  const jobs = tasks.flatMap((task) => Array.from({ length: options.samples }, (_, sample) => ({ task, sample })));
  const results = await runMany(
    jobs.length,
    3,
    (index) => {
      const { task, sample } = jobs[index]!;
      const input = withConfigDefaults(config, {
        task,
        policy: options.policy,
        checker: options.checker,
        runId: `eval-${stamp}`,
      });
      return runEpisode(client, input, `eval-${stamp}-${index}-${sample}`);
    },
    (_, done) => log(`[${done}/${jobs.length}] episodes finished`),
  );
  const failed = results.filter((result) => result instanceof Error);
  if (failed.length) throw new Error(`${failed.length} episode(s) failed to run: ${(failed[0] as Error).message}`);
  const evaluations = tasks.map((task) =>
    evaluateTask(
      relative(options.tasks, task) || task,
      results.filter((_, index) => jobs[index]!.task === task) as EpisodeResult[],
      options.k,
    ),
  );
  const scored = evaluations.filter((evaluation) => evaluation.passAtK !== null);
  const summary = {
    policy: options.policy,
    checker: options.checker,
    k: options.k,
    tasks: evaluations.length,
    [`passAt${options.k}`]: mean(scored.map((evaluation) => evaluation.passAtK!)),
    meanTrueSuccess: mean(scored.map((evaluation) => evaluation.meanTrueSuccess!)),
    meanReward: mean(scored.map((evaluation) => evaluation.meanReward!)),
    environmentFailures: evaluations.reduce((sum, evaluation) => sum + evaluation.environmentFailures, 0),
  };
  if (options.json) {
    console.log(JSON.stringify({ summary, tasks: evaluations }, null, 2));
  } else {
    const format = (value: number | null) => (value === null ? '-' : value.toFixed(3));
    printTable(
      ['task', 'samples', 'correct', `pass@${options.k}`, 'reward', 'true success'],
      evaluations.map((evaluation) => [
        evaluation.task,
        String(evaluation.samples),
        String(evaluation.correct),
        format(evaluation.passAtK),
        format(evaluation.meanReward),
        format(evaluation.meanTrueSuccess),
      ]),
    );
    console.log(
      `\npass@${options.k} ${format(summary[`passAt${options.k}`] as number)}, mean true success ` +
        (`${format(summary.meanTrueSuccess)}, mean reward ${format(summary.meanReward)} over ${summary.tasks} ` +
          `task(s) (${options.checker} checker)`),
    );
  }
  return 0;
}

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { formatPolicySpec } from '../shared/contracts/policy-spec';
import { projectRoot, type LoadedConfig } from '../workers/config';
import { runEpisode, withConfigDefaults } from './episode-runner';
import { runMany } from './run-many';
import { printTable } from './table';

interface Example {
  task: string;
  policy: string;
  checker: 'strict' | 'weak';
}

/** The bundled examples: every task's scripted fix, and reward hacks under both checkers. */
export function bundledExamples(root: string = projectRoot): Example[] {
  const examples: Example[] = [];
  const tasks = readdirSync(join(root, 'tasks'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const task of tasks) {
    if (existsSync(join(root, 'examples', 'policies', task, 'fix.jsonl')))
      examples.push({ task, policy: 'fix', checker: 'strict' });
  }
  for (const hack of ['edit-tests', 'conftest-force-pass']) {
    if (!existsSync(join(root, 'examples', 'policies', 'off-by-one-range', `${hack}.jsonl`))) continue;
    for (const checker of ['weak', 'strict'] as const)
      examples.push({ task: 'off-by-one-range', policy: hack, checker });
  }
  return examples;
}

/** Runs the examples a few at a time and prints a table (or JSON lines). */
export async function runExamples(
  client: Client,
  config: LoadedConfig,
  json: boolean,
  log: (line: string) => void,
): Promise<number> {
  const examples = bundledExamples();
  const stamp = Date.now().toString(36);
  // three at a time: each episode starts up to three containers on a 2-core machine
  const results = await runMany(
    examples.length,
    3,
    (index) => {
      const example = examples[index]!;
      const input = withConfigDefaults(config, {
        task: join(projectRoot, 'tasks', example.task),
        policy: formatPolicySpec({
          kind: 'scripted',
          file: join(projectRoot, 'examples', 'policies', example.task, `${example.policy}.jsonl`),
        }),
        checker: example.checker,
        runId: `examples-${stamp}`,
      });
      return runEpisode(
        client,
        input,
        `examples-${stamp}-${index}-${example.task}-${example.policy}-${example.checker}`,
      );
    },
    (index, done) =>
      log(
        `[${done}/${examples.length}] ${examples[index]!.task} ${examples[index]!.policy} ` +
          `(${examples[index]!.checker}) finished`,
      ),
  );
  if (json) {
    for (const result of results)
      console.log(JSON.stringify(result instanceof Error ? { error: result.message } : result));
  } else {
    const rows = examples.map((example, index) => {
      const result = results[index]!;
      if (result instanceof Error)
        return [example.task, example.policy, example.checker, 'error', '-', '-', '-', result.message.slice(0, 60)];
      const kinds = [...new Set(result.tamper.map((finding) => finding.kind))].join(',') || '-';
      return [
        example.task,
        example.policy,
        example.checker,
        result.outcome,
        String(result.reward),
        String(result.trueSuccess),
        String(result.counters.turns),
        kinds,
      ];
    });
    printTable(['task', 'policy', 'checker', 'outcome', 'reward', 'true success', 'turns', 'tamper'], rows);
  }
  return results.some((result) => result instanceof Error) ? 1 : 0;
}

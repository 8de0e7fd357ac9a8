import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CheckerKinds } from '../../shared/contracts/episode';
import { loadConfig } from '../../workers/config';
import { log, oneOf, positiveInt, type Command } from '../command';
import { connectWithWorker } from '../episode-runner';
import { runEvaluation } from '../evaluation';
import { policyFlag } from '../policy-flag';
import { servingPorts } from '../../shared/names/serving-ports';

export const evaluate: Command = {
  summary: 'measure pass@k of true success, mean true success and mean reward of a policy on a task set',
  usage: [
    'Usage: npx agentrl eval --policy SPEC --tasks DIR [-k N] [--samples N] [--checker strict|weak] [--json]',
    '',
    'Runs --samples episodes of the policy on every task folder under DIR and prints, per task and overall,',
    'pass@k of true success (the audit), mean true success and mean reward by the chosen checker.',
    'Environment failures are reported and not counted as samples.',
    '',
    'Options:',
    '  --policy SPEC         required: scripted:FILE.jsonl, completions:URL[#VERSION] (any vLLM-compatible server),',
    `                        demo:format, random:, or FILE.onnx (a policy version, e.g. .agentrl/artifacts/runs/RUN/`,
    '                        policies/v3/policy.onnx, served by an embedded policy server on port ' +
      `${servingPorts.exportedPolicy})`,
    '  --tasks DIR           required: a folder holding task folders (any depth)',
    '  -k N                  pass@k                                   default: 1',
    '  --samples N           episodes per task (at least k)           default: k',
    '  --checker KIND        strict or weak                           default: strict',
    '  --json                print the summary and the per-task figures as JSON',
  ].join('\n'),
  options: {
    policy: { type: 'string' },
    tasks: { type: 'string' },
    k: { type: 'string', short: 'k' },
    samples: { type: 'string' },
    checker: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    if (!values.policy) throw new Error('eval: --policy is required (e.g. scripted:FILE.jsonl)');
    if (!values.tasks || !existsSync(resolve(values.tasks as string)))
      throw new Error(`eval: --tasks must name an existing folder, got ${JSON.stringify(values.tasks ?? null)}`);
    const k = values.k === undefined ? 1 : positiveInt('-k', values.k as string);
    const samples = values.samples === undefined ? k : positiveInt('--samples', values.samples as string);
    if (samples < k) throw new Error(`eval: --samples (${samples}) must be at least k (${k})`);
    const checker = oneOf('--checker', (values.checker as string | undefined) ?? 'strict', CheckerKinds);
    const config = loadConfig();
    const policy = await policyFlag(config, values.policy as string, log);
    const { client, close } = await connectWithWorker(config, log);
    try {
      return await runEvaluation(
        client,
        config,
        { policy, tasks: resolve(values.tasks as string), k, samples, checker, json: Boolean(values.json) },
        log,
      );
    } finally {
      await close();
    }
  },
};

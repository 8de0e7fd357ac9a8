import { harnessFlag } from '../harness-flag';
import { existsSync } from 'node:fs';
import { localPathOf } from '../../activities/store/local-copy';
import { resolve } from 'node:path';
import { CheckerKinds } from '../../shared/contracts/episode';
import { loadConfig } from '../../workers/config';
import { durationFlag, log, oneOf, positiveInt, type Command } from '../command';
import { connectWithWorker, runEpisode, withConfigDefaults } from '../episode-runner';
import { policyFlag } from '../policy-flag';
import { ensureModelServer } from '../services/serving';
import { knownModel } from '../../shared/names/models';
import { servingPorts } from '../../shared/names/serving-ports';
import { loadChatTokenizer } from '../../activities/policies/chat/chat-tokenizer';

export const episode: Command = {
  summary: 'run one episode and print its outcome, reward and true success',
  usage: [
    'Usage: npx agentrl episode [--task DIR] [--policy SPEC] [options]',
    '',
    'Runs one rolloutEpisode workflow (starting the dev server and a worker when none runs) and prints its result.',
    '',
    'Options:',
    '  --task DIR            task folder (task.yaml, or a Harbor task.toml)          default: tasks/wrong-comparison',
    '  --policy SPEC         scripted:FILE.jsonl, completions:URL[#VERSION], demo:format, random: or FILE.onnx;',
    '                        chat models: vllm:URL[#VERSION], sglang:URL[#VERSION], tokens:FILE.jsonl, demo:tools',
    '                                                                                 default: the example ' +
      "task's scripted fix",
    '  --model NAME          a real model of shared/models.json (smollm2-135m-instruct), served by an',
    `                        embedded server at port ${servingPorts.model} and driven through vllm:; its presets set`,
    '                        --max-turns, --max-action-tokens and the observation limit unless given',
    '                                                                                 default: none (--policy)',
    `  --model-port N        the port of that embedded server                         default: ${servingPorts.model}`,
    '  --tokenizer NAME|DIR  chat policies: smollm2-135m-instruct, qwen3, or a folder with tokenizer.json',
    '                        and tokenizer_config.json                                default: smollm2-135m-instruct',
    '  --max-action-tokens N chat policies: the most tokens one turn may generate     default: 512',
    '  --checker KIND        strict (fresh container, hidden tests) or weak           default: strict ' +
      '(temporal.yaml may set another)',
    "  --max-turns N         turn budget                                              default: the task's, else 50",
    "  --max-tokens N        token budget                                             default: the task's, else 262144",
    '  --timeout DURATION    acting-time deadline with its unit: 90s, 10m, 1h         default: 10m',
    '  --segment-turns N     park after every N turns until resumed                   default: never park',
    '                        (npx agentrl episode resume WORKFLOW_ID, from another terminal)',
    '  --harness NAME        run this agent harness (shared/harnesses.json) unmodified in the sandbox, calling   ',
    '                        the policy (a chat policy) through the model gateway       default: none',
    '  --workflow-id ID      workflow id                                              default: episode-<time>-<random>',
    '  --json                print the result as one JSON object',
  ].join('\n'),
  options: {
    task: { type: 'string' },
    policy: { type: 'string' },
    model: { type: 'string' },
    'model-port': { type: 'string' },
    tokenizer: { type: 'string' },
    'max-action-tokens': { type: 'string' },
    checker: { type: 'string' },
    'max-turns': { type: 'string' },
    'max-tokens': { type: 'string' },
    timeout: { type: 'string' },
    'segment-turns': { type: 'string' },
    harness: { type: 'string' },
    'workflow-id': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const config = loadConfig();
    const budgets: Record<string, number> = {};
    if (values['max-turns'] !== undefined) budgets.maxTurns = positiveInt('--max-turns', values['max-turns'] as string);
    if (values['max-tokens'] !== undefined)
      budgets.maxTokens = positiveInt('--max-tokens', values['max-tokens'] as string);
    if (values.timeout !== undefined) budgets.deadlineMs = durationFlag('--timeout', values.timeout as string);
    const checker =
      values.checker === undefined ? undefined : oneOf('--checker', values.checker as string, CheckerKinds);
    const task = values.task === undefined ? undefined : resolve(values.task as string);
    if (task !== undefined && !existsSync(task)) throw new Error(`--task: ${task} does not exist`);
    let policy = values.policy === undefined ? undefined : await policyFlag(config, values.policy as string, log);
    const chat: Record<string, unknown> = {};
    if (values.model !== undefined) {
      const name = values.model as string;
      const entry = knownModel(name);
      if (entry.kind !== 'hf-causal-lm')
        throw new Error(`--model: ${name} is the embedded default; name its weights with --policy FILE.onnx instead`);
      if (values.policy !== undefined) throw new Error('--model and --policy both name the policy: give one');
      if (values.tokenizer !== undefined && values.tokenizer !== entry.tokenizer)
        throw new Error(`--tokenizer: ${name} uses the tokenizer ${entry.tokenizer}`);
      const port =
        values['model-port'] === undefined ? undefined : positiveInt('--model-port', values['model-port'] as string);
      policy = `vllm:${await ensureModelServer(config, name, log, port)}`;
      chat.tokenizer = entry.tokenizer;
      const presets = entry.presets ?? {};
      if (presets.sampling?.chat?.maxActionTokens !== undefined)
        chat.maxActionTokens = presets.sampling.chat.maxActionTokens;
      if (budgets.maxTurns === undefined && presets.budgets?.maxTurns !== undefined)
        budgets.maxTurns = presets.budgets.maxTurns;
      if (budgets.maxObservationBytes === undefined && presets.budgets?.maxObservationBytes !== undefined)
        budgets.maxObservationBytes = presets.budgets.maxObservationBytes;
    }
    const segment =
      values['segment-turns'] === undefined
        ? undefined
        : { maxTurns: positiveInt('--segment-turns', values['segment-turns'] as string) };
    if (values.tokenizer !== undefined) {
      const name = values.tokenizer as string;
      // a folder is made absolute (the worker's directory is not the caller's); a family name is checked here
      chat.tokenizer = existsSync(name) ? resolve(name) : name;
      loadChatTokenizer(chat.tokenizer as string);
    }
    if (values['max-action-tokens'] !== undefined)
      chat.maxActionTokens = positiveInt('--max-action-tokens', values['max-action-tokens'] as string);
    const sampling = Object.keys(chat).length > 0 ? { sampling: { chat } } : {};
    const input = withConfigDefaults(config, {
      ...(task ? { task } : {}),
      ...(policy ? { policy } : {}),
      ...(checker ? { checker } : {}),
      ...(segment ? { segment } : {}),
      ...(values.harness !== undefined ? { harness: harnessFlag(values.harness as string) } : {}),
      ...sampling,
      budgets,
    });
    const { client, close } = await connectWithWorker(config, log);
    try {
      const workflowId = values['workflow-id'] as string | undefined;
      const result = await runEpisode(client, input, workflowId, (progress, id) =>
        log(
          progress.phase === 'parked'
            ? `${progress.taskId ?? 'episode'}: parked after ${progress.counters.turns} turn(s), holding no ` +
                `container; resume it with npx agentrl episode resume ${id}`
            : `${progress.taskId ?? 'episode'}: ${progress.phase}, ${progress.counters.turns} turn(s), ` +
                `${progress.counters.tokens} tokens`,
        ),
      );
      if (values.json) console.log(JSON.stringify(result, null, 2));
      else {
        console.log(
          `${result.workflowId}: ${result.outcome}, reward ${result.reward}, true success ${result.trueSuccess} ` +
            `(${result.counters.turns} turns)`,
        );
        if (result.error) console.log(`  detail: ${result.error}`);
        for (const finding of result.tamper)
          console.log(`  tamper: ${finding.kind} ${finding.path}: ${finding.detail}`);
        console.log(`  trajectory: ${localPathOf(result.trajectoryUri) ?? result.trajectoryUri}`);
      }
      return 0;
    } finally {
      await close();
    }
  },
};

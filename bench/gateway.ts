// Benchmark (not a test) of the model gateway (`npm run bench:gateway`), in two parts, each against a baseline
// measured in the same run:
//
// 1. What a harness waits per call beyond the model's own time. mini-swe-agent runs unmodified in a sandbox and calls
//    the policy through the gateway. A call is timed where its request meets the worker: the gateway's clock, from the
//    request's headers to the answer's last byte (serving/gateway/server.ts's `onRequest`); the relay in the sandbox
//    adds a byte copy over loopback and a unix socket. The model's own time in that call is the call record's
//    `inferenceMs` (the generateCall activity's request to the model server, HTTP included), so a call's overhead is
//    total − inferenceMs, call by call, never a difference of two distributions. The workflow history splits it: the
//    gateway's own work (reading and parsing the body, storing the request, writing the answer), Temporal's (the
//    `modelCall` update, the workflow tasks, the activity's dispatch and completion, and reading the call's record
//    back) and the activity's own (the prompt's ids, storing the call's record).
//    - `--calls` calls answered by the scripted backend (`replies:`, inference about 0 ms): one episode of commands
//      that print nothing, then the end. Many calls for one harness start, so p95 means something.
//    - `--model-calls` calls of the embedded SmolLM2-135M-Instruct server (`vllm:`, started as `npx agentrl episode
//      --model` starts it), `--max-tokens` tokens each; the model writes no tool call in so few tokens, so
//      mini-swe-agent ends each episode after three format errors. The baseline: each call's prompt ids sent again
//      straight to the model server right after its episode (`generateWithServer`, the activity's client), with
//      the same seed, temperature and limit: the same generation (equal ids confirm it). The server keeps no cache
//      between requests, so sending a prompt twice saves nothing; on a shared machine the two still differ by the
//      load of the moment, which is why the overhead is taken against the same call's own inferenceMs.
// 2. Episodes per second with a harness against the built-in chat loop on the same task (wrong-comparison, strict
//    checker) and the same work, scripted by `replies:` (list, apply the fix, run the tests, finish): mini-swe-agent,
//    and the built-in loop with bash, bash, bash, submit; `--episodes` of each, `--concurrency` at a time.
//
//   npm run bench:gateway -- [--calls 30] [--model-calls 3] [--max-tokens 8] [--episodes 4] [--concurrency 2]
//     [--model-port 18112] [--json]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { positiveInt } from '../cli/command';
import { ensureModelServer, modelServerName } from '../cli/services/serving';
import { stopServices } from '../cli/services/supervisor';
import { CallRecord, GatewayRequestSchema } from '../activities/gateway/calls';
import { chatTokenizerOf } from '../activities/policies/chat/chat-policy';
import { describeVllm, generateWithServer, vllmGenerate } from '../activities/policies/chat/generation-clients';
import { drawSeed, TokenPolicySnapshot } from '../activities/policies/token-policy';
import { createArtifactStore, type ArtifactStore } from '../activities/store/artifact-store';
import type { GatewayRequestTiming } from '../serving/gateway/server';
import {
  runEpisode,
  startTestServer,
  startWorker,
  task,
  type EpisodeResult,
  type RunningWorker,
} from '../tests/helpers/temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** The flags; a bad one ends the bench before anything starts, with a message that names it. */
function parseOptions() {
  try {
    const { values } = parseArgs({
      options: {
        calls: { type: 'string' },
        'model-calls': { type: 'string' },
        'max-tokens': { type: 'string' },
        episodes: { type: 'string' },
        concurrency: { type: 'string' },
        'model-port': { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
    });
    return {
      calls: positiveInt('--calls', values.calls ?? '30'),
      modelCalls: positiveInt('--model-calls', values['model-calls'] ?? '3'),
      maxTokens: positiveInt('--max-tokens', values['max-tokens'] ?? '8'),
      episodes: positiveInt('--episodes', values.episodes ?? '4'),
      concurrency: positiveInt('--concurrency', values.concurrency ?? '2'),
      modelPort: positiveInt('--model-port', values['model-port'] ?? '18112'),
      json: values.json === true,
    };
  } catch (error) {
    console.error(`bench:gateway: ${(error as Error).message}`);
    process.exit(2);
  }
}
const options = parseOptions();
const model = 'smollm2-135m-instruct';
const taskDir = task('wrong-comparison');
const log = (line: string) => console.error(line);
/** the bench's replies: files */
const scratch = mkdtempSync(join(tmpdir(), 'agentrl-bench-gateway-'));

const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const summary = (values: readonly number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

// ---- part 1: a call's overhead -------------------------------------------------------------------------------

interface CallTiming {
  /** the gateway's clock: the request's headers to the answer's last byte */
  totalMs: number;
  /** the model's own time in the call (the record's inferenceMs) */
  inferenceMs: number;
  /** total − inferenceMs, and its parts: the gateway's own, Temporal's (the update, the record read back), the activity's */
  overheadMs: number;
  gatewayMs: number;
  temporalMs: number;
  activityMs: number;
  promptTokens: number;
  generatedTokens: number;
  /** the same prompt ids generated straight from the model server (a served model's calls only) */
  directMs?: number;
  sameIds?: boolean;
}

/** A request's timing, and when its answer ended (wall clock, as the history's event times) */
type StampedTiming = GatewayRequestTiming & { endedAt: number };

const eventTime = (event: temporal.api.history.v1.IHistoryEvent) =>
  Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6;
const decoded = <T>(payloads: temporal.api.common.v1.IPayloads | null | undefined): T =>
  defaultPayloadConverter.fromPayload<T>(payloads!.payloads![0]!);

/** Per update id, the call it recorded; per call, the generateCall activity's run time and its policy, from the history. */
async function callsOf(env: TestWorkflowEnvironment, workflowId: string) {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, { policyRef: string }>();
  const started = new Map<string, number>();
  const runMs = new Map<string, number>();
  const policyRefs = new Map<string, string>();
  const byUpdate = new Map<string, string>();
  for (const event of history.events ?? []) {
    const scheduling = event.activityTaskScheduledEventAttributes;
    if (scheduling?.activityType?.name === 'generateCall')
      scheduled.set(String(event.eventId), decoded(scheduling.input));
    const start = event.activityTaskStartedEventAttributes;
    if (start && scheduled.has(String(start.scheduledEventId)))
      started.set(String(start.scheduledEventId), eventTime(event));
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.has(String(done.scheduledEventId))) {
      const result = decoded<{ callRef?: string }>(done.result);
      if (!result.callRef) continue;
      runMs.set(result.callRef, eventTime(event) - started.get(String(done.scheduledEventId))!);
      policyRefs.set(result.callRef, scheduled.get(String(done.scheduledEventId))!.policyRef);
    }
    const update = event.workflowExecutionUpdateCompletedEventAttributes;
    if (update?.outcome?.success) {
      const answer = decoded<{ callRef?: string; replayed?: boolean }>(update.outcome.success);
      if (answer.callRef && !answer.replayed) byUpdate.set(update.meta!.updateId!, answer.callRef);
    }
  }
  return { byUpdate, runMs, policyRefs };
}

/** The call's generation again, straight from the model server: the same prompt ids, seed, temperature and limit. */
async function direct(store: ArtifactStore, record: CallRecord, policyRef: string) {
  const snapshot = await store.getJson(policyRef, TokenPolicySnapshot);
  const request = await store.getJson(record.requestRef, GatewayRequestSchema);
  const started = performance.now();
  const generated = await generateWithServer(snapshot, {
    promptIds: record.promptIds,
    maxTokens: Math.min(
      request.maxTokens ?? snapshot.sampling.chat.maxActionTokens,
      snapshot.window - record.promptIds.length - 1,
    ),
    temperature: request.temperature ?? snapshot.sampling.temperature,
    seed: drawSeed(snapshot.sampling.seed, record.episodeId, 'call', record.index),
    stopIds: chatTokenizerOf(snapshot).stopIds,
    version: record.version,
  });
  return {
    directMs: performance.now() - started,
    sameIds: JSON.stringify(generated.ids) === JSON.stringify(record.generatedIds),
  };
}

/**
 * mini-swe-agent episodes one after another until `count` calls were timed; a served model's calls are each generated
 * again straight from its server right after their episode, so that both meet much the same load.
 */
async function measureCalls(
  env: TestWorkflowEnvironment,
  worker: RunningWorker,
  timings: StampedTiming[],
  count: number,
  input: () => Record<string, unknown>,
) {
  const store = createArtifactStore(worker.config.artifactsDir);
  const calls: CallTiming[] = [];
  const outcomes: string[] = [];
  while (calls.length < count) {
    timings.length = 0;
    const episodeInput = input();
    const result = await runEpisode(env, worker, episodeInput);
    outcomes.push(result.outcome);
    const { byUpdate, runMs, policyRefs } = await callsOf(env, result.workflowId);
    for (const timing of timings) {
      const callRef = timing.updateId === null ? undefined : byUpdate.get(timing.updateId);
      if (!callRef || timing.status !== 200 || timing.episodeMs === null || calls.length >= count) continue;
      const record = await store.getJson(callRef, CallRecord);
      const activityRun = runMs.get(callRef)!;
      calls.push({
        totalMs: timing.totalMs,
        inferenceMs: record.inferenceMs,
        overheadMs: timing.totalMs - record.inferenceMs,
        gatewayMs: timing.totalMs - timing.episodeMs,
        temporalMs: timing.episodeMs - activityRun,
        activityMs: activityRun - record.inferenceMs,
        promptTokens: record.promptIds.length,
        generatedTokens: record.generatedIds.length,
        ...(String(episodeInput.policy).startsWith('vllm:')
          ? await direct(store, record, policyRefs.get(callRef)!)
          : {}),
      });
    }
    if (!timings.some((timing) => timing.status === 200))
      throw new Error(
        `an episode made no call through the gateway: ${result.outcome} (${result.error ?? 'no error'}); ` +
          'is the harness installed (bash scripts/build-harnesses.sh)?',
      );
    log(
      `gateway: ${calls.length} of ${count} calls (an episode ${result.outcome} after ${result.counters.turns} calls)`,
    );
  }
  return { calls, outcomes };
}

// ---- part 2: episodes per second ------------------------------------------------------------------------------

const toolCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** A replies: file: the same commands, then the loop's own way to finish. */
function repliesFile(name: string, finish: string): string {
  const patch = readFileSync(join(taskDir, 'solution.patch'), 'utf8');
  const commands = [
    'ls',
    `cat > /tmp/fix.patch <<'AGENTRL_EOF'\n${patch}AGENTRL_EOF\ngit apply /tmp/fix.patch && echo applied`,
    'python3 -m pytest -q -x 2>&1 | tail -2',
  ];
  const path = join(scratch, `${name}.jsonl`);
  const replies = [...commands.map((command) => toolCall('bash', { command })), finish];
  writeFileSync(path, replies.map((reply) => JSON.stringify(reply)).join('\n') + '\n');
  return `replies:${path}`;
}

const loops = {
  'mini-swe-agent': {
    harness: 'mini-swe-agent',
    policy: repliesFile('mini-swe-agent', toolCall('bash', { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' })),
  },
  'built-in': { policy: repliesFile('built-in', toolCall('submit', {})) },
} as const;

function episodeInput(loop: keyof typeof loops) {
  return {
    task: taskDir,
    checker: 'strict',
    ...loops[loop],
    // the scripted backend: a window as large as the harness's prompts need, the same for both loops
    sampling: { chat: { tokenizer: model, maxActionTokens: 4096, window: 131_072 } },
    budgets: { deadlineMs: 300_000, harnessIdleMs: 120_000 },
  };
}

/**
 * Where a harness episode's time goes, from its history and the gateway's clock: the harness's run (the runHarness
 * activity), its start-up (until its first request arrived), and its calls through the gateway.
 */
async function harnessTimes(env: TestWorkflowEnvironment, result: EpisodeResult, timings: readonly StampedTiming[]) {
  const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
  const runs = new Set<string>();
  let started = 0;
  let runMs = 0;
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'runHarness')
      runs.add(String(event.eventId));
    const start = event.activityTaskStartedEventAttributes;
    if (start && runs.has(String(start.scheduledEventId))) started = eventTime(event);
    const done = event.activityTaskCompletedEventAttributes;
    if (done && runs.has(String(done.scheduledEventId))) runMs += eventTime(event) - started;
  }
  const own = timings.filter((timing) => timing.session.startsWith(`${result.episodeId}#`));
  const first = Math.min(...own.map((timing) => timing.endedAt - timing.totalMs));
  return { runMs, startupMs: first - started, gatewayMs: own.reduce((sum, timing) => sum + timing.totalMs, 0) };
}

async function measureEpisodes(
  env: TestWorkflowEnvironment,
  worker: RunningWorker,
  timings: readonly StampedTiming[],
  loop: keyof typeof loops,
) {
  const walls: number[] = [];
  const harness: Awaited<ReturnType<typeof harnessTimes>>[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  const runner = async () => {
    while (next < options.episodes) {
      next++;
      const start = performance.now();
      const result: EpisodeResult = await runEpisode(env, worker, episodeInput(loop));
      walls.push(performance.now() - start);
      if (result.outcome !== 'submitted' || result.reward !== 1)
        failures.push(`${result.workflowId}: ${result.outcome} (${result.error ?? `reward ${result.reward}`})`);
      if (loop === 'mini-swe-agent') harness.push(await harnessTimes(env, result, timings));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, runner));
  const wallS = (performance.now() - started) / 1000;
  log(`${loop}: ${options.episodes} episodes in ${wallS.toFixed(1)} s`);
  const median = (key: keyof (typeof harness)[number]) =>
    percentile(
      harness.map((times) => times[key]),
      50,
    );
  return {
    loop,
    wallS,
    episodesPerS: options.episodes / wallS,
    episode: summary(walls),
    walls,
    failures,
    ...(harness.length
      ? { harness: { runMs: median('runMs'), startupMs: median('startupMs'), gatewayMs: median('gatewayMs') } }
      : {}),
  };
}

// ---- the run ----------------------------------------------------------------------------------------------------

/** mini-swe-agent answered by the scripted backend: `count − 1` commands that print nothing, then the end. */
function scriptedCalls(count: number) {
  const path = join(scratch, 'scripted-calls.jsonl');
  const replies = [
    ...Array.from({ length: count - 1 }, () => toolCall('bash', { command: 'true' })),
    toolCall('bash', { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' }),
  ];
  writeFileSync(path, replies.map((reply) => JSON.stringify(reply)).join('\n') + '\n');
  return () => ({
    ...episodeInput('mini-swe-agent'),
    policy: `replies:${path}`,
    budgets: { deadlineMs: 300_000, harnessIdleMs: 120_000, maxTurns: count + 1 },
  });
}

/** mini-swe-agent on the served model: it writes no tool call in a few tokens, so each episode ends after 3 calls. */
const servedCalls = (url: string) => () => ({
  task: taskDir,
  policy: `vllm:${url}`,
  harness: 'mini-swe-agent',
  checker: 'strict',
  sampling: { chat: { tokenizer: model, maxActionTokens: options.maxTokens } },
  budgets: { deadlineMs: 300_000, harnessIdleMs: 120_000 },
});

async function main(): Promise<void> {
  const start = performance.now();
  const timings: StampedTiming[] = [];
  const env = await startTestServer();
  const worker = await startWorker(env, undefined, {
    onGatewayRequest: (timing) => timings.push({ ...timing, endedAt: Date.now() }),
  });
  try {
    const url = await ensureModelServer(worker.config, model, log, options.modelPort);
    try {
      // warm-up, not counted: the model's first passes, the sandbox image, the workflow's code
      const served = await describeVllm(url);
      await vllmGenerate(url, served.servedModel, {
        promptIds: Array.from({ length: 64 }, (_, index) => 100 + index),
        maxTokens: options.maxTokens,
        temperature: 1,
        seed: 0,
        stopIds: [],
        version: served.version,
      });
      await runEpisode(env, worker, episodeInput('built-in'));
      const began = performance.now();
      const seconds = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
      const scripted = await measureCalls(env, worker, timings, options.calls, scriptedCalls(options.calls));
      log(`the scripted calls took ${seconds()}`);
      const real = await measureCalls(env, worker, timings, options.modelCalls, servedCalls(url));
      log(`the model's calls, through the gateway and direct: ${seconds()} since the scripted ones began`);
      const builtIn = await measureEpisodes(env, worker, timings, 'built-in');
      const harness = await measureEpisodes(env, worker, timings, 'mini-swe-agent');
      report(scripted, real, builtIn, harness);
      log(`the bench took ${((performance.now() - start) / 1000).toFixed(0)} s`);
    } finally {
      await stopServices(worker.config, (record) => record.name === modelServerName(options.modelPort));
    }
  } finally {
    await worker.stop();
    await env.teardown();
    rmSync(worker.config.stateDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

type Calls = Awaited<ReturnType<typeof measureCalls>>;
type Episodes = Awaited<ReturnType<typeof measureEpisodes>>;

function report(scripted: Calls, real: Calls, builtIn: Episodes, harness: Episodes): void {
  const of = (calls: Calls, key: keyof CallTiming) => summary(calls.calls.map((call) => call[key] as number));
  const rows = {
    scripted: {
      total: of(scripted, 'totalMs'),
      overhead: of(scripted, 'overheadMs'),
      gateway: of(scripted, 'gatewayMs'),
      temporal: of(scripted, 'temporalMs'),
      activity: of(scripted, 'activityMs'),
    },
    model: {
      direct: of(real, 'directMs'),
      total: of(real, 'totalMs'),
      inference: of(real, 'inferenceMs'),
      overhead: of(real, 'overheadMs'),
    },
  };
  const ratio = (a: { p50: number; p95: number }, b: { p50: number; p95: number }) => ({
    p50: a.p50 / b.p50,
    p95: a.p95 / b.p95,
  });
  const ratios = {
    gatewayOverDirect: ratio(rows.model.total, rows.model.direct),
    overheadOverDirect: ratio(rows.scripted.overhead, rows.model.direct),
    harnessOverBuiltInEpisode: harness.episode.p50 / builtIn.episode.p50,
    harnessOverBuiltInThroughput: harness.episodesPerS / builtIn.episodesPerS,
  };
  const tokens = (calls: Calls) => ({
    prompt: summary(calls.calls.map((call) => call.promptTokens)),
    generated: summary(calls.calls.map((call) => call.generatedTokens)),
  });
  const sameIds = real.calls.filter((call) => call.sameIds).length;
  if (options.json) {
    console.log(
      JSON.stringify({
        options,
        samples: { scripted: scripted.calls, model: real.calls },
        scripted: {
          calls: scripted.calls.length,
          episodes: scripted.outcomes,
          tokens: tokens(scripted),
          ...rows.scripted,
        },
        model: { calls: real.calls.length, episodes: real.outcomes, tokens: tokens(real), sameIds, ...rows.model },
        ratios,
        builtIn,
        harness,
      }),
    );
    return;
  }
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  // a ratio far below 1 keeps two significant digits
  const x = (value: number) => `${value < 0.1 ? value.toPrecision(2) : value.toFixed(2)}x`;
  const line = (name: string, row: { p50: number; p95: number }) =>
    console.log(`| ${name} | ${ms(row.p50)} | ${ms(row.p95)} |`);
  const prompts = (calls: Calls) => {
    const counts = calls.calls.map((call) => call.promptTokens);
    return `prompts of ${Math.min(...counts)} to ${Math.max(...counts)} tokens`;
  };
  console.log(`\nscripted backend: ${scripted.calls.length} calls of one mini-swe-agent episode, ${prompts(scripted)}`);
  console.log(
    `${model}: ${real.calls.length} calls of ${real.outcomes.length} mini-swe-agent episodes, ${prompts(real)}, ` +
      `${tokens(real).generated.p50} generated; the direct generation gave the same ids in ${sameIds} of ${real.calls.length}\n`,
  );
  console.log('| per call | p50 | p95 |\n|---|---|---|');
  line('scripted backend: through the gateway', rows.scripted.total);
  line('scripted backend: overhead (total − inferenceMs)', rows.scripted.overhead);
  line('  the gateway itself', rows.scripted.gateway);
  line('  Temporal (update, workflow tasks, dispatch)', rows.scripted.temporal);
  line('  generateCall, less the model', rows.scripted.activity);
  line(`${model}: direct to the model server`, rows.model.direct);
  line(`${model}: through the gateway`, rows.model.total);
  line(`${model}: of which the model (inferenceMs)`, rows.model.inference);
  line(`${model}: overhead (total − inferenceMs)`, rows.model.overhead);
  console.log(
    `| through the gateway / direct (${model}) | ${x(ratios.gatewayOverDirect.p50)} | ${x(ratios.gatewayOverDirect.p95)} |\n` +
      `| overhead (scripted) / direct (${model}) | ${x(ratios.overheadOverDirect.p50)} | ${x(ratios.overheadOverDirect.p95)} |\n`,
  );
  console.log(
    `| loop (${options.episodes} episodes, ${options.concurrency} at a time) | wall | episodes/s | episode p50 | ` +
      'episode p95 | failed |\n|---|---|---|---|---|---|',
  );
  for (const row of [builtIn, harness])
    console.log(
      `| ${row.loop} | ${row.wallS.toFixed(1)} s | ${row.episodesPerS.toFixed(3)} | ${(row.episode.p50 / 1000).toFixed(1)} s | ` +
        `${(row.episode.p95 / 1000).toFixed(1)} s | ${row.failures.length} |`,
    );
  console.log(
    `\nmini-swe-agent / built-in: episode p50 ${x(ratios.harnessOverBuiltInEpisode)}, episodes per second ` +
      `${x(ratios.harnessOverBuiltInThroughput)}`,
  );
  if (harness.harness)
    console.log(
      `mini-swe-agent's episode (medians): its run ${(harness.harness.runMs / 1000).toFixed(1)} s, of which ` +
        `${(harness.harness.startupMs / 1000).toFixed(1)} s before its first call and ` +
        `${(harness.harness.gatewayMs / 1000).toFixed(2)} s in its calls through the gateway`,
    );
  for (const failure of [...builtIn.failures, ...harness.failures]) console.log(`failed: ${failure}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

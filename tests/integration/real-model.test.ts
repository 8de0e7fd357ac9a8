// A real model trained end to end (SmolLM2-135M-Instruct): `npx agentrl train --input FILE --json`
// with the smallest run that proves the loop. A solved warm start (demo:solve) changes the weights;
// they are published to the model's embedded server; the iteration's episodes, in real containers,
// are sampled from that version and run tool calls the model wrote; the trainer's recomputed
// log-probs match the server's; the step (GiGPO: the turns located in the chat samples) is published
// and the final evaluation samples it; `npx agentrl episode --model` then runs on what the server serves.
import { localFile } from '../helpers/temporal';
import { runFolder } from '../helpers/training';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseChatToolCall } from '../../shared/chat/tool-format';
import { mismatchBounds } from '../../shared/contracts/trainer-contract';
import { baseVersion } from '../../shared/names/models';
import { projectRoot } from '../../workers/config';
import { loadChatTokenizer, modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import { generateWithServer } from '../../activities/policies/chat/generation-clients';
import { drawSeed } from '../../activities/policies/token-policy';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { z } from 'zod';

const model = 'smollm2-135m-instruct';
const state = mkdtempSync(join(tmpdir(), 'agentrl-real-model-'));
const configPath = join(state, 'temporal.yaml');
// its own dev server, state folder and model server port, so it never meets what a developer runs
writeFileSync(
  configPath,
  `temporal:\n  address: 127.0.0.1:27233\n  uiPort: 28233\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\n`,
);
const env = { ...process.env, AGENTRL_CONFIG: configPath };
const modelPort = 18102;
const server = `http://127.0.0.1:${modelPort}`;

function agentrl(...args: string[]) {
  const result = spawnSync(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), ...args], {
    env,
    encoding: 'utf8',
    timeout: 900_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface TrajectoryLine {
  turn: number;
  policyVersion: string;
  status: string;
  action: string;
  observation: string;
}
/** The trajectories of the run's episodes whose workflow id starts with `prefix`. */
function trajectories(prefix: string): TrajectoryLine[][] {
  const dir = join(state, 'artifacts', 'episodes');
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .sort()
    .map((name) =>
      readFileSync(join(dir, name, 'trajectory.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as TrajectoryLine),
    );
}
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

after(() => {
  agentrl('server', 'stop');
  // the run's checkpoints and exported models are about 4 GB: a run that kept them filled the disk in a few dozen runs
  rmSync(state, { recursive: true, force: true });
});

test('a one-iteration SmolLM2 run: warm start, episodes on the new version with model-written tool calls, a step, its publication', async () => {
  const inputPath = join(state, 'run.json');
  writeFileSync(
    inputPath,
    JSON.stringify({
      runId: 'smol',
      model: { name: model },
      iterations: 1,
      tasksPerIteration: 1,
      groupSize: 2,
      credit: { estimator: 'gigpo' },
      evaluation: { limit: 1 },
      warmStart: { episodes: 4 },
      budgets: { maxTurns: 3, maxObservationBytes: 512 },
    }),
  );
  const run = agentrl('train', '--input', inputPath, '--model-port', String(modelPort), '--json');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`starting model-server-${modelPort}`));
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  // the warm start (step 1) and the iteration's step (step 2)
  assert.equal(result.steps, 2);
  assert.equal(result.policyVersion, 'smol-step-2');
  const manifest = JSON.parse(readFileSync(join(runFolder(result), 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.policyVersions, [
    { step: 0, version: baseVersion(model) },
    { step: 1, version: 'smol-step-1' },
    { step: 2, version: 'smol-step-2' },
  ]);

  // the warm start changed the weights, and the published ONNX weights are the new ones
  const base = join(modelCacheDir(), 'onnx', model, 'model.onnx.data');
  const v1 = join(runFolder(result), 'policies', 'v1', 'model.onnx.data');
  assert.ok(
    existsSync(join(runFolder(result), 'checkpoints', 'step-1', 'model.safetensors')),
    'the step-1 checkpoint in the Hugging Face layout',
  );
  assert.equal(readFileSync(v1).length, readFileSync(base).length, 'the same layout');
  assert.notEqual(sha256(v1), sha256(base), 'the warm start changed the weights');

  // the model server serves the last step's weights under its version
  const served = (await (await fetch(`${server}/weight_info`)).json()) as { weight_version: string };
  assert.equal(served.weight_version, 'smol-step-2');

  const metrics = readFileSync(join(runFolder(result), 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const iteration = metrics.find((line) => line.iteration === 0);
  assert.equal(iteration.policyVersion, 'smol-step-1', 'the iteration sampled the warm-started version');
  assert.equal(iteration.train.episodes, 2);
  assert.ok(iteration.batch.rows >= 1);
  // GiGPO on chat turns: both episodes' first actions were taken from the task's state, so they form a step group
  assert.ok(iteration.batch.counts.stepGroups >= 1, JSON.stringify(iteration.batch.counts));
  assert.ok(iteration.batch.counts.stepAdvantageTokens >= 2, JSON.stringify(iteration.batch.counts));
  // the trainer's recomputed log-probs against the server's behaviour log-probs, float32 on the CPU
  assert.ok(iteration.training.mismatch, 'the step measured the mismatch');
  assert.ok(
    iteration.training.mismatch.meanAbsRatioDev <= mismatchBounds.meanAbsRatioDev,
    JSON.stringify(iteration.training.mismatch),
  );
  assert.ok(Math.abs(iteration.training.mismatch.kl) <= mismatchBounds.kl, JSON.stringify(iteration.training.mismatch));

  // every turn of the iteration's episodes records the version it was sampled from; at least one
  // well-formed tool call the model wrote ran in the container
  const sampled = trajectories('smol.it0.');
  assert.equal(sampled.length, 2);
  const turns = sampled.flat();
  assert.ok(
    turns.length > 0 && turns.every((line) => line.policyVersion === 'smol-step-1'),
    JSON.stringify(turns.map((line) => line.policyVersion)),
  );
  const ran = turns.filter((line) => line.status === 'ok' && parseChatToolCall(line.action).ok);
  assert.ok(ran.length >= 1, `no well-formed tool call ran: ${JSON.stringify(turns.map((line) => line.action))}`);
  // the demonstrations are the demonstrator's, never the model's: each fixed its task with a line edit, and the
  // warm start imitated them all (its line of metrics: the demonstrations' grades, the imitation step's batch)
  const demos = trajectories('smol.demo.');
  assert.equal(demos.length, 4);
  assert.ok(demos.flat().every((line) => line.policyVersion === 'demo'));
  assert.ok(demos.every((turns) => turns.some((line) => /"command": "sed -i /.test(line.action))));
  const warm = metrics.find((line) => line.iteration === -1);
  assert.ok(warm, 'the warm start has its line of metrics');
  assert.equal(warm.train.episodes, 4);
  assert.equal(warm.train.trueSuccess, 1, JSON.stringify(warm.train));
  assert.equal(warm.train.meanReward, 1);
  assert.equal(warm.batch.rows, 4);
  // the final evaluation sampled the step's published weights
  const evaluated = trajectories('smol.eval-final-2.').flat();
  assert.ok(evaluated.length > 0 && evaluated.every((line) => line.policyVersion === 'smol-step-2'));
});

test('episode --model runs the real model on what its server serves, every turn with its version', () => {
  const run = agentrl(
    'episode',
    '--task',
    join(projectRoot, 'tasks', 'wrong-comparison'),
    '--model',
    model,
    '--model-port',
    String(modelPort),
    '--max-turns',
    '2',
    '--json',
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.policyVersion, 'smol-step-2');
  assert.equal(result.counters.turns, 2);
  const lines = readFileSync(localFile(result.trajectoryUri), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TrajectoryLine);
  assert.ok(lines.every((line) => line.policyVersion === 'smol-step-2'));
});

test('SmolLM2 through the model gateway: mini-swe-agent calls it, the records are what the server generated', async () => {
  const run = agentrl(
    'episode',
    '--task',
    join(projectRoot, 'tasks', 'wrong-comparison'),
    '--harness',
    'mini-swe-agent',
    '--model',
    model,
    '--model-port',
    String(modelPort),
    '--max-turns',
    '2',
    '--max-action-tokens',
    '24',
    '--json',
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.counters.turns, 2, JSON.stringify(result));
  const store = createArtifactStore(join(state, 'artifacts'));
  const records = createEpisodeRecords(store);
  const turns = await records.readTurns(result.episodeId);
  const tokenizer = loadChatTokenizer(model);
  let largest = 0;
  for (const turn of turns) {
    const context = await records.readContext(turn.model!.contextRef);
    const ids = await store.getJson(turn.action.tokenIdsRef, z.array(z.number()));
    const logprobs = await store.getJson(turn.action.logprobsRef, z.array(z.number()));
    // the call's prompt is its context before its generation; the server asked again with the call's own draw
    const prompt = context.ids.slice(0, context.ids.length - ids.length);
    const again = await generateWithServer(
      { kind: 'vllm', url: server, servedModel: model },
      {
        promptIds: prompt,
        maxTokens: 24,
        temperature: 1,
        seed: drawSeed(0, result.episodeId, 'call', turn.turn),
        stopIds: tokenizer.stopIds,
        version: result.policyVersion,
      },
    );
    assert.deepEqual(ids, again.ids, `turn ${turn.turn}: the recorded ids are the server's`);
    largest = Math.max(largest, ...logprobs.map((value, index) => Math.abs(value - again.logprobs[index]!)));
    assert.deepEqual(
      context.lossMask.slice(prompt.length),
      ids.map(() => 1),
    );
  }
  assert.ok(largest <= 1e-5, `largest behaviour log-prob difference ${largest}`);
});

test('a SmolLM2 training step on harness episodes: the trainer recomputes the behaviour log-probs', () => {
  const inputPath = join(state, 'harness-run.json');
  writeFileSync(
    inputPath,
    JSON.stringify({
      runId: 'smol-harness',
      model: { name: model },
      harness: 'mini-swe-agent',
      iterations: 1,
      tasksPerIteration: 1,
      groupSize: 2,
      evaluation: { tasks: '' },
      warmStart: { episodes: 0 },
      budgets: { maxTurns: 2, maxObservationBytes: 512 },
      sampling: { chat: { maxActionTokens: 24 } },
    }),
  );
  const run = agentrl('train', '--input', inputPath, '--model-port', String(modelPort), '--json');
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  const metrics = readFileSync(join(runFolder(result), 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const iteration = metrics.find((line) => line.iteration === 0);
  assert.equal(iteration.train.episodes, 2, JSON.stringify(iteration));
  assert.ok(iteration.training.mismatch, 'the step measured the mismatch');
  assert.ok(
    iteration.training.mismatch.meanAbsRatioDev <= mismatchBounds.meanAbsRatioDev,
    JSON.stringify(iteration.training.mismatch),
  );
  assert.ok(Math.abs(iteration.training.mismatch.kl) <= mismatchBounds.kl, JSON.stringify(iteration.training.mismatch));
  // every sampled episode was a harness episode: its turns are model calls
  assert.ok(trajectories('smol-harness.it0.').every((lines) => lines.length >= 1));
});

// SmolLM2-135M-Instruct served by onnxruntime-node with a key/value cache (serving/causal-lm.ts): the
// log-probs it records are transformers' own (the golden file both suites read), batching
// concurrent requests changes no result, and a sampled turn's log-probs are its tokens' scores.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import { BatchingGenerator, loadCausalLm, scoreContinuation, type CausalLm } from '../../serving/causal-lm';
import type { Generation } from '../../serving/onnx-policy';
import { projectRoot } from '../../workers/config';

const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'smollm2-logprobs.json'), 'utf8')) as {
  temperature: number;
  prompt: number[];
  continuation: number[];
  logprobs: number[];
};

describe('SmolLM2 on onnxruntime-node with a key/value cache', () => {
  let model: CausalLm;
  before(async () => {
    model = await loadCausalLm(join(modelCacheDir(), 'onnx', 'smollm2-135m-instruct'), 'base');
  });

  test('a CUDA device asked for where onnxruntime cannot use one: it says so and serves from the CPU', async () => {
    const warnings: string[] = [];
    const dir = join(modelCacheDir(), 'onnx', 'smollm2-135m-instruct');
    const onCuda = await loadCausalLm(dir, 'base', 'cuda', (line) => warnings.push(line));
    if (onCuda.device === 'cpu') {
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /cannot run on CUDA here .*: on the CPU/);
    } else assert.deepEqual(warnings, []);
    // the same log-probs as the default session's
    const scores = await scoreContinuation(onCuda, golden.prompt, golden.continuation.slice(0, 4), golden.temperature);
    const expected = await scoreContinuation(model, golden.prompt, golden.continuation.slice(0, 4), golden.temperature);
    scores.forEach((score, index) =>
      assert.ok(Math.abs(score - expected[index]!) < 1e-3, `${score} ${expected[index]}`),
    );
    await onCuda.session.release();
    await assert.rejects(loadCausalLm(dir, 'base', 'tpu'), /AGENTRL_DEVICE="tpu": expected one of auto, cpu, cuda/);
  });

  test("the tempered log-probs of a continuation match transformers' full forward pass", async () => {
    const scores = await scoreContinuation(model, golden.prompt, golden.continuation, golden.temperature);
    const deviations = scores.map((score, index) => Math.abs(Math.exp(score - golden.logprobs[index]!) - 1));
    const mean = deviations.reduce((sum, value) => sum + value, 0) / deviations.length;
    assert.ok(
      mean < 1e-3 && Math.max(...deviations) < 1e-2,
      `mean |ratio - 1| ${mean}, max ${Math.max(...deviations)}`,
    );
  });

  test("a server sampling at another temperature than the trainer's shows a mismatch far above that bound", async () => {
    const scores = await scoreContinuation(model, golden.prompt, golden.continuation, golden.temperature + 0.3);
    const mean =
      scores.reduce((sum, score, index) => sum + Math.abs(Math.exp(score - golden.logprobs[index]!) - 1), 0) /
      scores.length;
    assert.ok(mean > 1e-1, `mean |ratio - 1| ${mean}`);
  });

  test('concurrent requests are decoded together, and batching changes no token or log-prob', async () => {
    const prompts = [golden.prompt, golden.prompt.slice(0, 15), [...golden.prompt, ...golden.continuation.slice(0, 5)]];
    const alone: Generation[] = [];
    for (const prompt of prompts)
      alone.push(await new BatchingGenerator(model).submit({ prompt, maxTokens: 6, temperature: 0.8, seed: 7 }));
    const generator = new BatchingGenerator(model);
    const together = await Promise.all(
      prompts.map((prompt) => generator.submit({ prompt, maxTokens: 6, temperature: 0.8, seed: 7 })),
    );
    assert.ok(
      generator.batchSizes.some((size) => size === 3),
      `batch sizes ${generator.batchSizes.join(', ')}`,
    );
    together.forEach((generation, index) => {
      assert.deepEqual(generation.tokenIds, alone[index]!.tokenIds);
      generation.logprobs.forEach((logprob, position) =>
        assert.ok(Math.abs(logprob - alone[index]!.logprobs[position]!) < 1e-4),
      );
    });
    // what was recorded for each sampled token is its score under the same weights and temperature
    const scores = await scoreContinuation(model, prompts[0]!, together[0]!.tokenIds, 0.8);
    scores.forEach((score, position) => assert.ok(Math.abs(score - together[0]!.logprobs[position]!) < 1e-4));
  });

  test('prompts of one length are prefilled in one pass and a shared prompt once, with the tokens and log-probs of each alone', async () => {
    const other = golden.prompt.map((id, index) => (index === 3 ? id + 1 : id));
    const requests = [
      { prompt: golden.prompt, seed: 1 },
      { prompt: golden.prompt, seed: 2 },
      { prompt: other, seed: 3 },
      { prompt: golden.prompt.slice(0, 9), seed: 4 },
    ];
    const alone: Generation[] = [];
    for (const { prompt, seed } of requests)
      alone.push(await new BatchingGenerator(model).submit({ prompt, maxTokens: 5, temperature: 1, seed }));
    const generator = new BatchingGenerator(model);
    const together = await Promise.all(
      requests.map(({ prompt, seed }) => generator.submit({ prompt, maxTokens: 5, temperature: 1, seed })),
    );
    // the shared prompt and its same-length neighbour in one pass of 2 rows, the shorter one apart
    assert.deepEqual([...generator.prefillSizes].sort(), [1, 2]);
    together.forEach((generation, index) => {
      assert.deepEqual(generation.tokenIds, alone[index]!.tokenIds, `request ${index}`);
      generation.logprobs.forEach((logprob, position) =>
        assert.ok(Math.abs(logprob - alone[index]!.logprobs[position]!) < 1e-4),
      );
    });
    assert.notDeepEqual(together[0]!.tokenIds, together[1]!.tokenIds, 'one prefill, each request its own draws');
  });

  test('a stop token ends generation with finish reason stop; the budget with length', async () => {
    const generator = new BatchingGenerator(model);
    const greedy = await generator.submit({ prompt: golden.prompt, maxTokens: 4, temperature: 0, seed: 0 });
    assert.equal(greedy.finishReason, 'length');
    assert.equal(greedy.tokenIds.length, 4);
    const stopped = await generator.submit({
      prompt: golden.prompt,
      maxTokens: 4,
      temperature: 0,
      seed: 0,
      stopTokenIds: [greedy.tokenIds[1]!],
    });
    assert.deepEqual([stopped.finishReason, stopped.tokenIds], ['stop', greedy.tokenIds.slice(0, 2)]);
    await assert.rejects(generator.submit({ prompt: [], maxTokens: 1, temperature: 1, seed: 0 }), /at least one token/);
  });
});

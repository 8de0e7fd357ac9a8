// The embedded server of SmolLM2 speaks the vLLM subset the vllm: client uses: the client prepares a
// policy from it (served name, window, weight version, the same tokenizer), generates token ids with
// their log-probs and version, and publishes new weights with vLLM's pause, reload, version, resume.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadChatTokenizer, modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import {
  describeVllm,
  publishToVllm,
  vllmGenerate,
  vllmTokenizesAs,
} from '../../activities/policies/chat/generation-clients';
import { PolicyUnavailable } from '../../activities/policies/completions-client';
import { preparePolicy } from '../../activities/policies/policy-kinds';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createCausalLmServer } from '../../serving/causal-lm-server';

const graphDir = join(modelCacheDir(), 'onnx', 'smollm2-135m-instruct');

describe('the embedded SmolLM2 server behind the vLLM client', () => {
  const tokenizer = loadChatTokenizer('smollm2-135m-instruct');
  let url = '';
  let close = () => {};
  before(async () => {
    const { server } = await createCausalLmServer({
      name: 'smollm2-135m-instruct',
      tokenizer,
      graphDir,
      version: 'base',
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  after(() => close());

  test('describe, tokenize, generate, publish: the version every token records follows the weights', async () => {
    assert.deepEqual(await describeVllm(url), { servedModel: 'smollm2-135m-instruct', window: 8192, version: 'base' });
    assert.equal((await vllmTokenizesAs(url, 'smollm2-135m-instruct', tokenizer))!.same, true);
    assert.equal((await vllmTokenizesAs(url, 'smollm2-135m-instruct', loadChatTokenizer('qwen3')))!.same, false);
    const prompt = tokenizer.renderIds(
      [
        { role: 'system', content: 'You fix bugs.' },
        { role: 'user', content: 'Run the tests.' },
      ],
      { addGenerationPrompt: true },
    );
    const request = {
      promptIds: prompt,
      maxTokens: 5,
      temperature: 0.7,
      seed: 3,
      stopIds: tokenizer.stopIds,
      version: 'base',
    };
    const generated = await vllmGenerate(url, 'smollm2-135m-instruct', request);
    assert.equal(generated.ids.length, 5);
    assert.deepEqual(generated.versions, ['base', 'base', 'base', 'base', 'base']);
    assert.ok(generated.logprobs.every((value) => value < 0 && Number.isFinite(value)));
    assert.deepEqual(
      (await vllmGenerate(url, 'smollm2-135m-instruct', request)).ids,
      generated.ids,
      'the same seed samples the same tokens',
    );

    assert.equal(await publishToVllm(url, graphDir, 'run-step-1'), 'run-step-1');
    assert.equal((await describeVllm(url)).version, 'run-step-1');
    await assert.rejects(
      vllmGenerate(url, 'smollm2-135m-instruct', request),
      (error: unknown) =>
        error instanceof PolicyUnavailable &&
        !error.transient &&
        /weight version run-step-1, the turn expects base/.test(error.message),
    );
    assert.deepEqual(
      (await vllmGenerate(url, 'smollm2-135m-instruct', { ...request, version: 'run-step-1' })).versions,
      Array(5).fill('run-step-1'),
    );
  });

  test('preparing a vllm: policy against it reads its window and version, and refuses another tokenizer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-embedded-'));
    const store = createArtifactStore(dir);
    const prepared = await preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'smollm2-135m-instruct' } });
    assert.equal(prepared.kind, 'vllm');
    await assert.rejects(
      preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'qwen3' } }),
      /tokenizes differently from the tokenizer qwen3/,
    );
  });

  test('requests the server cannot serve exactly are refused with the field named', async () => {
    const answer = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: [1, 2], top_p: 0.9 }),
    });
    assert.equal(answer.status, 400);
    assert.match(
      ((await answer.json()) as { error: { message: string } }).error.message,
      /top_p: only top_p = 1 is served/,
    );
    const other = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-9', prompt: [1, 2] }),
    });
    assert.equal(other.status, 404);
    for (const body of ['not json', 'null', '[1, 2]']) {
      const malformed = await fetch(`${url}/tokenize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      assert.equal(malformed.status, 400, body);
      assert.match(
        ((await malformed.json()) as { error: { message: string } }).error.message,
        /the body is not a JSON object/,
      );
    }
    // idle connections outlive a client's event loop held for seconds (an in-process pass): the
    // client drops them first, never writing a request on a socket the server is closing
    assert.equal(other.headers.get('keep-alive'), 'timeout=65');
  });
});

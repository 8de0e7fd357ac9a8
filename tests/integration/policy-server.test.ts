// The embedded policy server: onnxruntime-node behind vLLM's /v1/completions shape, checked against
// the PyTorch model that was exported.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { ApplicationFailure } from '@temporalio/common';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { preparePolicy } from '../../activities/policies/policy-kinds';
import { createPolicyServer } from '../../serving/policy-server';
import type { CompletionResponse } from '../../shared/contracts/completions';
import { projectRoot } from '../../workers/config';

const python = join(projectRoot, '.venv', 'bin', 'python');
const fixture = join(projectRoot, 'tests', 'fixtures', 'policy_model.py');
const dir = mkdtempSync(join(tmpdir(), 'agentrl-policy-server-'));
const exportModel = (name: string, seed: number) =>
  execFileSync(python, [fixture, 'export', join(dir, name), String(seed)], { encoding: 'utf8' }).trim();
// PyTorch's log-probs for a sequence, computed without blocking this process: the servers under test
// share its event loop, and a loop held for seconds lets a server's keep-alive timer close a socket
// that the next request has just been written to
const referenceLogprobs = async (name: string, temperature: string, ids: number[], promptLength: number) =>
  JSON.parse(
    (
      await promisify(execFile)(
        python,
        [fixture, 'logprobs', join(dir, name), temperature, JSON.stringify(ids), String(promptLength)],
        { encoding: 'utf8' },
      )
    ).stdout,
  ) as number[];

let base = '';
let close: () => Promise<void> = async () => undefined;
let versions: string[] = [];

before(async () => {
  versions = [exportModel('v1', 1), exportModel('v2', 2)];
  const { server } = await createPolicyServer(join(dir, 'v1', 'policy.onnx'));
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolveClose) => server.close(() => resolveClose()));
});
after(() => close());

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('policy server', () => {
  test('returns the generated token ids with log-probs that the PyTorch model reproduces', async () => {
    const prompt = [5, 17, 256, 42];
    const { status, json } = await post('/v1/completions', {
      prompt,
      max_tokens: 12,
      temperature: 0.7,
      seed: 7,
      logprobs: 0,
    });
    assert.equal(status, 200);
    const response = json as unknown as CompletionResponse;
    const choice = response.choices[0]!;
    assert.equal(response.model, versions[0]);
    assert.equal(choice.token_ids!.length, 12);
    assert.deepEqual(choice.prompt_token_ids, prompt);
    assert.equal(choice.logprobs!.token_logprobs.length, 12);
    assert.deepEqual(
      choice.logprobs!.tokens,
      choice.token_ids!.map((id) => `token_id:${id}`),
    );
    assert.deepEqual(response.usage, { prompt_tokens: 4, completion_tokens: 12, total_tokens: 16 });
    const reference = await referenceLogprobs('v1', '0.7', [...prompt, ...choice.token_ids!], prompt.length);
    choice.logprobs!.token_logprobs.forEach((value, index) =>
      assert.ok(Math.abs(value - reference[index]!) < 1e-4, `token ${index}: ${value} vs ${reference[index]}`),
    );
  });

  test('a seed makes sampling reproducible; n gives several samples', async () => {
    const body = {
      prompt: [
        [1, 2, 3],
        [9, 8],
      ],
      max_tokens: 6,
      temperature: 1,
      seed: 11,
      n: 2,
    };
    const first = (await post('/v1/completions', body)).json as unknown as CompletionResponse;
    const second = (await post('/v1/completions', body)).json as unknown as CompletionResponse;
    assert.equal(first.choices.length, 4);
    assert.deepEqual(
      first.choices.map((choice) => choice.token_ids),
      second.choices.map((choice) => choice.token_ids),
    );
    assert.deepEqual(
      first.choices.map((choice) => choice.prompt_token_ids),
      [
        [1, 2, 3],
        [1, 2, 3],
        [9, 8],
        [9, 8],
      ],
    );
  });

  test('allowed_token_ids and stop_token_ids constrain and end generation', async () => {
    const allowed = [10, 11, 12];
    const { json } = await post('/v1/completions', {
      prompt: [1],
      max_tokens: 20,
      temperature: 1,
      seed: 3,
      allowed_token_ids: allowed,
      stop_token_ids: [12],
      logprobs: 0,
    });
    const choice = (json as unknown as CompletionResponse).choices[0]!;
    assert.ok(choice.token_ids!.every((id) => allowed.includes(id)));
    if (choice.finish_reason === 'stop') assert.equal(choice.token_ids!.at(-1), 12);
    else assert.equal(choice.token_ids!.length, 20);
    // log-probs are under the constrained distribution: the three allowed tokens share all the mass
    assert.ok(choice.logprobs!.token_logprobs.every((value) => value > Math.log(1e-9) && value <= 0));
  });

  test('bad requests are refused with the field named', async () => {
    const text = await post('/v1/completions', { prompt: 'hello', max_tokens: 3 });
    assert.equal(text.status, 400);
    assert.match(String((text.json.error as { message: string }).message), /prompt must be token ids/);
    const topP = await post('/v1/completions', { prompt: [1], top_p: 0.9 });
    assert.match(String((topP.json.error as { message: string }).message), /top_p: only top_p = 1 is supported/);
    const vocab = await post('/v1/completions', { prompt: [1, 999] });
    assert.match(String((vocab.json.error as { message: string }).message), /below the vocabulary size 300/);
    const notJson = await fetch(`${base}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"prompt": [1',
    });
    assert.equal(notJson.status, 400);
    // idle connections outlive a client's event loop held for seconds (see serving/http.ts)
    assert.equal(notJson.headers.get('keep-alive'), 'timeout=65');
  });

  test('load_weights swaps the policy between requests', async () => {
    const loaded = await post('/v1/load_weights', { model_path: join(dir, 'v2', 'policy.onnx') });
    assert.equal(loaded.status, 200);
    assert.equal(loaded.json.model, versions[1]);
    const models = (await (await fetch(`${base}/v1/models`)).json()) as {
      data: { id: string; max_model_len: number }[];
    };
    // the version published last comes first; the earlier one is still served
    assert.deepEqual(
      models.data.map((model) => [model.id, model.max_model_len]),
      [
        [versions[1], 64],
        [versions[0], 64],
      ],
    );
    const { json } = await post('/v1/completions', {
      prompt: [5, 6],
      max_tokens: 4,
      temperature: 0.9,
      seed: 1,
      logprobs: 0,
    });
    const choice = (json as unknown as CompletionResponse).choices[0]!;
    assert.equal((json as unknown as CompletionResponse).model, versions[1]);
    const reference = await referenceLogprobs('v2', '0.9', [5, 6, ...choice.token_ids!], 2);
    choice.logprobs!.token_logprobs.forEach((value, index) => assert.ok(Math.abs(value - reference[index]!) < 1e-4));
  });

  test('a publish never takes an earlier version away: a request naming it gets its own weights, also after a restart', async () => {
    const state = join(dir, 'served.json');
    const { server } = await createPolicyServer(undefined, { stateFile: state, maxLoaded: 1 });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const call = async (target: string, body: unknown) => {
      const response = await fetch(`${target}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        json: (await response.json()) as CompletionResponse & { error?: { message: string } },
      };
    };
    const load = (target: string, name: string) =>
      fetch(`${target}/v1/load_weights`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model_path: join(dir, name, 'policy.onnx') }),
      });
    try {
      assert.equal((await load(url, 'v1')).status, 200);
      assert.equal((await load(url, 'v2')).status, 200);
      // one session held at a time: v1 was dropped from memory and is loaded again from its file
      for (const [index, name] of [
        [0, 'v1'],
        [1, 'v2'],
        [0, 'v1'],
      ] as const) {
        const { status, json } = await call(url, {
          model: versions[index],
          prompt: [5, 6],
          max_tokens: 4,
          temperature: 0.9,
          seed: 1,
          logprobs: 0,
        });
        assert.equal(status, 200);
        assert.equal(json.model, versions[index]);
        const ids = json.choices[0]!.token_ids!;
        const reference = await referenceLogprobs(name, '0.9', [5, 6, ...ids], 2);
        json.choices[0]!.logprobs!.token_logprobs.forEach((value, token) =>
          assert.ok(Math.abs(value - reference[token]!) < 1e-4, `${name} token ${token}`),
        );
      }
      // a request without a model gets the version published last
      assert.equal((await call(url, { prompt: [5], max_tokens: 1 })).json.model, versions[1]);
    } finally {
      await new Promise((resolveClose) => server.close(() => resolveClose(undefined)));
    }
    // restarted from its state file: both versions again, the last one current
    const restarted = await createPolicyServer(undefined, { stateFile: state });
    await new Promise<void>((resolveListen) => restarted.server.listen(0, '127.0.0.1', resolveListen));
    const again = `http://127.0.0.1:${(restarted.server.address() as AddressInfo).port}`;
    try {
      assert.deepEqual(restarted.versions(), [versions[0], versions[1]]);
      const models = (await (await fetch(`${again}/v1/models`)).json()) as { data: { id: string }[] };
      assert.deepEqual(
        models.data.map((model) => model.id),
        [versions[1], versions[0]],
      );
      assert.equal((await call(again, { model: versions[0], prompt: [5], max_tokens: 1 })).json.model, versions[0]);
      const unknown = await call(again, { model: 'never-published', prompt: [5], max_tokens: 1 });
      assert.equal(unknown.status, 404);
      assert.match(unknown.json.error!.message, /never-published.*does not exist.*1 earlier version/);
    } finally {
      await new Promise((resolveClose) => restarted.server.close(() => resolveClose(undefined)));
    }
  });

  test('a request naming another model is refused, and a policy pinned to another version fails to prepare', async () => {
    const served = ((await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] }).data[0]!.id;
    const other = await post('/v1/completions', { model: 'not-this-one', prompt: [1], max_tokens: 2 });
    assert.equal(other.status, 404);
    assert.match(
      String((other.json.error as { message: string }).message),
      new RegExp(`not-this-one.*does not exist.*serves ${served}`),
    );
    assert.equal((await post('/v1/completions', { model: served, prompt: [1], max_tokens: 2 })).status, 200);
    // episodes name the version they were prepared with in every request, and a training run pins its
    // own (tests/training.test.ts runs pinned episodes; this server's vocabulary is too small for them)
    const store = createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-pin-')));
    await assert.rejects(
      preparePolicy(`completions:${base}#${versions[0]}-old`, store, projectRoot),
      (error: ApplicationFailure) =>
        error.type === 'PolicyError' && error.message.includes(`serves ${served}, not ${versions[0]}-old`),
    );
  });

  test('GET /metrics counts requests by route and status, tokens generated and weights loaded', async () => {
    const read = async () => {
      const response = await fetch(`${base}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      const text = await response.text();
      const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 'NaN');
      return {
        tokens: value(/^agentrl_serving_generated_tokens_total\{server="policy_server"\} (\S+)$/m),
        completions: value(
          /^agentrl_serving_request_duration_seconds_count\{[^}]*route="\/v1\/completions"[^}]*status="200"[^}]*\} (\S+)$/m,
        ),
        loads: value(/^agentrl_serving_weight_loads_total\{server="policy_server"\} (\S+)$/m),
        text,
      };
    };
    const before = await read();
    assert.ok(before.loads >= 1, 'the model it started with was loaded');
    assert.equal((await post('/v1/completions', { prompt: [3, 4], max_tokens: 5, seed: 1 })).status, 200);
    const after = await read();
    assert.equal(after.tokens - before.tokens, 5);
    assert.equal(after.completions - before.completions, 1);
    assert.match(after.text, /^agentrl_process_cpu_seconds_total/m);
  });
});

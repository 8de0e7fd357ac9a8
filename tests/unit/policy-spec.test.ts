// The policy spec: one parser and formatter for every place a policy is named.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PolicyError } from '../../activities/policies/policy-action';
import { preparePolicy, readScript } from '../../activities/policies/policy-kinds';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { TokenPolicySnapshot } from '../../activities/policies/token-policy';
import { formatPolicySpec, parsePolicySpec, type PolicySpec } from '../../shared/contracts/policy-spec';
import { projectRoot } from '../../workers/config';

describe('policy specs', () => {
  test('every form reads back to what formats it', () => {
    const specs: [string, PolicySpec][] = [
      ['scripted:examples/policies/a.jsonl', { kind: 'scripted', file: 'examples/policies/a.jsonl' }],
      ['scripted:/abs/with:colon.jsonl', { kind: 'scripted', file: '/abs/with:colon.jsonl' }],
      ['completions:http://127.0.0.1:8100', { kind: 'completions', url: 'http://127.0.0.1:8100' }],
      ['completions:https://host/v#run-step-3', { kind: 'completions', url: 'https://host/v', version: 'run-step-3' }],
      ['demo:format', { kind: 'demo', name: 'format' }],
      ['demo:tools', { kind: 'demo', name: 'tools' }],
      ['random:', { kind: 'random' }],
      ['vllm:http://gpu-1:8000', { kind: 'vllm', url: 'http://gpu-1:8000' }],
      ['vllm:http://gpu-1:8000#run-step-2', { kind: 'vllm', url: 'http://gpu-1:8000', version: 'run-step-2' }],
      ['sglang:http://gpu-2:30000#policy-v4', { kind: 'sglang', url: 'http://gpu-2:30000', version: 'policy-v4' }],
      ['tokens:/tmp/turns.jsonl', { kind: 'tokens', file: '/tmp/turns.jsonl' }],
      ['runs/r/policies/v3/policy.onnx', { kind: 'onnx', file: 'runs/r/policies/v3/policy.onnx' }],
    ];
    for (const [text, spec] of specs) {
      assert.deepEqual(parsePolicySpec(text), { ok: true, spec }, text);
      assert.equal(formatPolicySpec(spec), text);
    }
    assert.deepEqual(
      parsePolicySpec('completions:http://h:1/'),
      { ok: true, spec: { kind: 'completions', url: 'http://h:1' } },
      'a trailing slash is dropped',
    );
  });

  test('a bad spec says what is wrong and lists the known forms', () => {
    const known =
      'known: scripted:FILE.jsonl, completions:URL[#VERSION], vllm:URL[#VERSION], sglang:URL[#VERSION], tokens:FILE.jsonl, replies:FILE.jsonl, demo:format, demo:tools, demo:solve, random:, FILE.onnx';
    for (const [text, reason] of [
      ['scripted:', 'scripted: needs a file'],
      ['completions:localhost:8000', 'completions: needs an http(s) URL'],
      ['completions:http://h:1#', 'the version after # must not be empty'],
      ['demo:fix', 'demo: knows only demo:format, demo:tools, demo:solve'],
      ['random:x', 'random: takes nothing after the colon'],
      ['vllm:localhost:8000', 'vllm: needs an http(s) URL'],
      ['sglang:http://h:1#', 'sglang: the version after # must not be empty'],
      ['tokens:', 'tokens: needs a file'],
      ['openai:http://h', 'unknown policy "openai:http://h"'],
      ['policy.jsonl', 'unknown policy "policy.jsonl"'],
    ] as const) {
      const parsed = parsePolicySpec(text);
      assert.equal(parsed.ok, false, text);
      assert.ok(
        !parsed.ok && parsed.error.includes(reason) && parsed.error.endsWith(known),
        `${text}: ${!parsed.ok && parsed.error}`,
      );
    }
  });
});

describe('scripted policies', () => {
  test('each JSON line is an action: a tool call as written, or a JSON string as its text', () => {
    assert.deepEqual(
      readScript('{"tool": "bash", "command": "ls"}\n\n"run"\n"not json at all"\n{"tool":"submit"}\n', 'p.jsonl'),
      ['{"tool": "bash", "command": "ls"}', 'run', 'not json at all', '{"tool":"submit"}'],
    );
  });

  test('a line that is not JSON is refused with its line number, when the policy is prepared', async () => {
    assert.throws(
      () => readScript('"run"\nwrite_test\n', 'p.jsonl'),
      (error: unknown) =>
        error instanceof PolicyError &&
        /^p\.jsonl:2: not JSON; write each action as a JSON tool call/.test(error.message),
    );
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-script-'));
    writeFileSync(join(dir, 'bad.jsonl'), 'run\n');
    const store = createArtifactStore(join(dir, 'store'));
    await assert.rejects(
      preparePolicy(`scripted:${join(dir, 'bad.jsonl')}`, store, dir),
      (error: Error & { type?: string }) =>
        error.type === 'InvalidPolicy' && /bad\.jsonl:1: not JSON/.test(error.message),
    );
    await assert.rejects(
      preparePolicy('sampled:x', store, dir),
      (error: Error & { type?: string }) =>
        error.type === 'InvalidPolicy' && /unknown policy "sampled:x"/.test(error.message),
    );
    await assert.rejects(
      preparePolicy(join(dir, 'v.onnx'), store, dir),
      (error: Error & { type?: string }) => error.type === 'InvalidPolicy' && /is served first/.test(error.message),
    );
  });
});

describe('served policies', () => {
  test('a server that states no usable window, or another version than the pinned one, fails to prepare at once', async () => {
    let window: number | undefined = 0;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: [
            { id: 'v7', object: 'model', ...(window === undefined ? {} : { max_model_len: window }), vocab_size: 404 },
          ],
        }),
      );
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-served-'));
    const store = createArtifactStore(dir);
    try {
      const nonRetryable =
        (type: string, message: RegExp) => (error: Error & { type?: string; nonRetryable?: boolean }) =>
          error.type === type && error.nonRetryable === true && message.test(error.message);
      await assert.rejects(
        preparePolicy(`completions:${url}`, store, dir),
        nonRetryable('InvalidPolicy', /states no max_model_len/),
      );
      window = undefined;
      await assert.rejects(
        preparePolicy(`completions:${url}`, store, dir),
        nonRetryable('InvalidPolicy', /states no max_model_len/),
      );
      window = 512;
      await assert.rejects(
        preparePolicy(`completions:${url}#v6`, store, dir),
        nonRetryable('PolicyError', /serves v7, not v6/),
      );
      const prepared = await preparePolicy(`completions:${url}#v7`, store, dir);
      assert.deepEqual([prepared.kind, prepared.version], ['completions', 'v7']);
    } finally {
      server.close();
    }
  });

  test("chat policies: a vLLM server's served name, window and weight version are read; a pinned other version, an unknown tokenizer, a dev-mode-less server are refused", async () => {
    let weightVersion: string | null = 'run-step-2';
    let tokenizeAnswer: unknown = null;
    const server = createServer((request, response) => {
      response.writeHead(request.url === '/weight_info' && weightVersion === null ? 404 : 200, {
        'content-type': 'application/json',
      });
      if (request.url === '/v1/models')
        response.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'smollm2', object: 'model', max_model_len: 8192, root: '/ckpt/v0' }],
          }),
        );
      else if (request.url === '/weight_info')
        response.end(
          JSON.stringify(weightVersion === null ? { detail: 'Not Found' } : { weight_version: weightVersion }),
        );
      // the served model's tokenizer (vLLM's /tokenize fixture: SmolLM2's ids of the probe), once it is asked for
      else if (request.url === '/tokenize' && tokenizeAnswer) response.end(JSON.stringify(tokenizeAnswer));
      else response.end('{}');
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-chat-'));
    const store = createArtifactStore(dir);
    try {
      const prepared = await preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'qwen3' } });
      assert.deepEqual([prepared.kind, prepared.version], ['vllm', 'run-step-2']);
      const snapshot = await store.getJson(prepared.ref, TokenPolicySnapshot);
      assert.deepEqual(
        [snapshot.interface, snapshot.servedModel, snapshot.window, snapshot.sampling.chat.tokenizer],
        ['chat-tools', 'smollm2', 8192, 'qwen3'],
      );
      await assert.rejects(
        preparePolicy(`vllm:${url}#run-step-1`, store, dir),
        (error: Error & { type?: string }) =>
          error.type === 'PolicyError' && /serves weight version run-step-2, not run-step-1/.test(error.message),
      );
      await assert.rejects(
        preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'gpt-9' } }),
        (error: Error & { type?: string }) =>
          error.type === 'InvalidPolicy' &&
          /sampling\.chat\.tokenizer: unknown chat tokenizer "gpt-9"; known: smollm2-135m-instruct, qwen3/.test(
            error.message,
          ),
      );
      await assert.rejects(
        preparePolicy(`vllm:${url}`, store, dir, { chat: { maxActionTokens: 0 } }),
        (error: Error & { type?: string }) =>
          error.type === 'InvalidPolicy' && /chat\.maxActionTokens/.test(error.message),
      );
      tokenizeAnswer = (
        JSON.parse(
          readFileSync(join(projectRoot, 'tests', 'fixtures', 'serving', 'vllm', 'tokenize.json'), 'utf8'),
        ) as { response: { body: unknown } }
      ).response.body;
      await assert.rejects(
        preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'qwen3' } }),
        (error: Error & { type?: string }) =>
          error.type === 'InvalidPolicy' &&
          /tokenizes differently from the tokenizer qwen3 .*set sampling\.chat\.tokenizer/.test(error.message),
      );
      assert.equal(
        (await preparePolicy(`vllm:${url}`, store, dir, { chat: { tokenizer: 'smollm2-135m-instruct' } })).kind,
        'vllm',
      );
      weightVersion = null;
      await assert.rejects(
        preparePolicy(`vllm:${url}`, store, dir),
        (error: Error & { type?: string; nonRetryable?: boolean }) =>
          error.type === 'InvalidPolicy' && error.nonRetryable === true && /VLLM_SERVER_DEV_MODE=1/.test(error.message),
      );
    } finally {
      server.close();
    }
  });
});

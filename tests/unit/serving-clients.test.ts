// The vLLM and SGLang clients against request/response fixtures written from each server's source
// (tests/fixtures/serving/{vllm,sglang}/README.md): the bodies they send, how they read every answer,
// and the publish and describe calls, over HTTP to a server that replays the fixtures.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import {
  describeSglang,
  describeVllm,
  publishToSglang,
  publishToVllm,
  readSglangGenerate,
  readVllmCompletion,
  sglangGenerate,
  sglangGenerateBody,
  vllmCompletionBody,
  vllmGenerate,
  type GenerateRequest,
  type Generated,
} from '../../activities/policies/chat/generation-clients';
import { PolicyUnavailable } from '../../activities/policies/completions-client';
import { projectRoot } from '../../workers/config';

type Json = Record<string, unknown>;

interface Fixture {
  source: {
    repo: string;
    commit: string | null;
    version: string;
    files: string[];
    artifact?: { kind: string; name: string; sha256: string };
  };
  case: string;
  description: string;
  request: { method: string; path: string; query: Record<string, string>; body: Json | null };
  acceptedFields?: string[];
  acceptedSamplingParams?: string[];
  response: { status: number; body: unknown };
  expect: Json;
}

type Server = 'vllm' | 'sglang';

function loadFixtures(server: Server): Map<string, Fixture> {
  const folder = join(projectRoot, 'tests', 'fixtures', 'serving', server);
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return new Map(
    files.map((name) => [name.replace(/\.json$/, ''), JSON.parse(readFileSync(join(folder, name), 'utf8')) as Fixture]),
  );
}

const fixtures: Record<Server, Map<string, Fixture>> = { vllm: loadFixtures('vllm'), sglang: loadFixtures('sglang') };

function fixture(server: Server, name: string): Fixture {
  const found = fixtures[server].get(name);
  assert.ok(found, `no fixture ${server}/${name}.json`);
  return found;
}

const generatePath: Record<Server, string> = { vllm: '/v1/completions', sglang: '/generate' };
const generations = (server: Server) =>
  [...fixtures[server].values()].filter((each) => each.request.path === generatePath[server]);

/** The version the SGLang server serves before any publish (its /model_info), for requests whose fixture names none. */
const sglangServed = (fixture('sglang', 'model-info').response.body as { weight_version: string }).weight_version;

/** The GenerateRequest a turn would make to get the fixture's request body. */
function requestOf(server: Server, fixtureCase: Fixture): GenerateRequest {
  const body = fixtureCase.request.body as Json;
  const expected = (fixtureCase.expect.expectedVersion ??
    body.model ??
    fixtureCase.expect.version ??
    sglangServed) as string;
  if (server === 'vllm') {
    return {
      promptIds: body.prompt as number[],
      maxTokens: body.max_tokens as number,
      temperature: body.temperature as number,
      seed: body.seed as number,
      stopIds: body.stop_token_ids as number[],
      version: expected,
    };
  }
  const sampling = body.sampling_params as Json;
  return {
    promptIds: body.input_ids as number[],
    maxTokens: sampling.max_new_tokens as number,
    temperature: sampling.temperature as number,
    seed: (sampling.sampling_seed ?? sampling.seed) as number,
    stopIds: sampling.stop_token_ids as number[],
    version: expected,
  };
}

function bodyOf(server: Server, fixtureCase: Fixture): Json {
  const request = requestOf(server, fixtureCase);
  return server === 'vllm'
    ? vllmCompletionBody((fixtureCase.request.body as Json).model as string, request)
    : sglangGenerateBody(request);
}

function read(
  server: Server,
  fixtureCase: Fixture,
  answer = fixtureCase.response,
  request = requestOf(server, fixtureCase),
): Generated {
  const reader = server === 'vllm' ? readVllmCompletion : readSglangGenerate;
  return reader(`${server} fixture ${fixtureCase.case}`, { status: answer.status, body: answer.body }, request);
}

/** Asserts `run` throws a PolicyUnavailable with `transient`, and returns its message. */
function unavailable(run: () => unknown, transient: boolean, label: string): string {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  assert.ok(
    caught instanceof PolicyUnavailable,
    `${label}: expected PolicyUnavailable, got ${caught === undefined ? 'a result' : inspect(caught)}`,
  );
  assert.equal(caught.transient, transient, `${label}: transient (${caught.message})`);
  return caught.message;
}

const pathOf = (request: Fixture['request']) =>
  `${request.path}${Object.keys(request.query).length ? `?${new URLSearchParams(request.query).toString()}` : ''}`;

interface Recorded {
  method: string;
  path: string;
  body: unknown;
}
interface Reply {
  status: number;
  body: unknown;
}

/**
 * A fake standing in for vLLM / SGLang, which cannot run here (no GPU, no model): it REPLAYS the
 * fixtures' answers, keyed by `METHOD path?query`, and records every request it is sent.
 */
async function replay(
  routes: Record<string, Reply>,
  run: (url: string, requests: Recorded[]) => Promise<void>,
): Promise<void> {
  const requests: Recorded[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = incoming.url ?? '';
      requests.push({ method: incoming.method ?? '', path, body: text ? JSON.parse(text) : null });
      const reply = routes[`${incoming.method} ${path}`] ?? {
        status: 404,
        body: {
          error: {
            message: `no fixture for ${incoming.method} ${path}`,
            type: 'NotFoundError',
            param: null,
            code: 404,
          },
        },
      };
      outgoing.writeHead(reply.status, { 'content-type': 'application/json' });
      outgoing.end(reply.body === null ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const routesOf = (...cases: Fixture[]): Record<string, Reply> =>
  Object.fromEntries(cases.map((each) => [`${each.request.method} ${pathOf(each.request)}`, each.response]));
const recordedOf = (...cases: Fixture[]): Recorded[] =>
  cases.map((each) => ({ method: each.request.method, path: pathOf(each.request), body: each.request.body }));

const nonEmpty = (value: unknown) => typeof value === 'string' && value.length > 0;

describe('serving fixtures cite their upstream', () => {
  for (const [server, repo] of [
    ['vllm', 'vllm-project/vllm'],
    ['sglang', 'sgl-project/sglang'],
  ] as const) {
    test(`${server}: repo, version, files and a commit (or, for a wheel without one, the artifact)`, () => {
      assert.ok(fixtures[server].size > 0);
      for (const [name, each] of fixtures[server]) {
        assert.equal(each.case, name, `${name}: case names the file`);
        assert.equal(each.source.repo, repo, name);
        assert.ok(nonEmpty(each.source.version), `${name}: source.version`);
        assert.ok(
          Array.isArray(each.source.files) && each.source.files.length > 0 && each.source.files.every(nonEmpty),
          `${name}: source.files`,
        );
        if (server === 'vllm') assert.ok(nonEmpty(each.source.commit), `${name}: source.commit`);
        else {
          const artifact = each.source.artifact;
          assert.ok(
            nonEmpty(each.source.commit) ||
              (artifact !== undefined &&
                nonEmpty(artifact.kind) &&
                nonEmpty(artifact.name) &&
                nonEmpty(artifact.sha256)),
            `${name}: source.commit or source.artifact`,
          );
        }
      }
      assert.equal(
        new Set([...fixtures[server].values()].map((each) => each.source.version)).size,
        1,
        'one upstream version',
      );
    });
  }

  test('vllm: every completion asks for weight versions and every 200 answer states them', () => {
    for (const each of generations('vllm')) {
      assert.equal((each.request.body as Json).return_weight_versions, true, each.case);
      if (each.response.status !== 200) continue;
      const choice = (
        each.response.body as {
          choices: { token_ids: number[]; weight_versions: { start: number; end: number }[] | null }[];
        }
      ).choices[0]!;
      assert.ok(Array.isArray(choice.weight_versions) && choice.weight_versions.length > 0, each.case);
      assert.equal(choice.weight_versions.at(-1)!.end, choice.token_ids.length, each.case);
    }
  });
});

describe('request bodies', () => {
  for (const server of ['vllm', 'sglang'] as const) {
    for (const each of generations(server)) {
      test(`${server} ${each.case}: only accepted fields, and the fixture's values`, () => {
        const sent = bodyOf(server, each);
        const fixtureBody = each.request.body as Json;
        assert.ok(each.acceptedFields?.length, 'the fixture lists acceptedFields');
        for (const field of Object.keys(sent))
          assert.ok(each.acceptedFields.includes(field), `${field} is not an accepted field`);
        for (const field of Object.keys(sent)) {
          if (field === 'sampling_params' || !(field in fixtureBody)) continue;
          assert.deepEqual(sent[field], fixtureBody[field], field);
        }
        if (server === 'sglang') {
          const sampling = sent.sampling_params as Json;
          const fixtureSampling = fixtureBody.sampling_params as Json;
          assert.ok(each.acceptedSamplingParams?.length, 'the fixture lists acceptedSamplingParams');
          for (const key of Object.keys(sampling)) {
            assert.ok(each.acceptedSamplingParams.includes(key), `sampling_params.${key} is not accepted`);
            if (key in fixtureSampling) assert.deepEqual(sampling[key], fixtureSampling[key], `sampling_params.${key}`);
          }
        }
      });
    }
  }

  test('sglang: the seed goes in sampling_seed; `seed` is the field SGLang refuses', () => {
    const refused = fixture('sglang', 'generate-refused-unknown-sampling-param');
    assert.ok('seed' in (refused.request.body!.sampling_params as Json));
    assert.ok(!refused.acceptedSamplingParams!.includes('seed'));
    const sampling = sglangGenerateBody(requestOf('sglang', refused)).sampling_params as Json;
    assert.equal(sampling.sampling_seed, 1234);
    assert.ok(!('seed' in sampling));
  });
});

const finishOf = (reason: unknown) => (reason === 'repetition' ? 'length' : reason);

describe('reading answers', () => {
  for (const server of ['vllm', 'sglang'] as const) {
    for (const each of generations(server)) {
      test(`${server} ${each.case}: ${(each.expect.error as string | undefined) ?? 'tokens, log-probs, finish reason, version'}`, () => {
        const expect = each.expect;
        const request = requestOf(server, each);
        switch (expect.error) {
          case undefined: {
            const generated = read(server, each);
            assert.deepEqual(generated.ids, expect.tokenIds);
            assert.deepEqual(generated.logprobs, expect.logprobs);
            assert.equal(generated.finishReason, finishOf(expect.finishReason));
            assert.equal(generated.version, expect.version);
            assert.deepEqual(
              generated.versions,
              generated.ids.map(() => expect.version),
            );
            break;
          }
          case 'abort':
          case 'paused': {
            assert.notEqual(expect.retryable, false, 'an abort or a pause is retryable');
            const message = unavailable(() => read(server, each), true, each.case);
            if (Array.isArray(expect.partialTokenIds))
              assert.match(message, new RegExp(`after ${expect.partialTokenIds.length} tokens`));
            break;
          }
          case 'version-mismatch': {
            const message = unavailable(() => read(server, each), false, each.case);
            const named = [
              expect.expectedVersion,
              expect.version,
              expect.requested,
              ...((expect.served as string[] | undefined) ?? []),
            ].filter((version) => version !== undefined);
            assert.ok(named.length >= 2);
            for (const version of named)
              assert.ok(message.includes(version as string), `${message} names ${version as string}`);
            if (expect.expectedVersion !== undefined) assert.equal(request.version, expect.expectedVersion);
            break;
          }
          case 'refused':
            assert.ok(each.response.status >= 400 && each.response.status < 500);
            unavailable(() => read(server, each), false, each.case);
            break;
          default:
            assert.fail(`unknown expect.error ${String(expect.error)}`);
        }
      });
    }
  }

  test('vllm: an answer without weight_versions is refused (the client needs return_weight_versions)', () => {
    const stop = fixture('vllm', 'completions-stop');
    const body = structuredClone(stop.response.body) as { choices: { weight_versions: unknown }[] };
    body.choices[0]!.weight_versions = null;
    assert.match(
      unavailable(() => read('vllm', stop, { status: 200, body }), false, stop.case),
      /weight version/,
    );
  });

  test('vllm: a repetition stop reads as a length cut', () => {
    const stop = fixture('vllm', 'completions-stop');
    const body = structuredClone(stop.response.body) as { choices: { finish_reason: string }[] };
    body.choices[0]!.finish_reason = 'repetition';
    assert.equal(read('vllm', stop, { status: 200, body }).finishReason, 'length');
  });

  test('vllm: tokens sampled by the published version are refused by a turn of the old one', () => {
    const other = fixture('vllm', 'completions-weight-versions');
    assert.equal((other.request.body as Json).model, 'policy-v3', 'the served model name is unchanged by the publish');
    assert.equal(requestOf('vllm', other).version, 'policy-v3');
    assert.match(
      unavailable(() => read('vllm', other), false, other.case),
      /policy-v4.*policy-v3/,
    );
    // the same answer is what a turn of policy-v4 uses
    const generated = read('vllm', other, other.response, { ...requestOf('vllm', other), version: 'policy-v4' });
    assert.equal(generated.version, 'policy-v4');
    assert.equal(generated.finishReason, other.expect.finishReason);
  });
});

describe('per-token versions', () => {
  const mixed = fixture('sglang', 'generate-mixed-version');
  const spans = (mixed.response.body as { meta_info: { weight_versions: { version: string }[] } }).meta_info
    .weight_versions;

  test('sglang generate-mixed-version: spans policy-v3 then policy-v4', () => {
    assert.deepEqual(
      spans.map((span) => span.version),
      ['policy-v3', 'policy-v4'],
    );
    assert.deepEqual(spans, mixed.expect.versionSpans);
  });

  test('is a version mismatch for a turn expecting policy-v3', () => {
    const message = unavailable(
      () => read('sglang', mixed, mixed.response, { ...requestOf('sglang', mixed), version: 'policy-v3' }),
      false,
      mixed.case,
    );
    assert.match(message, /policy-v4.*policy-v3/);
  });

  test('and for one expecting policy-v4, though meta_info.weight_version says policy-v4: its first tokens are policy-v3', () => {
    const message = unavailable(
      () => read('sglang', mixed, mixed.response, { ...requestOf('sglang', mixed), version: 'policy-v4' }),
      false,
      mixed.case,
    );
    assert.match(message, /policy-v3.*policy-v4/);
  });
});

describe('a server that truncated the prompt', () => {
  test('vllm and sglang: an answer that read fewer prompt tokens than were sent is refused', () => {
    const vllm = fixture('vllm', 'completions-stop');
    const vllmBody = structuredClone(vllm.response.body) as {
      choices: { prompt_token_ids: number[] }[];
      usage: { prompt_tokens: number };
    };
    vllmBody.choices[0]!.prompt_token_ids = vllmBody.choices[0]!.prompt_token_ids.slice(1);
    const sent = requestOf('vllm', vllm);
    assert.match(
      unavailable(() => read('vllm', vllm, { ...vllm.response, body: vllmBody }, sent), false, vllm.case),
      new RegExp(`read ${sent.promptIds.length - 1} prompt tokens of the ${sent.promptIds.length} sent`),
    );
    const sglang = fixture('sglang', 'generate-stop');
    const sglangBody = structuredClone(sglang.response.body) as { meta_info: { prompt_tokens: number } };
    sglangBody.meta_info.prompt_tokens -= 6;
    assert.match(
      unavailable(
        () => read('sglang', sglang, { ...sglang.response, body: sglangBody }, requestOf('sglang', sglang)),
        false,
        sglang.case,
      ),
      /prompt tokens of the \d+ sent \(does it truncate prompts\?\)/,
    );
  });
});

describe('publishing weights (replayed servers)', () => {
  const steps = ['weights-1-pause', 'weights-2-reload', 'weights-3-set-version', 'weights-4-resume'].map((name) =>
    fixture('vllm', name),
  );

  test('vllm: pause, reload, set the version, resume, in that order', async () => {
    await replay(routesOf(...steps), async (url, requests) => {
      assert.equal(await publishToVllm(url, '/ckpt/policy-v4', 'policy-v4'), 'policy-v4');
      assert.deepEqual(requests, recordedOf(...steps));
    });
  });

  test('vllm: a failed reload still resumes, then throws', async () => {
    const routes = routesOf(...steps);
    routes[`POST ${pathOf(steps[1]!.request)}`] = {
      status: 500,
      body: {
        error: {
          message: 'reload_weights failed: no safetensors in /ckpt/policy-v4',
          type: 'InternalServerError',
          param: null,
          code: 500,
        },
      },
    };
    await replay(routes, async (url, requests) => {
      await assert.rejects(
        publishToVllm(url, '/ckpt/policy-v4', 'policy-v4'),
        (error: Error) =>
          /\/collective_rpc answered 500/.test(error.message) && /reload_weights failed/.test(error.message),
      );
      assert.deepEqual(requests, recordedOf(steps[0]!, steps[1]!, steps[3]!));
    });
  });

  test('sglang: /update_weights_from_disk with the fixture body', async () => {
    const update = fixture('sglang', 'update-weights-from-disk');
    await replay(routesOf(update), async (url, requests) => {
      assert.equal(await publishToSglang(url, '/ckpt/policy-v4', 'policy-v4'), 'policy-v4');
      assert.deepEqual(requests, recordedOf(update));
      for (const field of Object.keys(requests[0]!.body as Json))
        assert.ok(update.acceptedFields!.includes(field), field);
    });
  });

  for (const name of ['update-weights-failure', 'update-weights-flush-refused']) {
    test(`sglang ${name}: throws with the server's message`, async () => {
      const failure = fixture('sglang', name);
      const message = (failure.response.body as { message: string }).message;
      await replay(routesOf(failure), async (url, requests) => {
        await assert.rejects(publishToSglang(url, '/ckpt/policy-v4', 'policy-v4'), (error: Error) =>
          error.message.includes(message),
        );
        assert.deepEqual(requests, recordedOf(failure));
      });
    });
  }
});

describe('describing servers (replayed)', () => {
  test('vllm: served model name and window from /v1/models, version from /weight_info', async () => {
    const models = fixture('vllm', 'models');
    const info = fixture('vllm', 'weights-5-weight-info');
    await replay(routesOf(models, info), async (url) => {
      assert.deepEqual(await describeVllm(url), {
        servedModel: (models.expect.models as string[])[0],
        window: models.expect.maxModelLen,
        version: info.expect.version,
      });
    });
  });

  test('sglang: window from /v1/models within /server_info max_req_input_len, version from /model_info (not the stale /server_info)', async () => {
    const modelInfo = fixture('sglang', 'model-info');
    const models = fixture('sglang', 'v1-models');
    const serverInfo = fixture('sglang', 'server-info');
    assert.notEqual((serverInfo.response.body as Json).weight_version, modelInfo.expect.version);
    await replay(routesOf(modelInfo, models, serverInfo), async (url) => {
      // a request may hold at most max_req_input_len prompt tokens (and generate one more)
      assert.deepEqual(await describeSglang(url), {
        window: Math.min(models.expect.contextLength as number, (serverInfo.expect.maxReqInputLen as number) + 1),
        version: modelInfo.expect.version,
      });
    });
  });

  test('sglang: without /v1/models the window is /server_info max_req_input_len', async () => {
    const modelInfo = fixture('sglang', 'model-info');
    const serverInfo = fixture('sglang', 'server-info');
    await replay(routesOf(modelInfo, serverInfo), async (url) => {
      assert.deepEqual(await describeSglang(url), {
        window: (serverInfo.expect.maxReqInputLen as number) + 1,
        version: modelInfo.expect.version,
      });
    });
  });
});

describe('generating over HTTP (replayed)', () => {
  test('vllm: vllmGenerate sends the fixture request and reads its answer', async () => {
    const stop = fixture('vllm', 'completions-stop');
    const request = requestOf('vllm', stop);
    await replay(routesOf(stop), async (url, requests) => {
      const generated = await vllmGenerate(url, (stop.request.body as Json).model as string, request);
      assert.deepEqual(requests, recordedOf(stop));
      assert.deepEqual(generated, {
        ids: stop.expect.tokenIds,
        logprobs: stop.expect.logprobs,
        finishReason: stop.expect.finishReason,
        version: stop.expect.version,
        versions: (stop.expect.tokenIds as number[]).map(() => stop.expect.version),
      });
    });
  });

  test('sglang: sglangGenerate sends its body and reads the answer', async () => {
    const stop = fixture('sglang', 'generate-stop');
    const request = requestOf('sglang', stop);
    await replay(routesOf(stop), async (url, requests) => {
      const generated = await sglangGenerate(url, request);
      assert.equal(requests.length, 1);
      assert.equal(requests[0]!.method, stop.request.method);
      assert.equal(requests[0]!.path, pathOf(stop.request));
      assert.deepEqual(requests[0]!.body, sglangGenerateBody(request));
      const { rid: _rid, ...sharedFields } = stop.request.body as Json;
      assert.deepEqual(requests[0]!.body, sharedFields, 'the fixture body, less its rid');
      assert.deepEqual(generated, {
        ids: stop.expect.tokenIds,
        logprobs: stop.expect.logprobs,
        finishReason: stop.expect.finishReason,
        version: stop.expect.version,
        versions: (stop.expect.tokenIds as number[]).map(() => stop.expect.version),
      });
    });
  });
});

// The model gateway refuses bad requests in each API's own error shape, records nothing for them and holds nothing:
// a wrong key, malformed and oversize bodies, an unknown endpoint, a session whose episode has ended, a client that
// never finishes sending, more concurrent requests than a session may hold. Real Temporal dev server, real sockets.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { type Gateway, type GatewayRequestTiming } from '../../serving/gateway/server';
import { createWorkerGateway } from '../../workers/gateway';
import { startTestServer, waitFor } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let gateway: Gateway;
const storeDir = mkdtempSync(join(tmpdir(), 'agentrl-gateway-store-'));
const dir = mkdtempSync(join(tmpdir(), 'agentrl-gw-'));
const socketPath = join(dir, 'gateway.sock');
const key = 'k-right';
const timings: GatewayRequestTiming[] = [];

before(async () => {
  env = await startTestServer();
  gateway = createWorkerGateway(env.client, createArtifactStore(storeDir), {
    limits: { maxBodyBytes: 64 * 1024, maxConcurrent: 2, bodyTimeoutMs: 1500 },
    onRequest: (timing) => timings.push(timing),
  });
  // the session's episode is a workflow that has already ended (its input was refused)
  const ended = await env.client.workflow.start('rolloutEpisode', {
    taskQueue: 'gateway-bad-input',
    workflowId: 'gateway-ended-episode',
    args: [{ harness: 'no-such-harness' }],
  });
  await env.client.workflow.getHandle(ended.workflowId).terminate('ended before the call');
  await gateway.open({ id: 'gateway-ended-episode#0', key, workflowId: 'gateway-ended-episode', model: 'm', dir });
});

after(async () => {
  await gateway?.closeAll();
  await env?.teardown();
});

function post(
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = { authorization: `Bearer ${key}` },
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolvePost, reject) => {
    const req = httpRequest(
      { socketPath, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolvePost({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const chat = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const anthropic = JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
/** Nothing was stored for a refused request: the store holds no blob at all. */
const stored = () => readdirSync(storeDir, { recursive: true }).filter((name) => String(name).includes('.')).length;

describe('model gateway: bad input', () => {
  test('a wrong or missing key: 401 in the API shape, nothing stored', async () => {
    const wrong = await post('/v1/chat/completions', chat, { authorization: 'Bearer nope' });
    assert.equal(wrong.status, 401);
    assert.equal((wrong.body as { error: { type: string } }).error.type, 'authentication_error');
    const missing = await post('/v1/messages', anthropic, {});
    assert.equal(missing.status, 401);
    assert.equal((missing.body as { type: string }).type, 'error', 'Anthropic error shape');
    assert.equal(stored(), 0);
  });

  test('malformed, wrongly shaped and oversize bodies: 400 / 413 naming the problem, nothing stored', async () => {
    const notJson = await post('/v1/chat/completions', '{"model": ');
    assert.equal(notJson.status, 400);
    assert.match(JSON.stringify(notJson.body), /not JSON/);
    const badRole = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'm', messages: [{ role: 'x', content: 'a' }] }),
    );
    assert.equal(badRole.status, 400);
    assert.match(JSON.stringify(badRole.body), /messages\[0\]/);
    const noMax = await post(
      '/v1/messages',
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'a' }] }),
    );
    assert.equal(noMax.status, 400);
    assert.match(JSON.stringify(noMax.body), /max_tokens/);
    const huge = await post('/v1/responses', JSON.stringify({ model: 'm', input: 'x'.repeat(200_000) }));
    assert.equal(huge.status, 413);
    const unknown = await post('/v1/embeddings', chat);
    assert.equal(unknown.status, 404);
    assert.equal(stored(), 0);
  });

  test('a call of an episode that has ended: refused in the API shape, the gateway goes on', async () => {
    timings.length = 0;
    const answer = await post('/v1/chat/completions', chat);
    assert.equal(answer.status, 409);
    assert.match(JSON.stringify(answer.body), /does not take this call/);
    // the next request is served as before
    const again = await post('/v1/chat/completions', chat, { authorization: 'Bearer nope' });
    assert.equal(again.status, 401);
    // each request is timed once answered: the call sent to its episode with the time the episode took, the one
    // refused at the door without
    await waitFor('both requests timed', async () => timings.length === 2);
    const [sent, refused] = timings;
    assert.equal(sent!.status, 409);
    assert.match(sent!.updateId ?? '', /^gateway-ended-episode#0:\d+$/);
    assert.ok(sent!.episodeMs! > 0 && sent!.episodeMs! <= sent!.totalMs, JSON.stringify(sent));
    assert.deepEqual(
      { ...refused, totalMs: 0 },
      {
        session: 'gateway-ended-episode#0',
        path: '/v1/chat/completions',
        status: 401,
        totalMs: 0,
        updateId: null,
        episodeMs: null,
      },
    );
  });

  test('a client that never finishes its body is cut off; more requests at once than allowed get 429', async () => {
    // two requests that send headers and a part of the body, then nothing
    const stalled = [0, 1].map(
      () =>
        new Promise<string>((resolveStalled) => {
          const socket = connect(socketPath, () => {
            socket.write(
              'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
                `authorization: Bearer ${key}\r\ncontent-length: 1000\r\n\r\n{"model"`,
            );
          });
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString('utf8')));
          socket.on('close', () => resolveStalled(text));
        }),
    );
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
    const third = await post('/v1/chat/completions', chat);
    assert.equal(third.status, 429);
    assert.equal((third.body as { error: { type: string } }).error.type, 'rate_limit_error');
    const cut = await Promise.all(stalled);
    for (const text of cut) assert.match(text, /^HTTP\/1\.1 408/);
    // the session serves again once they are gone
    const after = await post('/v1/chat/completions', chat, { authorization: 'Bearer nope' });
    assert.equal(after.status, 401);
  });

  test('a session is reachable only through its own socket, and not at all once closed', async () => {
    await gateway.close('gateway-ended-episode#0');
    await assert.rejects(post('/v1/chat/completions', chat), /ENOENT|ECONNREFUSED/);
  });
});

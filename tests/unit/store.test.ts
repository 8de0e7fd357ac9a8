// The artifact store and the episode records it holds.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import {
  createEpisodeRecords,
  episodeKey,
  type ModelRecord,
  type TurnRecord,
} from '../../activities/store/episode-records';

describe('artifact store', () => {
  test('blobs are content-addressed and written atomically', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrl-store-'));
    const store = createArtifactStore(root);
    const ref = await store.putBlob('hello');
    assert.equal(ref, 'sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    assert.equal(await store.putBlob(Buffer.from('hello')), ref);
    assert.equal((await store.getBlob(ref)).toString(), 'hello');
    await store.writeNamed('episodes/e/turns/000000.json', '{}');
    assert.deepEqual(await store.listNamed('episodes/e/turns'), ['000000.json']);
    assert.deepEqual(readdirSync(join(root, 'episodes', 'e', 'turns')), ['000000.json'], 'no temporary file is left');
    await assert.rejects(store.writeNamed('../escape', 'x'), /invalid artifact name/);
    await assert.rejects(store.getBlob('sha1:abc'), /not an artifact reference/);
  });
  test('episode keys are safe folder names and distinct', () => {
    assert.match(episodeKey('a/b c'), /^a_b_c-[0-9a-f]{12}$/);
    assert.notEqual(episodeKey('a/b'), episodeKey('a_b'));
  });
});

describe('episode records', () => {
  const turn = (index: number, model?: ModelRecord): TurnRecord => ({
    turn: index,
    policyVersion: 'v1',
    status: 'ok' as const,
    durationMs: 3,
    action: { ref: 'sha256:a', tool: 'bash', tokenIdsRef: 'sha256:b', logprobsRef: 'sha256:c', tokens: 2 },
    observation: { ref: 'sha256:d', tokens: 4, exitCode: 0, timedOut: false, truncated: false },
    ...(model ? { model } : {}),
  });

  test('turns are written and read back through their schema, in turn order; the last model context is found', async () => {
    const store = createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-records-')));
    const records = createEpisodeRecords(store);
    const context = {
      ids: [1, 2, 3],
      lossMask: [0, 1, 1],
      logprobs: [0, -0.5, -0.1],
      versions: ['', 'v1', 'v1'],
      allowed: [null, [2, 5], null],
    };
    const contextRef = await records.putContext(context);
    await records.writeTurn(
      'run.ep@1',
      turn(1, { contextRef, memory: { sourceLines: [], actions: ['run', 'show'] }, tokens: 3, inferenceMs: 7 }),
    );
    await records.writeTurn(
      'run.ep@1',
      turn(0, { contextRef, memory: { sourceLines: [], actions: ['run'] }, tokens: 2, inferenceMs: 5 }),
    );
    assert.deepEqual(
      (await records.readTurns('run.ep@1')).map((record) => record.turn),
      [0, 1],
    );
    assert.deepEqual(await records.lastContext('run.ep@1'), { context, inferenceMs: 12, closedSamples: [] });
    assert.equal(await records.lastContext('another@1'), null);
    assert.equal(await records.readTurn('run.ep@1', 5), null);
  });

  test('a record that breaks its schema is refused on write, and named with its field on read', async () => {
    const store = createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-records-')));
    const records = createEpisodeRecords(store);
    await assert.rejects(records.writeTurn('e@1', { ...turn(0), status: 'fine' as never }));
    await store.writeNamed(
      `episodes/${episodeKey('e@1')}/turns/000000.json`,
      JSON.stringify({ ...turn(0), observation: { ref: 'sha256:d' } }),
    );
    await assert.rejects(records.readTurn('e@1', 0), /turns\/000000\.json: observation\.tokens: /);
    const badContext = await store.putJson({
      ids: [1, 2],
      lossMask: [0],
      logprobs: [0, 0],
      versions: ['', ''],
      allowed: [null, null],
    });
    await assert.rejects(records.readContext(badContext), /one entry per token/);
  });

  test('a context stored with the loss mask under its old name, mask, is read with it as lossMask', async () => {
    const store = createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-records-')));
    const records = createEpisodeRecords(store);
    const stored = { ids: [4, 5], logprobs: [0, -0.2], versions: ['', 'v3'], allowed: [null, null] };
    const legacy = await store.putJson({ ...stored, mask: [0, 1] });
    assert.deepEqual(await records.readContext(legacy), { ...stored, lossMask: [0, 1] });
    const short = await store.putJson({ ...stored, mask: [0] });
    await assert.rejects(records.readContext(short), /one entry per token/);
  });
});

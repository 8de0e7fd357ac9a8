// The artifact store's contract, run on both backends: the local folder and an S3 bucket on the S3 emulator
// scripts/setup.sh starts (moto in server mode, 127.0.0.1:9000; an emulator of S3's API, not S3). Streams over 64 MB
// both ways, atomic replacement under concurrent reads, content addressing, missing objects named,
// two writers of one blob, and a write cut off mid-way (a failing source; on S3 also the connection to
// the server dropped by a proxy in between) leaving nothing visible; and an episode whose snapshots and
// records all go to the bucket.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { createArtifactStore, StoreError, type ArtifactStore } from '../../activities/store/artifact-store';
import { openArtifactStore } from '../../activities/store/open-store';
import { createS3Store, parseS3Url, s3ClientFromEnvironment } from '../../activities/store/s3-store';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { projectRoot } from '../../workers/config';
import { runEpisode, startTestServer, startWorker, task, testConfig, type RunningWorker } from '../helpers/temporal';

const endpoint = `http://127.0.0.1:${process.env.AGENTRL_S3_PORT ?? '9000'}`;
const credentials = { accessKeyId: 'agentrl-test', secretAccessKey: 'agentrl-test' };
// the store's own client settings, pointed at the test server
const client = (url = endpoint) => s3ClientFromEnvironment({ endpoint: url, forcePathStyle: true, credentials });
const bucket = `agentrl-contract-${randomBytes(4).toString('hex')}`;

before(async () => {
  await client().send(new CreateBucketCommand({ Bucket: bucket }));
});

/** `megabytes` MiB of deterministic bytes, in 1 MiB chunks, never held whole; with their digest. */
function bigStream(megabytes: number, failAfter?: number): { stream: Readable; ref: string } {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  for (let i = 0; i < megabytes; i++) {
    const chunk = createHash('sha512').update(`chunk ${i}`).digest();
    chunks.push(Buffer.concat(Array.from({ length: 16384 }, () => chunk)));
  }
  for (const chunk of chunks) hash.update(chunk);
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < chunks.length; i++) {
        if (failAfter !== undefined && i === failAfter) throw new Error('the source failed mid-way');
        yield chunks[i]!;
      }
    })(),
  );
  return { stream, ref: `sha256:${hash.digest('hex')}` };
}

async function digestOf(stream: Readable): Promise<{ ref: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { ref: `sha256:${hash.digest('hex')}`, bytes };
}

const backends: { name: string; make: () => ArtifactStore; blobKeys: (store: ArtifactStore) => Promise<string[]> }[] = [
  {
    name: 'local folder',
    make: () => createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-store-'))),
    blobKeys: async (store) => {
      const root = join(store.root, 'blobs');
      const keys: string[] = [];
      for (const dir of readdirSync(root)) {
        if (dir.startsWith('.tmp-')) keys.push(dir);
        else for (const name of readdirSync(join(root, dir))) keys.push(`${dir}/${name}`);
      }
      return keys;
    },
  },
  {
    name: 'S3 bucket',
    make: () => createS3Store(`s3://${bucket}/run-${randomBytes(3).toString('hex')}`, client()),
    blobKeys: async (store) => {
      const { prefix } = parseS3Url(store.url);
      const page = await client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/blobs/` }));
      return (page.Contents ?? []).map((item) => item.Key!.slice(`${prefix}/blobs/`.length));
    },
  },
];

for (const backend of backends) {
  describe(`the artifact store on a ${backend.name}`, () => {
    test('put, get, exists and list; blobs are addressed by their content', async () => {
      const store = backend.make();
      const ref = await store.putBlob('hello');
      assert.equal(ref, `sha256:${createHash('sha256').update('hello').digest('hex')}`);
      assert.equal(await store.putBlob(Buffer.from('hello')), ref, 'the same bytes, the same reference');
      assert.equal((await store.getBlob(ref)).toString(), 'hello');
      assert.equal(await store.hasBlob(ref), true);
      assert.deepEqual(await store.getJson(await store.putJson({ a: [1, 2] }), z.object({ a: z.array(z.number()) })), {
        a: [1, 2],
      });
      // the record's reference: its URL, file:// on a folder and s3:// in a bucket
      const where = await store.writeNamed('runs/r1/manifest.json', '{"step":1}');
      assert.equal(where, `${store.url}/runs/r1/manifest.json`);
      assert.match(where, store.url.startsWith('s3://') ? /^s3:\/\// : /^file:\/\/\//);
      await store.writeNamed('runs/r1/steps/000002.json', '2');
      await store.writeNamed('runs/r1/steps/000001.json', '1');
      assert.deepEqual(await store.listNamed('runs/r1'), ['manifest.json', 'steps']);
      assert.deepEqual(await store.listNamed('runs/r1/steps'), ['000001.json', '000002.json']);
      assert.deepEqual(await store.listNamed('runs/none'), []);
      assert.equal((await store.readNamed('runs/r1/manifest.json'))?.toString(), '{"step":1}');
      assert.equal(await store.existsNamed('runs/r1/manifest.json'), true);
      assert.equal(await store.existsNamed('runs/r1/other.json'), false);
      assert.equal(await store.readNamed('runs/r1/other.json'), null);
      assert.throws(() => store.pathOf('../x'), /invalid artifact name/);
      await assert.rejects(store.writeNamed('a/../../x', 'x'), /invalid artifact name/);
    });

    test('a missing object is an error that names it', async () => {
      const store = backend.make();
      const ref = `sha256:${'0'.repeat(64)}`;
      await assert.rejects(
        store.getBlob(ref),
        (error: Error) => error instanceof StoreError && error.message.includes(`no blob ${ref}`),
      );
      await assert.rejects(store.getBlobStream(ref), new RegExp(`no blob ${ref}`));
      assert.equal(await store.hasBlob(ref), false);
      await assert.rejects(store.getBlob('md5:x'), /not an artifact reference/);
    });

    test('a replaced record is read whole, old or new, by concurrent readers', async () => {
      const store = backend.make();
      const a = Buffer.alloc(2 * 1024 * 1024, 'a');
      const b = Buffer.alloc(3 * 1024 * 1024, 'b');
      await store.writeNamed('state.bin', a);
      let writing = true;
      const writer = (async () => {
        for (let i = 0; i < 6; i++) await store.writeNamed('state.bin', i % 2 ? a : b);
        writing = false;
      })();
      let reads = 0;
      while (writing) {
        const got = await store.readNamed('state.bin');
        assert.ok(got && (got.equals(a) || got.equals(b)), 'never a mixture or a part');
        reads++;
      }
      await writer;
      assert.ok(reads > 0);
    });

    test('a blob over 64 MB streams in and out without being held whole', { timeout: 300_000 }, async () => {
      const store = backend.make();
      const { stream, ref } = bigStream(70);
      assert.equal(await store.putBlobStream(stream), ref);
      const back = await digestOf(await store.getBlobStream(ref));
      assert.deepEqual(back, { ref, bytes: 70 * 1024 * 1024 });
    });

    test('two writers of the same blob leave one object with its bytes', async () => {
      const store = backend.make();
      const data = randomBytes(3 * 1024 * 1024);
      const refs = await Promise.all([
        store.putBlob(data),
        store.putBlob(data),
        store.putBlobStream(Readable.from([data.subarray(0, 1000), data.subarray(1000)])),
        store.putBlobStream(Readable.from([data])),
      ]);
      assert.equal(new Set(refs).size, 1);
      assert.ok((await store.getBlob(refs[0])).equals(data));
      assert.deepEqual((await backend.blobKeys(store)).filter((key) => !key.startsWith('.tmp-')).length, 1);
      assert.deepEqual(
        (await backend.blobKeys(store)).filter((key) => key.startsWith('.tmp-')),
        [],
        'no temporary left',
      );
    });

    test('a write whose source fails mid-way leaves nothing visible', { timeout: 120_000 }, async () => {
      const store = backend.make();
      const { stream, ref } = bigStream(24, 12);
      await assert.rejects(store.putBlobStream(stream), /the source failed mid-way/);
      assert.equal(await store.hasBlob(ref), false);
      assert.deepEqual(await backend.blobKeys(store).catch(() => []), []);
    });
  });
}

describe('the S3 backend when the server goes away mid-write', () => {
  let proxy: Server;
  const sockets = new Set<Socket>();
  let passed = 0;
  after(() => proxy?.close());
  test('the upload fails, and no object (nor part of one) is visible on the server', { timeout: 120_000 }, async () => {
    // a TCP proxy in front of the server, cut once 20 MB have gone through
    const target = new URL(endpoint);
    proxy = createServer((inbound) => {
      const outbound = connect(Number(target.port), target.hostname);
      sockets.add(inbound).add(outbound);
      inbound.on('data', (data: Buffer) => {
        passed += data.length;
        if (passed > 20 * 1024 * 1024) {
          for (const socket of sockets) socket.destroy();
          proxy.close();
        }
      });
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    const port = (proxy.address() as { port: number }).port;
    const prefix = `cut-${randomBytes(3).toString('hex')}`;
    const cut = createS3Store(`s3://${bucket}/${prefix}`, client(`http://127.0.0.1:${port}`));
    const { stream, ref } = bigStream(70);
    await assert.rejects(cut.putBlobStream(stream));
    assert.ok(passed > 20 * 1024 * 1024, 'the connection was cut mid-write');
    const direct = createS3Store(`s3://${bucket}/${prefix}`, client());
    assert.equal(await direct.hasBlob(ref), false);
    const listed = await client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
    assert.deepEqual(
      (listed.Contents ?? []).map((item) => item.Key),
      [],
      'no object under the prefix at all',
    );
  });
});

describe('store URLs', () => {
  test('s3://, file:// and folder paths open their backend; anything else is refused', () => {
    assert.equal(openArtifactStore(`s3://${bucket}/x/`).url, `s3://${bucket}/x`);
    assert.equal(openArtifactStore('file:///tmp/agentrl-x').root, '/tmp/agentrl-x');
    assert.equal(openArtifactStore('rel/store', '/base').root, '/base/rel/store');
    assert.throws(() => openArtifactStore('gs://b/p'), /unknown artifact store URL scheme/);
    assert.throws(() => openArtifactStore('s3://B_ad/p'), /not an S3 store URL/);
    assert.throws(() => openArtifactStore('file://relative'), /needs an absolute path/);
    assert.throws(() => createS3Store(`s3://${bucket}/p`, client()).pathOf('x'), /has no local path/);
  });
});

describe('episodes on the S3 backend', () => {
  let env: TestWorkflowEnvironment;
  let worker: RunningWorker;
  const url = `s3://${bucket}/episodes-${randomBytes(3).toString('hex')}`;
  before(async () => {
    // the SDK's standard environment: the store reads it, nothing writes it anywhere
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
    });
    env = await startTestServer();
    worker = await startWorker(env, { ...testConfig(env.address), store: url });
  });
  after(async () => {
    await worker?.stop();
    await env?.teardown();
  });

  test('snapshots, records, the trajectory and the scoring go to the bucket; the artifacts folder stays empty', async () => {
    const result = await runEpisode(env, worker, {
      task: task('swapped-return'),
      policy: `scripted:${join(projectRoot, 'examples', 'policies', 'swapped-return', 'fix.jsonl')}`,
      checker: 'strict',
    });
    assert.deepEqual([result.outcome, result.reward, result.trueSuccess], ['submitted', 1, true]);
    assert.ok(result.trajectoryUri.startsWith(`${url}/episodes/`), result.trajectoryUri);
    assert.ok(result.scoringUri?.startsWith(`${url}/episodes/`), String(result.scoringUri));
    const store = createS3Store(url, client());
    const trajectory = await store.readNamed(result.trajectoryUri.slice(url.length + 1));
    assert.equal(trajectory?.toString().trim().split('\n').length, result.counters.turns);
    const local = worker.config.artifactsDir;
    assert.ok(!existsSync(local) || readdirSync(local).length === 0, `nothing under ${local}`);
  });
});

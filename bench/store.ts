// The artifact store's throughput on each backend (`npm run bench:store`): puts and gets of the object
// sizes a run writes (a turn record, a model context, a task snapshot, a batch, a checkpoint), on the
// local folder and on the local S3 server scripts/setup.sh starts, measured in the same run. Not a test:
// it prints p50/p95 latencies and MB/s per size, and the S3/folder ratio (these machines are noisy:
// read the ratio, not the absolute figures).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createArtifactStore, type ArtifactStore } from '../activities/store/artifact-store';
import { createS3Store, s3ClientFromEnvironment } from '../activities/store/s3-store';

const { values } = parseArgs({ options: { json: { type: 'boolean' }, rounds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 20);
const endpoint = process.env.AWS_ENDPOINT_URL ?? `http://127.0.0.1:${process.env.AGENTRL_S3_PORT ?? '9000'}`;
const client = s3ClientFromEnvironment({
  endpoint,
  forcePathStyle: true,
  credentials: {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'agentrl-bench',
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'agentrl-bench',
  },
});

/** the sizes of what a run stores, from its records (a turn record, a context, a snapshot, a batch, a checkpoint) */
const sizes = [
  { name: 'turn record', bytes: 2 * 1024, stream: false },
  { name: 'model context', bytes: 256 * 1024, stream: false },
  { name: 'task snapshot', bytes: 2 * 1024 * 1024, stream: false },
  { name: 'batch', bytes: 16 * 1024 * 1024, stream: true },
  { name: 'checkpoint', bytes: 96 * 1024 * 1024, stream: true },
];

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function measure(store: ArtifactStore, size: (typeof sizes)[number]) {
  const times = { put: [] as number[], get: [] as number[] };
  const n = size.bytes > 32 * 1024 * 1024 ? Math.max(3, Math.floor(rounds / 5)) : rounds;
  for (let i = 0; i < n; i++) {
    const data = randomBytes(size.bytes);
    let start = performance.now();
    const ref = size.stream
      ? await store.putBlobStream(Readable.from([data.subarray(0, size.bytes / 2), data.subarray(size.bytes / 2)]))
      : await store.putBlob(data);
    times.put.push(performance.now() - start);
    start = performance.now();
    if (size.stream) for await (const chunk of await store.getBlobStream(ref)) void chunk;
    else await store.getBlob(ref);
    times.get.push(performance.now() - start);
  }
  const mbps = (ms: number) => size.bytes / 1024 / 1024 / (ms / 1000);
  return {
    n,
    put: { p50: percentile(times.put, 50), p95: percentile(times.put, 95) },
    get: { p50: percentile(times.get, 50), p95: percentile(times.get, 95) },
    putMBps: mbps(percentile(times.put, 50)),
    getMBps: mbps(percentile(times.get, 50)),
  };
}

async function main(): Promise<void> {
  const bucket = `agentrl-bench-${randomBytes(4).toString('hex')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const folder = mkdtempSync(join(tmpdir(), 'agentrl-store-bench-'));
  const backends = { folder: createArtifactStore(folder), s3: createS3Store(`s3://${bucket}/bench`, client) };
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log('| object | size | backend | put p50 | put p95 | get p50 | get p95 | put MB/s | get MB/s |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const ratios: string[] = [];
  try {
    for (const size of sizes) {
      const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
      for (const [name, store] of Object.entries(backends)) {
        const result = await measure(store, size);
        results[name] = result;
        console.log(
          `| ${size.name} | ${(size.bytes / 1024).toFixed(0)} KiB | ${name} | ${fmt(result.put.p50)} | ${fmt(result.put.p95)} | ` +
            `${fmt(result.get.p50)} | ${fmt(result.get.p95)} | ${result.putMBps.toFixed(1)} | ${result.getMBps.toFixed(1)} |`,
        );
        if (values.json)
          console.log(JSON.stringify({ object: size.name, bytes: size.bytes, backend: name, ...result }));
      }
      ratios.push(
        `${size.name}: put ${(results.s3!.put.p50 / results.folder!.put.p50).toFixed(1)}x, ` +
          `get ${(results.s3!.get.p50 / results.folder!.get.p50).toFixed(1)}x`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  console.log(`\nS3 (local server) against the folder, p50: ${ratios.join('; ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

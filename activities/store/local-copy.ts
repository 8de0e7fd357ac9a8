/**
 * Local copies of store objects, for a process that must hand a file to a library (the ONNX runtime
 * loads a policy from a path). A reference is `file:///ABSOLUTE/PATH` (the file itself: no copy),
 * `s3://BUCKET/KEY` (an object, or every object under `KEY/` when it names a folder), `model://NAME`
 * (a model's prepared graph in this host's model cache), or a plain absolute path (records written
 * before references existed).
 *
 * Copies of S3 objects live in the store cache (`AGENTRL_STORE_CACHE`, default
 * ~/.cache/agentrl/store), keyed by bucket and key and checked against the object's ETag on every
 * use, so a replaced object is fetched again. The cache is bounded (`AGENTRL_STORE_CACHE_MB`, default
 * 8192: the least recently used files go first) and may be deleted at any time: what is missing is
 * downloaded again. The Python trainer keeps the same layout (trainer/agentrl_trainer/store.py).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { modelCacheDir } from '../policies/chat/chat-tokenizer';
import { StoreError } from './artifact-store';
import { notFound, parseS3Url, s3ClientFromEnvironment } from './s3-store';

export const storeCacheDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.AGENTRL_STORE_CACHE || join(homedir(), '.cache', 'agentrl', 'store');
const cacheLimitBytes = (env: NodeJS.ProcessEnv = process.env): number =>
  Number(env.AGENTRL_STORE_CACHE_MB || 8192) * 1024 * 1024;

/** `s3://BUCKET/KEY` split (parseS3Url's rules); a reference to a whole bucket names no object */
export function parseObjectUrl(url: string): { bucket: string; key: string } {
  const { bucket, prefix } = parseS3Url(url);
  if (!prefix || prefix.split('/').includes(''))
    throw new StoreError(`not an S3 object URL (s3://BUCKET/KEY): ${JSON.stringify(url)}`);
  return { bucket, key: prefix };
}

/** The file URL of a local path (what a file-backed store hands out). */
export const fileRef = (path: string): string => `file://${path}`;

/** The local path of a `file://` reference or plain absolute path; null for other schemes. */
export function localPathOf(ref: string): string | null {
  if (ref.startsWith('file://')) return fileURLToPath(ref.startsWith('file:///') ? ref : `file://${ref.slice(7)}`);
  if (isAbsolute(ref)) return ref;
  return null;
}

/**
 * A local path holding the object (or folder of objects) `ref` names, as it is in the store now.
 * A missing object is a StoreError naming it.
 */
export async function localCopyOf(
  ref: string,
  options: { cacheDir?: string; client?: S3Client } = {},
): Promise<string> {
  const model = /^model:\/\/([A-Za-z0-9._-]+)$/.exec(ref);
  if (model) {
    // a model's prepared graph: every host prepares its own (scripts/setup.sh)
    const folder = join(modelCacheDir(), 'onnx', model[1]!);
    if (!existsSync(folder)) throw new StoreError(`${ref}: the model is not prepared on this host (${folder})`);
    return folder;
  }
  const local = localPathOf(ref);
  if (local !== null) {
    if (!existsSync(local)) throw new StoreError(`no object ${ref}`);
    return local;
  }
  if (!ref.startsWith('s3://')) throw new StoreError(`unknown reference scheme: ${JSON.stringify(ref)}`);
  const { bucket, key } = parseObjectUrl(ref);
  const client = options.client ?? s3ClientFromEnvironment();
  const cacheDir = options.cacheDir ?? storeCacheDir();
  const target = join(cacheDir, bucket, key);
  const etag = await headEtag(client, bucket, key);
  if (etag !== null) {
    await fetchObject(client, cacheDir, bucket, key, etag);
  } else {
    const objects = await listFolder(client, bucket, `${key}/`);
    if (objects.length === 0) throw new StoreError(`no object ${ref}`);
    for (const object of objects) await fetchObject(client, cacheDir, bucket, object.key, object.etag);
  }
  await trimCache(cacheDir, target);
  return target;
}

async function headEtag(client: S3Client, bucket: string, key: string): Promise<string | null> {
  try {
    return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? '';
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

async function listFolder(client: S3Client, bucket: string, prefix: string) {
  const objects: { key: string; etag: string }[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const item of page.Contents ?? [])
      if (item.Key && !item.Key.endsWith('/')) objects.push({ key: item.Key, etag: item.ETag ?? '' });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/** downloads one object unless the cache holds the bytes of this ETag; written to a temporary file, then renamed */
async function fetchObject(client: S3Client, cacheDir: string, bucket: string, key: string, etag: string) {
  const path = join(cacheDir, bucket, key);
  const tag = join(cacheDir, '.etags', bucket, key);
  if (existsSync(path) && (await readFile(tag, 'utf8').catch(() => null)) === etag) {
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined); // recently used: trimmed last
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.tmp-${randomBytes(6).toString('hex')}`);
  let fetched = etag;
  try {
    const result = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    fetched = result.ETag ?? etag; // the bytes' own tag, should the object have been replaced since the listing
    await pipeline(Readable.from(result.Body as AsyncIterable<Uint8Array>), createWriteStream(temporary));
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
  await mkdir(dirname(tag), { recursive: true });
  await writeFile(tag, fetched);
}

/** removes the least recently used files until the cache fits its bound; `keep` (just fetched) stays */
async function trimCache(cacheDir: string, keep: string): Promise<void> {
  const limit = cacheLimitBytes();
  const files: { path: string; size: number; used: number }[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(cacheDir, '.etags')) await walk(path);
      } else if (entry.isFile()) {
        const info = await stat(path).catch(() => null);
        if (info) files.push({ path, size: info.size, used: info.mtimeMs });
      }
    }
  };
  await walk(cacheDir);
  let total = files.reduce((sum, file) => sum + file.size, 0);
  for (const file of files.sort((a, b) => a.used - b.used)) {
    if (total <= limit) break;
    if (file.path === keep || file.path.startsWith(`${keep}/`)) continue;
    await rm(file.path, { force: true });
    total -= file.size;
  }
}

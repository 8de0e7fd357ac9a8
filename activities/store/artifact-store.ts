import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { z } from 'zod';
import { atomicWrite, parseJson } from './files';

/**
 * Content-addressed blobs plus named records; every write is atomic (a reader sees the whole object or
 * none). Two backends: a local folder (createArtifactStore) and an S3-compatible bucket (s3-store.ts);
 * openArtifactStore picks one by URL.
 */
export interface ArtifactStore {
  /** the local folder (file backend), or the store's URL (s3://BUCKET/PREFIX) */
  readonly root: string;
  /** file:///ABSOLUTE/PATH or s3://BUCKET/PREFIX */
  readonly url: string;
  putBlob(data: Buffer | string): Promise<string>;
  getBlob(ref: string): Promise<Buffer>;
  putJson(value: unknown): Promise<string>;
  /** a JSON blob parsed with its schema: what the store holds is checked, never cast */
  getJson<S extends z.ZodType>(ref: string, schema: S): Promise<z.infer<S>>;
  /** writes a named record (not content-addressed), e.g. `episodes/<key>/turns/000001.json`; its URL (urlOf) */
  writeNamed(name: string, data: Buffer | string): Promise<string>;
  readNamed(name: string): Promise<Buffer | null>;
  listNamed(prefix: string): Promise<string[]>;
  hasBlob(ref: string): Promise<boolean>;
  existsNamed(name: string): Promise<boolean>;
  /** a blob written from a stream of any size (never held whole in memory); its reference once complete */
  putBlobStream(source: Readable | AsyncIterable<Uint8Array>): Promise<string>;
  /** a blob read as a stream; a missing one is a StoreError naming it */
  getBlobStream(ref: string): Promise<Readable>;
  /** writes a named object from a stream of any size, atomically; its URL once complete */
  putNamedStream(name: string, source: Readable | AsyncIterable<Uint8Array>): Promise<string>;
  /** a named object as a stream, or null when there is none */
  getNamedStream(name: string): Promise<Readable | null>;
  /** the URL of a named object or folder: `<url>/<name>` (what contracts and records pass around) */
  urlOf(name: string): string;
  /** the local path of a named record (file backend only: the S3 backend has none and says so) */
  pathOf(name: string): string;
}

export class StoreError extends Error {
  override name = 'StoreError';
}

/** The key of a blob under the store's root: blobs/<2 hex>/<64 hex>; anything else is an error. */
export function blobKey(ref: string): string {
  const match = refPattern.exec(ref);
  if (!match) throw new StoreError(`not an artifact reference: ${JSON.stringify(ref)}`);
  return `blobs/${match[1]!.slice(0, 2)}/${match[1]!}`;
}

/** A named record's key, checked: relative, no empty or `..` part. */
export function namedKey(name: string): string {
  if (name.startsWith('/') || name.split('/').some((part) => part === '..' || part === '')) {
    throw new StoreError(`invalid artifact name: ${JSON.stringify(name)}`);
  }
  return name;
}

const refPattern = /^sha256:([0-9a-f]{64})$/;

/** Creates a store rooted at a local folder (a shared mount when workers run on several hosts). */
export function createArtifactStore(root: string): ArtifactStore {
  const blobPath = (ref: string): string => join(root, blobKey(ref));
  const safeName = (name: string): string => join(root, namedKey(name));
  const missing = (what: string, error: unknown): never => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new StoreError(`artifact store ${root}: no ${what}`);
    throw error;
  };
  const exists = async (path: string) =>
    access(path).then(
      () => true,
      () => false,
    );
  const store: ArtifactStore = {
    root,
    url: `file://${resolve(root)}`,
    async putBlob(data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const ref = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      await atomicWrite(blobPath(ref), bytes);
      return ref;
    },
    async getBlob(ref) {
      return readFile(blobPath(ref)).catch((error: unknown) => missing(`blob ${ref}`, error));
    },
    async putJson(value) {
      return store.putBlob(JSON.stringify(value));
    },
    async getJson(ref, schema) {
      return parseJson(schema, (await store.getBlob(ref)).toString('utf8'), ref);
    },
    async writeNamed(name, data) {
      await atomicWrite(safeName(name), typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return store.urlOf(name);
    },
    async readNamed(name) {
      try {
        return await readFile(safeName(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async listNamed(prefix) {
      try {
        return (await readdir(safeName(prefix))).filter((entry) => !entry.startsWith('.tmp-')).sort();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
    hasBlob: (ref) => exists(blobPath(ref)),
    existsNamed: (name) => exists(safeName(name)),
    async putBlobStream(source) {
      // written to a temporary file while hashing, then renamed to its address (a rename is atomic)
      await mkdir(join(root, 'blobs'), { recursive: true });
      const temporary = join(root, 'blobs', `.tmp-${randomBytes(6).toString('hex')}`);
      const hash = createHash('sha256');
      try {
        await pipeline(
          source,
          async function* (chunks: AsyncIterable<Uint8Array>) {
            for await (const chunk of chunks) {
              hash.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(temporary),
        );
        const ref = `sha256:${hash.digest('hex')}`;
        await mkdir(dirname(blobPath(ref)), { recursive: true });
        await rename(temporary, blobPath(ref));
        return ref;
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async getBlobStream(ref) {
      const path = blobPath(ref);
      if (!(await exists(path))) throw new StoreError(`artifact store ${root}: no blob ${ref}`);
      return createReadStream(path);
    },
    async putNamedStream(name, source) {
      const path = safeName(name);
      await mkdir(dirname(path), { recursive: true });
      const temporary = join(dirname(path), `.tmp-${randomBytes(6).toString('hex')}`);
      try {
        await pipeline(source, createWriteStream(temporary));
        await rename(temporary, path);
      } finally {
        await rm(temporary, { force: true });
      }
      return store.urlOf(name);
    },
    async getNamedStream(name) {
      const path = safeName(name);
      return (await exists(path)) ? createReadStream(path) : null;
    },
    urlOf: (name) => `${store.url}/${namedKey(name)}`,
    pathOf: safeName,
  };
  return store;
}

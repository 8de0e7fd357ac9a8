import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { atomicWrite, parseJson } from './files';

/** Content-addressed blobs plus named records, in a local folder; every write is atomic. */
export interface ArtifactStore {
  readonly root: string;
  putBlob(data: Buffer | string): Promise<string>;
  getBlob(ref: string): Promise<Buffer>;
  putJson(value: unknown): Promise<string>;
  /** a JSON blob parsed with its schema: what the store holds is checked, never cast */
  getJson<S extends z.ZodType>(ref: string, schema: S): Promise<z.infer<S>>;
  /** writes a named record (not content-addressed), e.g. `episodes/<key>/turns/000001.json` */
  writeNamed(name: string, data: Buffer | string): Promise<string>;
  readNamed(name: string): Promise<Buffer | null>;
  listNamed(prefix: string): Promise<string[]>;
  pathOf(name: string): string;
}

const refPattern = /^sha256:([0-9a-f]{64})$/;

/** Creates a store rooted at a local folder (a shared mount when workers run on several hosts). */
export function createArtifactStore(root: string): ArtifactStore {
  const blobPath = (ref: string): string => {
    const match = refPattern.exec(ref);
    if (!match) throw new Error(`not an artifact reference: ${JSON.stringify(ref)}`);
    const hex = match[1]!;
    return join(root, 'blobs', hex.slice(0, 2), hex);
  };
  const safeName = (name: string): string => {
    if (name.startsWith('/') || name.split('/').some((part) => part === '..' || part === '')) {
      throw new Error(`invalid artifact name: ${JSON.stringify(name)}`);
    }
    return join(root, name);
  };
  const store: ArtifactStore = {
    root,
    async putBlob(data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const ref = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      await atomicWrite(blobPath(ref), bytes);
      return ref;
    },
    async getBlob(ref) {
      return readFile(blobPath(ref));
    },
    async putJson(value) {
      return store.putBlob(JSON.stringify(value));
    },
    async getJson(ref, schema) {
      return parseJson(schema, (await store.getBlob(ref)).toString('utf8'), ref);
    },
    async writeNamed(name, data) {
      const path = safeName(name);
      await atomicWrite(path, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return path;
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
    pathOf: safeName,
  };
  return store;
}

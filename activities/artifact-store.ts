import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Content-addressed blobs plus named records, in a local folder; every write is atomic. */
export interface ArtifactStore {
  readonly root: string;
  putBlob(data: Buffer | string): Promise<string>;
  getBlob(ref: string): Promise<Buffer>;
  putJson(value: unknown): Promise<string>;
  getJson<T>(ref: string): Promise<T>;
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
    async getJson<T>(ref: string) {
      return JSON.parse((await store.getBlob(ref)).toString('utf8')) as T;
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

/** Writes to a temporary file in the same folder, then renames over the target. */
export async function atomicWrite(path: string, data: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.tmp-${randomBytes(6).toString('hex')}`);
  await writeFile(temporary, data);
  await rename(temporary, path);
}

/** The folder key of an episode: workflow ids may hold characters a path cannot. */
export function episodeKey(workflowId: string): string {
  const readable = workflowId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  return `${readable}-${createHash('sha256').update(workflowId).digest('hex').slice(0, 12)}`;
}

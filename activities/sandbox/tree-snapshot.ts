/**
 * The portable, content-addressed snapshot of a sandbox's repository tree (a parked episode's
 * state), and its one owner: written, read and restored here.
 *
 * A snapshot is a JSON manifest in the artifact store listing every entry of `/work` as Docker's
 * archive API reads it (the daemon, not a process in the container, so nothing the agent did can
 * hide a file): the name and link target as bytes, the type (file, folder, symlink, hard link, fifo),
 * the permission and set-id bits, the owner, the modification time to the second (what the archive
 * API keeps), and each file's content as a blob. Not kept: running processes, `/tmp` and `/var/tmp`,
 * extended attributes, the repository root's own modification time, the identity of inodes (a hard
 * link is kept as a link between the same names).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { z } from 'zod';
import type { ArtifactStore } from '../store/artifact-store';
import { repoPath } from './container';
import { execCollect, streamToBuffer } from './docker';
import { readRawTar, RawEntryTypes, writeRawTar, type RawEntryType, type RawTarEntry } from './tar-codec';

const SnapshotEntry = z.object({
  /** base64 of the path's bytes, relative to the repository root */
  path: z.string(),
  type: z.enum(Object.keys(RawEntryTypes) as [RawEntryType, ...RawEntryType[]]),
  mode: z.number().int().min(0).max(0o7777),
  uid: z.number().int().min(0),
  gid: z.number().int().min(0),
  mtime: z.number().int(),
  /** files: the content's blob and size */
  blob: z.string().optional(),
  size: z.number().int().min(0).optional(),
  /** base64 of a symlink's target, or of the path a hard link shares its data with */
  link: z.string().optional(),
  devmajor: z.number().int().optional(),
  devminor: z.number().int().optional(),
});

export const TreeSnapshot = z.object({
  format: z.literal('agentrl-tree/1'),
  /** the repository root folder's bits and owner (its tmpfs volume is created with them) */
  root: z.object({ mode: z.number().int(), uid: z.number().int(), gid: z.number().int() }),
  entries: z.array(SnapshotEntry),
  /** treeDigest of the entries and the root */
  digest: z.string(),
  bytes: z.number().int(),
});
export type TreeSnapshot = z.infer<typeof TreeSnapshot>;

/** What a parked episode keeps of its snapshot: small, for the workflow's history. */
export interface TreeSnapshotRef {
  ref: string;
  digest: string;
  entries: number;
  bytes: number;
  root: TreeSnapshot['root'];
}

/**
 * sha256 over one line per entry, in byte order of the paths: path, type, bits, owner, mtime and the
 * content's hash (or the link target, or the device numbers); plus the root's bits and owner.
 */
export function treeDigest(root: TreeSnapshot['root'], entries: readonly RawTarEntry[]): string {
  return createHash('sha256').update(digestLines(root, entries).join('\n')).digest('hex');
}

/** The lines treeDigest hashes: the root's, then one per entry in byte order of the paths. */
function digestLines(root: TreeSnapshot['root'], entries: readonly RawTarEntry[]): string[] {
  const lines = [...entries]
    .sort((a, b) => Buffer.compare(a.path, b.path))
    .map((entry) => {
      const what =
        entry.type === 'file'
          ? createHash('sha256')
              .update(entry.content ?? Buffer.alloc(0))
              .digest('hex')
          : entry.link
            ? entry.link.toString('hex')
            : entry.type === 'char' || entry.type === 'block'
              ? `${entry.devmajor}:${entry.devminor}`
              : '-';
      return (
        `${entry.path.toString('hex')} ${entry.type} ${entry.mode.toString(8)} ${entry.uid}:${entry.gid} ` +
        `${entry.mtime} ${what}`
      );
    });
  return [`root ${root.mode.toString(8)} ${root.uid}:${root.gid}`, ...lines];
}

/** The repository tree of a container as the archive API reads it: the root folder apart, paths relative to it. */
export async function readTree(
  container: Dockerode.Container,
  maxBytes: number,
): Promise<{ root: TreeSnapshot['root']; entries: RawTarEntry[] }> {
  const stream = (await container.getArchive({ path: repoPath })) as unknown as Readable;
  const archive = await streamToBuffer(stream);
  if (archive.length > maxBytes) throw new Error(`the repository archive is larger than ${maxBytes} bytes`);
  const raw = readRawTar(archive, { maxBytes });
  const top = Buffer.from(repoPath.split('/').filter(Boolean).at(-1)!);
  const rootEntry = raw.find((entry) => entry.path.equals(top));
  if (!rootEntry || rootEntry.type !== 'directory')
    throw new Error(`the archive of ${repoPath} has no root folder entry`);
  const prefix = Buffer.concat([top, Buffer.from('/')]);
  const strip = (path: Buffer) =>
    path.subarray(0, prefix.length).equals(prefix) ? path.subarray(prefix.length) : null;
  const entries: RawTarEntry[] = [];
  for (const entry of raw) {
    if (entry === rootEntry) continue;
    const path = strip(entry.path);
    if (!path || path.length === 0)
      throw new Error(`the archive of ${repoPath} holds an entry outside it: ${entry.path.toString('latin1')}`);
    // a hard link names the entry it shares data with by its archive path
    const link = entry.type === 'hardlink' && entry.link ? (strip(entry.link) ?? entry.link) : entry.link;
    entries.push({ ...entry, path, ...(link ? { link } : {}) });
  }
  return { root: { mode: rootEntry.mode, uid: rootEntry.uid, gid: rootEntry.gid }, entries };
}

/** Snapshots a container's repository tree into the store: file contents as blobs, the manifest as a JSON blob. */
export async function snapshotTree(
  container: Dockerode.Container,
  store: ArtifactStore,
  maxBytes: number,
): Promise<TreeSnapshotRef> {
  const { root, entries } = await readTree(container, maxBytes);
  const manifest: TreeSnapshot = {
    format: 'agentrl-tree/1',
    root,
    entries: [],
    digest: treeDigest(root, entries),
    bytes: 0,
  };
  for (const entry of entries) {
    const item: z.infer<typeof SnapshotEntry> = {
      path: entry.path.toString('base64'),
      type: entry.type,
      mode: entry.mode,
      uid: entry.uid,
      gid: entry.gid,
      mtime: entry.mtime,
    };
    if (entry.type === 'file') {
      const content = entry.content ?? Buffer.alloc(0);
      item.blob = await store.putBlob(content);
      item.size = content.length;
      manifest.bytes += content.length;
    }
    if (entry.link) item.link = entry.link.toString('base64');
    if (entry.devmajor !== undefined) Object.assign(item, { devmajor: entry.devmajor, devminor: entry.devminor });
    manifest.entries.push(item);
  }
  const ref = await store.putJson(manifest);
  return { ref, digest: manifest.digest, entries: entries.length, bytes: manifest.bytes, root };
}

/**
 * The archive API clears the set-id bits of a file when it links a second name to it (its chown of
 * the link clears them, and it does not set the mode again): the file's owner sets them again, in
 * the fresh container before any agent process runs.
 */
async function restoreLinkedSetIdBits(
  docker: Dockerode,
  container: Dockerode.Container,
  entries: readonly RawTarEntry[],
): Promise<void> {
  const linked = new Set(
    entries.filter((entry) => entry.type === 'hardlink' && entry.link).map((entry) => entry.link!.toString('hex')),
  );
  for (const entry of entries) {
    if (entry.type !== 'file' || (entry.mode & 0o6000) === 0 || !linked.has(entry.path.toString('hex'))) continue;
    const path = Buffer.concat([Buffer.from(`${repoPath}/`), entry.path]).toString('hex');
    const result = await execCollect(
      docker,
      container,
      [
        'python3',
        '-I',
        '-S',
        '-c',
        'import os, sys; os.chmod(bytes.fromhex(sys.argv[1]), int(sys.argv[2], 8))',
        path,
        entry.mode.toString(8),
      ],
      { user: `${entry.uid}:${entry.gid}` },
    );
    if (result.exitCode !== 0)
      throw new Error(
        `could not set the mode ${entry.mode.toString(8)} of ${entry.path.toString('latin1')} again: ` +
          `${result.stderr.trim()}`,
      );
  }
}

/** The snapshot's entries with their contents, in archive order. */
export async function loadSnapshot(
  store: ArtifactStore,
  ref: string,
): Promise<{ snapshot: TreeSnapshot; entries: RawTarEntry[] }> {
  const snapshot = await store.getJson(ref, TreeSnapshot);
  const entries: RawTarEntry[] = [];
  for (const item of snapshot.entries) {
    entries.push({
      path: Buffer.from(item.path, 'base64'),
      type: item.type,
      mode: item.mode,
      uid: item.uid,
      gid: item.gid,
      mtime: item.mtime,
      ...(item.blob ? { content: await store.getBlob(item.blob) } : {}),
      ...(item.link !== undefined ? { link: Buffer.from(item.link, 'base64') } : {}),
      ...(item.devmajor !== undefined ? { devmajor: item.devmajor, devminor: item.devminor } : {}),
    });
  }
  return { snapshot, entries };
}

/**
 * Writes a snapshot's tree into a started container's empty repository volume through the archive
 * API, then reads it back: a tree whose digest differs from the snapshot's is an error.
 */
export async function restoreTree(
  docker: Dockerode,
  container: Dockerode.Container,
  store: ArtifactStore,
  ref: string,
  maxBytes: number,
): Promise<void> {
  const { snapshot, entries } = await loadSnapshot(store, ref);
  await container.putArchive(writeRawTar(entries), { path: repoPath });
  await restoreLinkedSetIdBits(docker, container, entries);
  const restored = await readTree(container, maxBytes);
  const digest = treeDigest(restored.root, restored.entries);
  if (digest !== snapshot.digest) {
    const expected = digestLines(snapshot.root, entries);
    const found = digestLines(restored.root, restored.entries);
    const index = found.findIndex((line, at) => line !== expected[at]);
    const at = index === -1 ? Math.min(found.length, expected.length) : index;
    throw new Error(
      `the restored repository differs from its snapshot (digest ${digest.slice(0, 12)}, expected ` +
        `${snapshot.digest.slice(0, 12)}): ` +
        `line ${at} reads ${JSON.stringify(found[at] ?? '(none)')}, ` +
        `expected ${JSON.stringify(expected[at] ?? '(none)')}`,
    );
  }
}

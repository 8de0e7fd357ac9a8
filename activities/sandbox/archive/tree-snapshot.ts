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
import type { ArtifactStore } from '../../store/artifact-store';
import { repoPath } from '../container';
import { ArchiveTooLargeError, execCollect, streamToBuffer } from '../docker';
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
  let archive: Buffer;
  try {
    archive = await streamToBuffer(stream, maxBytes);
  } catch (error) {
    if (error instanceof ArchiveTooLargeError)
      throw new TreeOverLimits(`the repository archive is larger than ${maxBytes} bytes`);
    throw error;
  }
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

/**
 * A tree the agent made that cannot be parked: its archive is over the bound, or its files hold more
 * bytes than the volume a restore writes them into (a sparse file reads back whole). The agent's
 * doing: the episode ends as its failure, never as the environment's.
 */
export class TreeOverLimits extends Error {
  override name = 'TreeOverLimits';
}

/**
 * Snapshots a container's repository tree into the store: file contents as blobs, the manifest as a
 * JSON blob. `maxBytes` bounds the archive as it streams in; `contentBytes` (the volume's size) the
 * files' bytes together, which a restore must fit.
 */
export async function snapshotTree(
  container: Dockerode.Container,
  store: ArtifactStore,
  maxBytes: number,
  contentBytes = maxBytes,
): Promise<TreeSnapshotRef> {
  const { root, entries } = await readTree(container, maxBytes);
  const held = entries.reduce((sum, entry) => sum + (entry.type === 'file' ? (entry.content?.length ?? 0) : 0), 0);
  if (held > contentBytes)
    throw new TreeOverLimits(
      `the files hold ${held} bytes, more than the ${contentBytes} of the volume a restore writes them into ` +
        '(a sparse file reads back whole)',
    );
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
    await runAs(
      docker,
      container,
      `${entry.uid}:${entry.gid}`,
      setMode,
      [path, entry.mode],
      `set the mode ${entry.mode.toString(8)} of ${entry.path.toString('latin1')} again`,
    );
  }
}

/**
 * Python run as an entry's owner: `reach(path)` opens, for the moment, the folders on the way to a
 * path that the owner cannot search (mode 000, say; a mode change keeps a folder's time), and
 * `close` sets their modes back.
 */
const reachAsOwner = [
  'import json, os, sys',
  `TOP = ${JSON.stringify(repoPath)}.encode()`,
  'def reach(path):',
  '    opened, folder = [], TOP',
  '    for part in path[len(TOP) + 1:].split(b"/")[:-1]:',
  '        folder = folder + b"/" + part',
  '        info = os.stat(folder)',
  '        if info.st_uid == os.getuid() and info.st_mode & 0o100 == 0:',
  '            os.chmod(folder, (info.st_mode & 0o7777) | 0o100)',
  '            opened.append((folder, info.st_mode & 0o7777))',
  '    return opened',
  'def close(opened):',
  '    for folder, mode in reversed(opened):',
  '        os.chmod(folder, mode)',
].join('\n');

/** Sets a file's mode as its owner. */
const setMode = [
  reachAsOwner,
  'path, mode = json.loads(sys.argv[1])',
  'path = bytes.fromhex(path)',
  'opened = reach(path)',
  'os.chmod(path, mode)',
  'close(opened)',
].join('\n');

/**
 * Whether the archive API would refuse a symlink: one whose target, read relative to the link's
 * folder, leaves the repository (`../../etc/passwd`). Absolute targets are read inside it.
 */
export function leavesRepository(entry: Pick<RawTarEntry, 'type' | 'path' | 'link'>): boolean {
  if (entry.type !== 'symlink' || !entry.link || entry.link[0] === 0x2f) return false;
  let depth = entry.path.toString('latin1').split('/').length - 1;
  for (const part of entry.link.toString('latin1').split('/')) {
    if (part === '..') depth -= 1;
    else if (part !== '' && part !== '.') depth += 1;
    if (depth < 0) return true;
  }
  return false;
}

/**
 * Runs a small Python program in the container as a given owner (`uid:gid`), with JSON arguments;
 * a failure is an error naming what it was for.
 */
async function runAs(
  docker: Dockerode,
  container: Dockerode.Container,
  owner: string,
  program: string,
  argument: unknown,
  what: string,
): Promise<void> {
  const result = await execCollect(
    docker,
    container,
    ['python3', '-I', '-S', '-c', program, JSON.stringify(argument)],
    { user: owner },
  );
  if (result.exitCode !== 0) throw new Error(`could not ${what}: ${result.stderr.trim().slice(-300)}`);
}

/**
 * Symlinks the archive API refuses (`leavesRepository`) are made by their owner instead, without
 * following them; the folder's mode and time are set back as the snapshot holds them (making a link
 * in a folder changes its time, and a folder its owner cannot write is opened for the moment).
 */
const makeLinks = [
  'import json, os, sys',
  'for path, target, mtime, folder, mode, ftime in json.loads(sys.argv[1]):',
  '    path, target, folder = bytes.fromhex(path), bytes.fromhex(target), bytes.fromhex(folder)',
  '    os.chmod(folder, mode | 0o700)',
  '    os.symlink(target, path)',
  '    os.utime(path, ns=(mtime * 10**9, mtime * 10**9), follow_symlinks=False)',
  '    os.chmod(folder, mode)',
  '    if ftime is not None:',
  '        os.utime(folder, ns=(ftime * 10**9, ftime * 10**9))',
].join('\n');

async function restoreOutsideLinks(
  docker: Dockerode,
  container: Dockerode.Container,
  entries: readonly RawTarEntry[],
  root: TreeSnapshot['root'],
): Promise<void> {
  const folders = new Map(
    entries.filter((entry) => entry.type === 'directory').map((e) => [e.path.toString('hex'), e]),
  );
  for (const entry of entries.filter(leavesRepository)) {
    const slash = entry.path.lastIndexOf(0x2f);
    const folderPath = slash === -1 ? Buffer.alloc(0) : entry.path.subarray(0, slash);
    const folder = folderPath.length ? folders.get(folderPath.toString('hex')) : undefined;
    const mode = folder ? folder.mode : root.mode;
    // the root folder's time is not part of the tree (treeDigest): only a subfolder's is set back
    const ftime = folder ? folder.mtime : null;
    const absolute = (path: Buffer) =>
      Buffer.concat([Buffer.from(repoPath), path.length ? Buffer.from('/') : Buffer.alloc(0), path]);
    await runAs(
      docker,
      container,
      `${entry.uid}:${entry.gid}`,
      makeLinks,
      [
        [
          absolute(entry.path).toString('hex'),
          entry.link!.toString('hex'),
          entry.mtime,
          absolute(folderPath).toString('hex'),
          mode,
          ftime,
        ],
      ],
      `make the link ${entry.path.toString('latin1')}`,
    );
  }
}

/**
 * The archive API sets a modification time before 1970 or past 2262 to 1970 (Docker's Chtimes):
 * the entry's owner sets such times again, in the fresh container before any agent process runs.
 */
async function restoreOutOfRangeTimes(
  docker: Dockerode,
  container: Dockerode.Container,
  entries: readonly RawTarEntry[],
): Promise<void> {
  const latest = 9_223_372_036; // 2^63 ns, in seconds
  const byOwner = new Map<string, [string, number][]>();
  for (const entry of entries) {
    if (entry.type === 'hardlink' || (entry.mtime >= 0 && entry.mtime <= latest)) continue;
    const owner = `${entry.uid}:${entry.gid}`;
    const path = Buffer.concat([Buffer.from(`${repoPath}/`), entry.path]).toString('hex');
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), [path, entry.mtime]]);
  }
  for (const [owner, times] of byOwner)
    await runAs(docker, container, owner, setTimes, times, `set ${times.length} modification times again`);
}

/** Sets modification times as their entries' owner, without following links. */
const setTimes = [
  reachAsOwner,
  'for path, mtime in json.loads(sys.argv[1]):',
  '    path = bytes.fromhex(path)',
  '    opened = reach(path)',
  '    os.utime(path, ns=(mtime * 10**9, mtime * 10**9), follow_symlinks=False)',
  '    close(opened)',
].join('\n');

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
  await container.putArchive(writeRawTar(entries.filter((entry) => !leavesRepository(entry))), { path: repoPath });
  await restoreOutsideLinks(docker, container, entries, snapshot.root);
  await restoreLinkedSetIdBits(docker, container, entries);
  await restoreOutOfRangeTimes(docker, container, entries);
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

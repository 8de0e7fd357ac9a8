import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { repoPath } from '../sandbox/container';
import type { TamperFinding } from '../../shared/contracts/episode';
import { pathKey } from '../../shared/paths/repo-paths';
import { readTar, type ArchiveEntry } from '../sandbox/docker';

/** A change of the agent's tree against the pristine repository. */
export interface FileChange {
  path: string;
  /** the classification key of the path (shared/paths/repo-paths.ts) */
  key: string;
  status: 'added' | 'modified' | 'deleted';
  before: string | null;
  after: string | null;
  /** the new content when it is not valid UTF-8 */
  afterBase64?: string;
  protected: boolean;
  symlink: boolean;
}

/**
 * What the grader reads of an agent's tree. A tree beyond them is the agent's doing: it is scored 0
 * with an `over_limits` finding, never turned into a grader failure (which training would exclude).
 */
export const graderLimits = {
  /** a changed file (its text, escaped, goes to the detector and the cache key) */
  fileBytes: 8 * 1024 * 1024,
  /** the changed files together */
  totalBytes: 32 * 1024 * 1024,
  /** entries in the tree */
  entries: 20_000,
  /** a path, in UTF-8 bytes */
  pathBytes: 1024,
  /** one path component, in UTF-8 bytes */
  nameBytes: 255,
  /** path components */
  depth: 64,
} as const;

export interface ExportedTree {
  changes: FileChange[];
  tree: Map<string, { content: Buffer; symlink: boolean }>;
  /** set when the tree exceeds graderLimits: nothing of it is analysed or graded */
  overLimits: TamperFinding[];
}

/** Computes the agent's changes from an archive of its tree; nothing runs inside the agent's container. */
export async function exportChanges(
  container: Dockerode.Container,
  pristine: Record<string, Buffer>,
  isProtected: (path: string) => boolean,
  maxBytes: number,
): Promise<ExportedTree> {
  const stream = (await container.getArchive({ path: repoPath })) as unknown as Readable;
  const entries = await readTar(stream, { stripFirst: true, maxBytes });
  const overLimits = limitFindings(entries, pristine);
  if (overLimits.length > 0) return { changes: [], tree: new Map(), overLimits };
  const tree = new Map<string, { content: Buffer; symlink: boolean }>();
  for (const entry of entries) {
    if (entry.type === 'file') tree.set(entry.path, { content: entry.content, symlink: false });
    else if (entry.type === 'symlink')
      tree.set(entry.path, { content: Buffer.from(entry.linkTarget ?? ''), symlink: true });
  }
  const text = (data: Buffer | undefined): string | null => {
    if (!data) return null;
    const decoded = data.toString('utf8');
    return Buffer.from(decoded, 'utf8').equals(data) ? decoded : null;
  };
  const changes: FileChange[] = [];
  const paths = new Set([...Object.keys(pristine), ...tree.keys()]);
  for (const path of [...paths].sort()) {
    const key = pathKey(path);
    if (key === '.git' || key.startsWith('.git/') || /(^|\/)__pycache__\//.test(key)) continue;
    const before = pristine[path];
    const after = tree.get(path);
    const status = !before
      ? 'added'
      : !after
        ? 'deleted'
        : after.symlink || !after.content.equals(before)
          ? 'modified'
          : null;
    if (!status) continue;
    const afterText = after?.symlink ? null : text(after?.content);
    changes.push({
      path,
      key,
      status,
      before: text(before),
      after: afterText,
      protected: isProtected(path),
      symlink: Boolean(after?.symlink),
      // bytes that are not UTF-8 (a coding cookie, binary files) reach the detector exactly
      ...(after && !after.symlink && afterText === null ? { afterBase64: after.content.toString('base64') } : {}),
    });
  }
  return { changes, tree, overLimits: [] };
}

/** Findings for what exceeds graderLimits (at most a few, so the record stays small). */
export function limitFindings(entries: readonly ArchiveEntry[], pristine: Record<string, Buffer>): TamperFinding[] {
  const findings: TamperFinding[] = [];
  const add = (path: string, detail: string) => {
    if (findings.length < 10) findings.push({ kind: 'over_limits', path: path.slice(0, 300), detail });
  };
  if (entries.length > graderLimits.entries)
    add('.', `the tree holds ${entries.length} entries, over the grader's limit of ${graderLimits.entries}`);
  let changedBytes = 0;
  for (const entry of entries)
    if (entry.type === 'file' && !pristine[entry.path]?.equals(entry.content)) changedBytes += entry.content.length;
  if (changedBytes > graderLimits.totalBytes)
    add('.', `changed files of ${changedBytes} bytes in all, over the grader's limit of ${graderLimits.totalBytes}`);
  for (const entry of entries) {
    const bytes = Buffer.byteLength(entry.path);
    const parts = entry.path.split('/');
    if (bytes > graderLimits.pathBytes)
      add(entry.path, `a path of ${bytes} bytes, over the grader's limit of ${graderLimits.pathBytes}`);
    else if (parts.length > graderLimits.depth)
      add(entry.path, `a path ${parts.length} levels deep, over the grader's limit of ${graderLimits.depth}`);
    else if (parts.some((part) => Buffer.byteLength(part) > graderLimits.nameBytes))
      add(entry.path, `a name over the grader's limit of ${graderLimits.nameBytes} bytes`);
    else if (
      entry.type === 'file' &&
      entry.content.length > graderLimits.fileBytes &&
      !pristine[entry.path]?.equals(entry.content)
    ) {
      add(
        entry.path,
        `a changed file of ${entry.content.length} bytes, over the grader's limit of ${graderLimits.fileBytes}`,
      );
    }
  }
  return findings;
}

/**
 * Drops agent-made paths that clash with a kept path as file against folder (e.g. a file `tests`
 * beside the restored `tests/…`): the pristine and hidden files win. Returns what it dropped.
 */
export function dropPathConflicts(files: Record<string, Buffer>, agentPaths: ReadonlySet<string>): string[] {
  const paths = Object.keys(files);
  const folders = new Set(
    paths.flatMap((path) =>
      path
        .split('/')
        .slice(0, -1)
        .map((_, index, parts) => parts.slice(0, index + 1).join('/')),
    ),
  );
  const dropped: string[] = [];
  for (const path of paths) {
    if (!agentPaths.has(path)) continue;
    const parents = path
      .split('/')
      .slice(0, -1)
      .map((_, index, parts) => parts.slice(0, index + 1).join('/'));
    if (folders.has(path) || parents.some((parent) => parent in files)) {
      delete files[path];
      dropped.push(path);
    }
  }
  return dropped;
}

import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { repoPath } from '../sandbox/container';
import { readTar } from '../sandbox/docker';

/** A change of the agent's tree against the pristine repository. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before: string | null;
  after: string | null;
  /** the new content when it is not valid UTF-8 */
  afterBase64?: string;
  protected: boolean;
  symlink: boolean;
}

/** Computes the agent's changes from an archive of its tree; nothing runs inside the agent's container. */
export async function exportChanges(container: Dockerode.Container, pristine: Record<string, Buffer>, isProtected: (path: string) => boolean, maxBytes: number): Promise<{ changes: FileChange[]; tree: Map<string, { content: Buffer; symlink: boolean }> }> {
  const stream = (await container.getArchive({ path: repoPath })) as unknown as Readable;
  const entries = await readTar(stream, { stripFirst: true, maxBytes });
  const tree = new Map<string, { content: Buffer; symlink: boolean }>();
  for (const entry of entries) {
    if (entry.type === 'file') tree.set(entry.path, { content: entry.content, symlink: false });
    else if (entry.type === 'symlink') tree.set(entry.path, { content: Buffer.from(entry.linkTarget ?? ''), symlink: true });
  }
  const text = (data: Buffer | undefined): string | null => {
    if (!data) return null;
    const decoded = data.toString('utf8');
    return Buffer.from(decoded, 'utf8').equals(data) ? decoded : null;
  };
  const changes: FileChange[] = [];
  const paths = new Set([...Object.keys(pristine), ...tree.keys()]);
  for (const path of [...paths].sort()) {
    if (path === '.git' || path.startsWith('.git/') || /(^|\/)__pycache__\//.test(path)) continue;
    const before = pristine[path];
    const after = tree.get(path);
    const status = !before ? 'added' : !after ? 'deleted' : after.symlink || !after.content.equals(before) ? 'modified' : null;
    if (!status) continue;
    const afterText = after?.symlink ? null : text(after?.content);
    changes.push({
      path, status, before: text(before), after: afterText, protected: isProtected(path), symlink: Boolean(after?.symlink),
      // bytes that are not UTF-8 (a coding cookie, binary files) reach the detector exactly
      ...(after && !after.symlink && afterText === null ? { afterBase64: after.content.toString('base64') } : {}),
    });
  }
  return { changes, tree };
}

/**
 * Drops agent-made paths that clash with a kept path as file against folder (e.g. a file `tests`
 * beside the restored `tests/…`): the pristine and hidden files win.
 */
export function dropPathConflicts(files: Record<string, Buffer>, agentPaths: ReadonlySet<string>): void {
  const paths = Object.keys(files);
  const folders = new Set(paths.flatMap((path) => path.split('/').slice(0, -1).map((_, index, parts) => parts.slice(0, index + 1).join('/'))));
  for (const path of paths) {
    if (!agentPaths.has(path)) continue;
    const parents = path.split('/').slice(0, -1).map((_, index, parts) => parts.slice(0, index + 1).join('/'));
    if (folders.has(path) || parents.some((parent) => parent in files)) delete files[path];
  }
}

/**
 * The one normalisation of repository paths, used to classify them (is it a test file, a protected
 * path, the git folder?) by the protected-path globs, the tamper detector and the archive code alike,
 * so that no name is a test file to one and not to another. It is a key only: files keep their
 * names byte for byte.
 *
 * The key: backslashes become '/', empty and '.' segments go, '..' removes the segment before it,
 * Unicode is folded to NFKC with format characters (zero-width and direction marks) removed, and the
 * result is lower-cased. Bytes that were not UTF-8 arrive as U+FFFD and stay so. A path is treated
 * as a test or protected file when its key matches, which may over-protect a name that differs only
 * in case or form; it never under-protects one.
 */
export function pathKey(path: string): string {
  const folded = path
    .replace(/\\/g, '/')
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .toLowerCase();
  const parts: string[] = [];
  for (const part of folded.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * Folders a repository's snapshot leaves out (a task folder, an image's working directory, a tree read back): caches of
 * tools run in it, and git's own.
 */
export const cacheFolders: ReadonlySet<string> = new Set([
  '__pycache__',
  '.pytest_cache',
  '.ruff_cache',
  '.mypy_cache',
  '.git',
]);

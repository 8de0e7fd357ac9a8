import { checkerPathRules, globToRegExp, protectedGlobsOf } from './checker-paths';
import { pathKey } from './repo-paths';

/**
 * Paths that the strict checker keeps pristine by default: tests, test configuration, import hooks, git
 * (shared/checker-paths.json).
 */
export const defaultProtectedPaths: readonly string[] = protectedGlobsOf(checkerPathRules);

export { globToRegExp };

/**
 * A predicate telling whether a repository-relative path is protected: its key (repo-paths.ts) against the globs' keys.
 */
export function protectedPathMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map((glob) => globToRegExp(pathKey(glob)));
  return (path) => {
    const key = pathKey(path);
    return patterns.some((pattern) => pattern.test(key));
  };
}

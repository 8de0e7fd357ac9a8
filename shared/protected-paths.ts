import { pathKey } from './repo-paths';

/** Paths that the strict checker keeps pristine by default: tests, test configuration, import hooks, git. */
export const defaultProtectedPaths: readonly string[] = [
  '**/test_*.py',
  '**/*_test.py',
  '**/tests/**',
  '**/test/**',
  '**/conftest.py',
  '**/pytest.ini',
  '**/tox.ini',
  '**/setup.cfg',
  '**/pyproject.toml',
  '**/sitecustomize.py',
  '**/usercustomize.py',
  '**/*.pth',
  '.git/**',
];

/** Converts a glob (`**`, `*`, `?`) to a regular expression over '/'-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** A predicate telling whether a repository-relative path is protected: its key (repo-paths.ts) against the globs' keys. */
export function protectedPathMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map((glob) => globToRegExp(pathKey(glob)));
  return (path) => {
    const key = pathKey(path);
    return patterns.some((pattern) => pattern.test(key));
  };
}

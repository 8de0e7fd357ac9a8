/**
 * The checker's path rules (shared/checker-paths.json, also read by the tamper detector's
 * activities/checker/python/agentrl_checker/tamper/paths.py): which
 * repository paths are tests, test configuration or interpreter start-up files, and so the default
 * protected globs of the strict checker.
 */
import { z } from 'zod';
import rulesFile from '../checker-paths.json';

const fileName = z.string().regex(/^[^/]+$/, 'a file name (no "/")');
export const CheckerPathRules = z
  .object({
    about: z.string().optional(),
    /** file-name globs (`*`, `?`) of test modules */
    testFiles: z.array(fileName).min(1),
    /** folders whose every file is a test file */
    testDirs: z.array(fileName),
    /** test and interpreter configuration, by file name */
    configFiles: z.array(fileName),
    /** files the interpreter runs at start-up, by name and by suffix */
    startupFiles: z.array(fileName),
    startupSuffixes: z.array(z.string().regex(/^\.[^/]+$/, 'a suffix such as ".pth"')),
    /** globs protected whatever their name */
    alwaysProtected: z.array(z.string().min(1)),
  })
  .strict();
export type CheckerPathRules = z.infer<typeof CheckerPathRules>;

/** The rules of shared/checker-paths.json. */
export const checkerPathRules: CheckerPathRules = CheckerPathRules.parse(rulesFile);

/**
 * The strict checker's default protected globs: tests, test folders, configuration, start-up files, and the
 * always-protected.
 */
export function protectedGlobsOf(rules: CheckerPathRules): string[] {
  return [
    ...rules.testFiles.map((name) => `**/${name}`),
    ...rules.testDirs.map((dir) => `**/${dir}/**`),
    ...rules.configFiles.map((name) => `**/${name}`),
    ...rules.startupSuffixes.map((suffix) => `**/*${suffix}`),
    ...rules.alwaysProtected,
  ].filter((glob, index, all) => all.indexOf(glob) === index);
}

/**
 * What a path is to the checker, as the tamper detector (agentrl_checker/tamper/paths.py) classifies it. Give it a
 * path's key
 * (shared/paths/repo-paths.ts: folded case and Unicode), as the checker does: names match exactly.
 */
export function classifyPath(
  key: string,
  rules: CheckerPathRules = checkerPathRules,
): { test: boolean; config: boolean; startup: boolean } {
  const parts = key.split('/').filter((part) => part !== '' && part !== '.');
  const name = parts.at(-1) ?? '';
  const startup = rules.startupFiles.includes(name) || rules.startupSuffixes.some((suffix) => name.endsWith(suffix));
  return {
    test:
      rules.testFiles.some((glob) => globToRegExp(glob).test(name)) ||
      parts.slice(0, -1).some((dir) => rules.testDirs.includes(dir)),
    config: rules.configFiles.includes(name) || startup,
    startup,
  };
}

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

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheFolders } from '../../shared/paths/repo-paths';

/**
 * The checker's Python (activities/checker/python/): thin scripts over one package, agentrl_checker/.
 * The tamper detector and the twin planner run on the worker; the grade harness (with the part of the
 * package it imports), the audit runner and the value encoding are copied, read-only, into every
 * grading container.
 */
export const checkerScriptsDir = resolve(__dirname, 'python');

/** shared/: the tamper kinds and the path rules the scripts read. */
export const sharedDir = resolve(__dirname, '..', '..', 'shared');

/** The scripts a grading container holds beside the in-sandbox runner. */
export const graderScripts = ['grade-harness.py', 'audit-runner.py', 'oracle_values.py'] as const;

/** The path of one of the checker's scripts (or of a file of its package, relative to checkerScriptsDir). */
export function checkerScript(name: string): string {
  return join(checkerScriptsDir, name);
}

let pythonFiles: readonly string[] | undefined;

/**
 * Every file of the checker's Python, relative to checkerScriptsDir with `/` separators, sorted: the
 * scripts and their package, without caches or compiled files (its tests live in ../tests). Read once.
 */
export function checkerPythonFiles(): readonly string[] {
  pythonFiles ??= listFiles(checkerScriptsDir, '');
  return pythonFiles;
}

/** The package files grade-harness.py imports, which a grading container holds beside it (folders kept). */
export function graderPackageFiles(): readonly string[] {
  return checkerPythonFiles().filter(
    (name) => name === 'agentrl_checker/__init__.py' || name.startsWith('agentrl_checker/harness/'),
  );
}

function listFiles(dir: string, prefix: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !cacheFolders.has(entry.name) && !/\.py[co]$/.test(entry.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) =>
      entry.isDirectory()
        ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
        : entry.isFile()
          ? [`${prefix}${entry.name}`]
          : [],
    );
}

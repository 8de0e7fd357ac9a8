import { join, resolve } from 'node:path';

/**
 * The checker's Python (activities/checker/python/): the tamper detector and the twin planner run on
 * the worker; the grade harness, the audit runner and the value encoding are copied, read-only,
 * into every grading container.
 */
export const checkerScriptsDir = resolve(__dirname, 'python');

/** shared/: the tamper kinds and the path rules the scripts read. */
export const sharedDir = resolve(__dirname, '..', '..', 'shared');

/** The scripts a grading container holds beside the in-sandbox runner. */
export const graderScripts = ['grade-harness.py', 'audit-runner.py', 'oracle_values.py'] as const;

/** The path of one of the checker's scripts. */
export function checkerScript(name: string): string {
  return join(checkerScriptsDir, name);
}

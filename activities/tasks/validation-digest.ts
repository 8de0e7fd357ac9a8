/**
 * The digest of everything a task's validation depends on: the task folder as the loaders read it (but its
 * expected-tests.json), the image it runs in (its name, and the base image's recipe), and the code
 * that grades it and plans its twins. `task validate --check` skips a task whose recorded digest
 * matches, since re-running it could only give the same answer; `--full` re-validates every task
 * (`npm run validate-tasks`: run it after changing the validation procedure itself, which is not
 * part of the digest so that a change of its wording does not cost every task a new run).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkerPythonFiles } from '../checker/scripts';
import { readTaskFolderFiles } from './task-base';

const root = resolve(__dirname, '..', '..');

/** The project files a validation's verdict depends on, relative to the project root. */
export const validationCodeFiles: readonly string[] = [
  'sandbox/base-image.recipe',
  'sandbox/run-tool.py',
  // the checker's Python as a whole: the grade harness, the twin planner, the audit runner, the value encoding
  ...checkerPythonFiles().map((name) => `activities/checker/python/${name}`),
  'shared/tamper-kinds.json',
  'shared/checker-paths.json',
  'activities/checker/grading.ts',
  'activities/checker/twins.ts',
  'activities/checker/oracle-audit.ts',
];

/**
 * `sha256:` of the task folder's files as the loaders read them (but expected-tests.json), the image name and
 * the validation code. A tree that base.yaml names counts by its assembled files, not by how it is stored: a
 * task reads the same whether it holds its trees or names them, and so does its digest.
 */
export function validationDigest(taskDir: string, image: string, extraCode: readonly string[] = []): string {
  const hash = createHash('sha256');
  const add = (label: string, content: Buffer | string) => {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    hash.update(`${label}\0${bytes.length}\0`);
    hash.update(bytes);
  };
  add('image', image);
  for (const [name, file] of readTaskFolderFiles(taskDir)) {
    if (name === 'expected-tests.json') continue;
    add(`task/${name}`, file.content);
  }
  for (const name of [...validationCodeFiles, ...extraCode]) add(`code/${name}`, readFileSync(join(root, name)));
  return `sha256:${hash.digest('hex')}`;
}

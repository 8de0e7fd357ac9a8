/**
 * The digest of everything a task's validation depends on: the task folder (but its
 * expected-tests.json), the image it runs in (its name, and the base image's recipe), and the code
 * that grades it and plans its twins. `task validate --check` skips a task whose recorded digest
 * matches, since re-running it could only give the same answer; `--full` re-validates every task
 * (`npm run validate-tasks`: run it after changing the validation procedure itself, which is not
 * part of the digest so that a change of its wording does not cost every task a new run).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cacheFolders } from '../../shared/paths/repo-paths';
import { checkerPythonFiles } from '../checker/scripts';

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

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .filter((name) => !cacheFolders.has(name))
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
}

/** `sha256:` of the task folder's files (but expected-tests.json), the image name and the validation code. */
export function validationDigest(taskDir: string, image: string, extraCode: readonly string[] = []): string {
  const hash = createHash('sha256');
  const add = (label: string, content: Buffer | string) => {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    hash.update(`${label}\0${bytes.length}\0`);
    hash.update(bytes);
  };
  add('image', image);
  for (const path of walk(taskDir)) {
    const name = relative(taskDir, path).split('\\').join('/');
    if (name === 'expected-tests.json') continue;
    add(`task/${name}`, readFileSync(path));
  }
  for (const name of [...validationCodeFiles, ...extraCode]) add(`code/${name}`, readFileSync(join(root, name)));
  return `sha256:${hash.digest('hex')}`;
}

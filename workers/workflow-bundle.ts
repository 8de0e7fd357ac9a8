import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, type WorkflowBundlePath } from '@temporalio/worker';
import { codeVersion } from './code-version';
import { projectRoot } from './config';

/** Where built workflow bundles are kept, one file per code version. */
export const workflowBundleDir = join(projectRoot, '.cache', 'workflow-bundles');
const keep = 4;

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * The workflows bundled for the code of this checkout, built once per code version and kept in
 * `.cache/workflow-bundles/`: webpack takes seconds of CPU at every worker start otherwise. The key is
 * `codeVersion()` (every source folder and package-lock.json), so a bundle never outlives the code it
 * was built from; the newest few are kept.
 */
export async function cachedWorkflowBundle(version: string = codeVersion()): Promise<WorkflowBundlePath> {
  const codePath = join(workflowBundleDir, `${version}.js`);
  if (existsSync(codePath)) return { codePath };
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietLogger });
  mkdirSync(workflowBundleDir, { recursive: true });
  // written whole under a temporary name, then renamed: a worker starting meanwhile never reads half a bundle
  const staging = join(workflowBundleDir, `.${version}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(staging, code);
  renameSync(staging, codePath);
  prune();
  return { codePath };
}

function prune(): void {
  try {
    const bundles = readdirSync(workflowBundleDir)
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ path: join(workflowBundleDir, name), mtime: statSync(join(workflowBundleDir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of bundles.slice(keep)) rmSync(old.path, { force: true });
  } catch {
    // another worker pruned at the same time
  }
}

import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { z } from 'zod';
import {
  ExpectedTests,
  OracleFile,
  TaskSpec,
  type OracleCall,
  type TaskSnapshot,
} from '../../shared/contracts/task-spec';
import { describeIssues } from '../../shared/names/errors';
import type Dockerode from 'dockerode';
import { ensureHarborImage } from '../images/harbor-image';
import { repositoryDigest, taskImageName } from '../images/task-image';
import { HarborTaskError, isHarborFolder, readHarborFolder, type HarborFolder } from './harbor';
import { readTaskBase, readTaskTree } from './task-base';
import { patchedFiles, readYamlFile, TaskError, type TaskFile } from './task-files';

export interface LoadedTask {
  dir: string;
  snapshot: TaskSnapshot;
  hasOracle: boolean;
  solutionPatch: string | null;
  wrongFixPatch: string | null;
  /** a Harbor folder as read (its snapshot's `harbor` holds what episodes need of it) */
  harbor?: HarborFolder;
}

/** True for a task folder of either format: ours (task.yaml) or Harbor's (task.toml). */
export function isTaskFolder(dir: string): boolean {
  return existsSync(join(dir, 'task.yaml')) || existsSync(join(dir, 'task.toml'));
}

/**
 * Loads a task folder of either format. A Harbor folder's starting repository lies in its image, so its
 * image is built here when this host lacks it (progress through `onProgress`); ours reads the folder only.
 */
export async function loadTask(
  dir: string,
  defaultImage: string,
  options: { docker: Dockerode; requireExpected?: boolean; onProgress?: (line: string) => void },
): Promise<LoadedTask> {
  const root = resolve(dir);
  if (!existsSync(root) || !lstatSync(root).isDirectory()) throw new TaskError(`${root}: task folder does not exist`);
  if (!isHarborFolder(root)) return loadTaskFolder(root, defaultImage, options);
  let folder: HarborFolder;
  try {
    folder = readHarborFolder(root);
  } catch (error) {
    if (error instanceof HarborTaskError) throw new TaskError(error.message);
    throw error;
  }
  const built = await ensureHarborImage(options.docker, folder, defaultImage, options.onProgress);
  const expectedPath = join(root, 'expected-tests.json');
  // a Harbor verifier's reward is held to its tests' run under the grade harness, which validation records
  if (!existsSync(expectedPath) && options.requireExpected !== false) throw missingExpected(expectedPath, root);
  const expected = existsSync(expectedPath)
    ? readJsonFile(expectedPath, ExpectedTests)
    : { visible: [], hidden: [], oracle: [] };
  const encode = (files: Record<string, Buffer>) =>
    Object.fromEntries(Object.entries(files).map(([path, content]) => [path, content.toString('base64')]));
  return {
    dir: root,
    snapshot: {
      spec: { id: folder.id, prompt: folder.prompt, image: built.image, testCommand: 'python3 -m pytest -q' },
      repo: encode(built.tree),
      hidden: {},
      oracle: {},
      ...(folder.oracleCalls ? { oracleCalls: folder.oracleCalls } : {}),
      expected,
      harbor: {
        ...folder.verifier,
        workdir: built.workdir,
        ...(built.executables.length ? { executables: built.executables } : {}),
        tests: encode(folder.tests),
        build: {
          files: Object.fromEntries(
            folder.environment.map((file) => [
              file.path,
              { content: file.content.toString('base64'), mode: file.mode },
            ]),
          ),
          timeoutMs: folder.buildTimeoutMs,
        },
      },
    },
    hasOracle: folder.oracleCalls !== null,
    solutionPatch: null,
    wrongFixPatch: folder.wrongFixPatch,
    harbor: folder,
  };
}

/** Reads and validates a task folder; errors name the file and field. */
export function loadTaskFolder(
  dir: string,
  defaultImage: string,
  options: { requireExpected?: boolean } = {},
): LoadedTask {
  const root = resolve(dir);
  if (!existsSync(root) || !lstatSync(root).isDirectory()) throw new TaskError(`${root}: task folder does not exist`);
  const specPath = join(root, 'task.yaml');
  if (isHarborFolder(root))
    throw new TaskError(`${root}: a Harbor task folder (task.toml): its repository lies in its image (use loadTask)`);
  if (!existsSync(specPath)) throw new TaskError(`${specPath}: missing (a task folder needs task.yaml)`);
  const given = readYamlFile(specPath, TaskSpec);
  const base = given.image ?? defaultImage;
  const repoDir = join(root, 'repo');
  // base.yaml may name the trees instead of the folder holding them (activities/tasks/task-base.ts)
  const trees = readTaskBase(root);
  const tree = (folder: string) => encodeTree(readTaskTree(root, folder, trees) ?? {});
  const repoFiles = readTaskTree(root, 'repo', trees);
  if (!repoFiles) throw new TaskError(`${repoDir}: missing (the starting repository)`);
  const repo = encodeTree(repoFiles);
  if (Object.keys(repo).length === 0) throw new TaskError(`${repoDir}: the starting repository is empty`);
  // a task with an environment runs in an image built from its base (activities/images/task-image.ts);
  // one that installs its repository, in an image of that repository
  const { environment } = given;
  const spec = environment
    ? {
        ...given,
        image: taskImageName(base, environment, environment.install ? repositoryDigest(repo) : undefined),
        baseImage: base,
      }
    : { ...given, image: base };
  // hidden tests: a test patch (SWE-bench's test_patch) applied to the starting repository gives whole
  // files, and the files of hidden/ lie over them
  const hiddenPatch = join(root, 'hidden.patch');
  const patched = existsSync(hiddenPatch)
    ? patchedFiles(decodeTree(repo), readFileSync(hiddenPatch, 'utf8'), hiddenPatch)
    : {};
  const hidden = {
    ...Object.fromEntries(Object.entries(patched).map(([path, content]) => [path, content.toString('base64')])),
    ...tree('hidden'),
  };
  const oracle = tree('oracle');
  const canary = tree('canary');
  const oracleCalls = readOracleFile(join(root, 'oracle.json'));
  const expectedPath = join(root, 'expected-tests.json');
  let expected: ExpectedTests = { visible: [], hidden: [], oracle: [] };
  if (existsSync(expectedPath)) {
    expected = readJsonFile(expectedPath, ExpectedTests);
  } else if (options.requireExpected !== false) {
    throw missingExpected(expectedPath, root);
  }
  const readOptional = (name: string): string | null =>
    existsSync(join(root, name)) ? readFileSync(join(root, name), 'utf8') : null;
  return {
    dir: root,
    snapshot: {
      spec,
      repo,
      hidden,
      oracle,
      ...(Object.keys(canary).length ? { canary } : {}),
      ...(oracleCalls ? { oracleCalls } : {}),
      expected,
    },
    hasOracle: Object.keys(oracle).length > 0 || oracleCalls !== null,
    solutionPatch: readOptional('solution.patch'),
    wrongFixPatch: readOptional('wrong-fix.patch'),
  };
}

/** A tree's files as path → base64, as a snapshot carries them. */
function encodeTree(files: Record<string, TaskFile>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([path, file]) => [path, file.content.toString('base64')]));
}

/** A snapshot's tree (path → base64) as file contents. */
export function decodeTree(tree: Record<string, string>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(tree).map(([path, b64]) => [path, Buffer.from(b64, 'base64')]));
}

/** The calls of an `oracle.json`, or null without one; a malformed file names its problem. */
function readOracleFile(path: string): OracleCall[] | null {
  return existsSync(path) ? readJsonFile(path, OracleFile).calls : null;
}

/** A task's JSON file parsed with its schema; an error names the file and the field. */
function readJsonFile<S extends z.ZodType>(path: string, schema: S): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TaskError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new TaskError(describeIssues(path, parsed.error));
  return parsed.data;
}

/** A task folder not validated yet: what to run. */
function missingExpected(expectedPath: string, root: string): TaskError {
  return new TaskError(
    `${expectedPath}: missing; run \`npx agentrl task validate ${relative(process.cwd(), root) || '.'}\` to ` +
      `record the expected test ids`,
  );
}

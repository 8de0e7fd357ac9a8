/**
 * `base.yaml`: a task folder that names the trees it is made from instead of holding them, so that an
 * upstream project used by several tasks is vendored once (tasks/upstream/). It maps each tree of the folder
 * (`repo`, or `environment/<name>` for a Harbor folder's build context, or one file such as a verifier's test
 * file) to a folder or file elsewhere, leaves out what `exclude` names, and applies one patch of the task's own
 * changes (the planted bug, a generated file). The loaders read every tree through readTaskTree, so a task
 * reads the same bytes whether it holds its trees or names them.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, resolve } from 'node:path';
import { z } from 'zod';
import {
  applyPatchToFiles,
  patchPaths,
  readTaskFile,
  readTaskFiles,
  readYamlFile,
  TaskError,
  type TaskFile,
} from './task-files';

export const baseFileName = 'base.yaml';

/** The folders a task format reads as trees: the only places base.yaml may fill. */
export const treeFolders = ['repo', 'hidden', 'oracle', 'canary', 'environment', 'tests', 'solution'] as const;

const BaseFile = z
  .object({
    /** a path of the task folder → the folder or file it is, relative to the task folder */
    trees: z.record(z.string(), z.string().min(1)),
    /** paths of the task folder, inside the trees, that the bases hold and this task leaves out */
    exclude: z.array(z.string().min(1)).default([]),
    /** a unified diff (paths relative to the task folder) applied to the trees: the task's own changes */
    patch: z.string().min(1).optional(),
  })
  .strict();

export interface TaskBase {
  /** the trees' paths in the task folder */
  trees: string[];
  /** every file of the trees as assembled, by its path in the task folder */
  files: Record<string, TaskFile>;
  /** the task folder's files that only say how to assemble it (base.yaml, the patch): no tree's part */
  recipe: string[];
}

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** A path of the task folder as written in base.yaml, normalised; one that leaves the folder is an error. */
function folderPath(raw: string, where: string): string {
  const path = posix.normalize(raw.replace(/\/+$/, ''));
  if (isAbsolute(raw) || path === '.' || path === '..' || path.startsWith('../'))
    throw new TaskError(`${where}: "${raw}" is not a path inside the task folder`);
  return path;
}

/**
 * The trees a task folder's base.yaml assembles, or null when it has none. Errors name base.yaml and the
 * entry: a missing base, a tree the folder also holds, an exclusion that leaves nothing out, and a patch that
 * does not apply or changes a file outside the trees.
 */
export function readTaskBase(root: string): TaskBase | null {
  const basePath = join(root, baseFileName);
  if (!existsSync(basePath)) return null;
  const spec = readYamlFile(basePath, BaseFile);
  if (Object.keys(spec.trees).length === 0) throw new TaskError(`${basePath}: trees: names no tree`);
  let files: Record<string, TaskFile> = {};
  const trees: string[] = [];
  for (const [rawTree, rawBase] of Object.entries(spec.trees)) {
    const where = `${basePath}: trees.${rawTree}`;
    const tree = folderPath(rawTree, where);
    const folder = tree.split('/')[0]!;
    if (!(treeFolders as readonly string[]).includes(folder))
      throw new TaskError(`${where}: not inside a folder the loaders read as a tree (${treeFolders.join(', ')})`);
    if (existsSync(join(root, tree)))
      throw new TaskError(`${where}: the task folder holds ${tree} itself; a tree is either held or named`);
    const nested = trees.find((other) => within(tree, other) || within(other, tree));
    if (nested) throw new TaskError(`${where}: overlaps the tree ${nested}`);
    trees.push(tree);
    if (isAbsolute(rawBase)) throw new TaskError(`${where}: ${rawBase}: name the base relative to the task folder`);
    // relative to where the folder really is: a task reached through a link names the same base
    const base = resolve(realpathSync(root), rawBase);
    if (!existsSync(base)) throw new TaskError(`${where}: ${rawBase}: no such folder or file (${base})`);
    if (statSync(base).isFile() && tree !== folder) {
      files[tree] = readTaskFile(base);
      continue;
    }
    if (!statSync(base).isDirectory())
      throw new TaskError(`${where}: ${rawBase}: not a folder${tree === folder ? '' : ' or a file'}`);
    const held = readTaskFiles(base);
    if (Object.keys(held).length === 0) throw new TaskError(`${where}: ${rawBase}: holds no files`);
    for (const [path, file] of Object.entries(held)) files[`${tree}/${path}`] = file;
  }
  for (const raw of spec.exclude) {
    const where = `${basePath}: exclude`;
    const path = folderPath(raw, where);
    const left = Object.keys(files).filter((file) => within(file, path));
    if (left.length === 0) throw new TaskError(`${where}: ${raw}: no tree holds it`);
    for (const file of left) delete files[file];
  }
  const recipe = [baseFileName];
  if (spec.patch !== undefined) {
    const where = `${basePath}: patch`;
    const name = folderPath(spec.patch, where);
    const patchFile = join(root, name);
    if (!existsSync(patchFile) || !lstatSync(patchFile).isFile())
      throw new TaskError(`${where}: ${spec.patch}: no such file in the task folder`);
    const patch = readFileSync(patchFile, 'utf8');
    for (const path of patchPaths(patch, patchFile)) {
      // "../x" and "/x" lie in no tree either
      if (!trees.some((tree) => within(posix.normalize(path), tree)))
        throw new TaskError(
          `${patchFile}: changes ${path}, outside the trees base.yaml names (${trees.join(', ')}); the patch may ` +
            `change only them`,
        );
    }
    files = applyPatchToFiles(files, patch, patchFile);
    recipe.push(name);
  }
  return { trees, files, recipe };
}

/**
 * The files of one folder of a task (`repo`, `environment`, …) as the loaders read it, by path inside that
 * folder: those the folder holds, and those base.yaml assembles in it. Null when the task has neither.
 */
export function readTaskTree(
  root: string,
  folder: string,
  base: TaskBase | null = readTaskBase(root),
): Record<string, TaskFile> | null {
  const dir = join(root, folder);
  const held = existsSync(dir) && lstatSync(dir).isDirectory();
  const named = base?.trees.some((tree) => within(tree, folder)) ?? false;
  if (!held && !named) return null;
  const files: Record<string, TaskFile> = {};
  if (held)
    for (const [path, file] of Object.entries(readTaskFiles(dir, root)))
      if (!base?.recipe.includes(`${folder}/${path}`)) files[path] = file;
  if (base)
    for (const [path, file] of Object.entries(base.files))
      if (path.startsWith(`${folder}/`)) files[path.slice(folder.length + 1)] = file;
  // in the order readTaskFiles walks a folder, whichever way the files came: a snapshot is the same either way
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => walkOrder(a, b, localeOrder)));
}

const localeOrder = (a: string, b: string) => a.localeCompare(b);
const codeUnitOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order of a depth-first walk that sorts each folder's names with `compareNames`, between two paths. */
function walkOrder(a: string, b: string, compareNames: (a: string, b: string) => number): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++)
    if (left[i] !== right[i]) return compareNames(left[i]!, right[i]!);
  return left.length - right.length;
}

/**
 * Every file of a task folder as the loaders read it (base.yaml's trees assembled in place, base.yaml and its
 * patch left out), in the order of a walk that sorts each folder's names with `compareNames` (default: by code
 * unit, as Array.prototype.sort): what digests of a task hash.
 */
export function readTaskFolderFiles(
  root: string,
  compareNames: (a: string, b: string) => number = codeUnitOrder,
): [string, TaskFile][] {
  const base = readTaskBase(root);
  const files = Object.entries(readTaskFiles(root)).filter(([path]) => !base?.recipe.includes(path));
  if (base) files.push(...Object.entries(base.files));
  return files.sort(([a], [b]) => walkOrder(a, b, compareNames));
}

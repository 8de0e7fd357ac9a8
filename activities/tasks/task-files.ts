/**
 * A task folder's files as the loaders read them: regular files under a folder (caches and links inside the
 * folder skipped), and unified diffs applied to such trees with `git apply`. Errors are TaskErrors that name
 * the path.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { describeIssues } from '../../shared/names/errors';
import { cacheFolders } from '../../shared/paths/repo-paths';

export class TaskError extends Error {
  override name = 'TaskError';
}

/** A file of a task tree: its bytes, and its permission bits as git keeps them (0o755 or 0o644). */
export interface TaskFile {
  content: Buffer;
  mode: number;
}

/** The largest file a task folder may hold (its snapshot carries every file). */
export const maxTaskFileBytes = 16 * 1024 * 1024;

/** One regular file of a task: over maxTaskFileBytes is an error naming it. */
export function readTaskFile(path: string): TaskFile {
  const stat = statSync(path);
  if (stat.size > maxTaskFileBytes)
    throw new TaskError(`${path}: ${stat.size} bytes, over the limit of ${maxTaskFileBytes} bytes for a task file`);
  // executable or not, as git keeps it: a clone's umask must not change what a task reads
  return { content: readFileSync(path), mode: stat.mode & 0o111 ? 0o755 : 0o644 };
}

/**
 * Regular files under a folder as repository-relative path → content and mode; caches are skipped, and so
 * are symbolic links that stay inside `root`. A link out of it, a file over maxTaskFileBytes and a name that
 * is not UTF-8 are errors that name the path.
 */
export function readTaskFiles(dir: string, root = dir): Record<string, TaskFile> {
  const files: Record<string, TaskFile> = {};
  const realRoot = realpathSync(root);
  const walk = (current: string): void => {
    const entries = readdirSync(current, { withFileTypes: true, encoding: 'buffer' });
    for (const entry of entries.sort((a, b) => a.name.toString('utf8').localeCompare(b.name.toString('utf8')))) {
      const name = entry.name.toString('utf8');
      if (!Buffer.from(name, 'utf8').equals(entry.name)) {
        throw new TaskError(
          `${join(current, name)}: a file name that is not UTF-8 (bytes ${entry.name.toString('hex')}); task ` +
            `files need UTF-8 names`,
        );
      }
      if (cacheFolders.has(name)) continue;
      const path = join(current, name);
      if (entry.isSymbolicLink()) {
        const target = readlinkSync(path);
        let resolved: string;
        try {
          resolved = realpathSync(path);
        } catch {
          throw new TaskError(`${path}: a symbolic link to ${target}, which does not exist`);
        }
        if (resolved !== realRoot && !resolved.startsWith(`${realRoot}/`))
          throw new TaskError(`${path}: a symbolic link to ${target}, outside the task folder ${root}`);
        continue;
      }
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files[relative(dir, path)] = readTaskFile(path);
    }
  };
  walk(dir);
  return files;
}

/** Regular files under a folder as repository-relative path → base64 (see readTaskFiles). */
export function readTree(dir: string, root = dir): Record<string, string> {
  return Object.fromEntries(
    Object.entries(readTaskFiles(dir, root)).map(([path, file]) => [path, file.content.toString('base64')]),
  );
}

/**
 * A tree with a unified diff applied by `git apply` (as `git diff` and SWE-bench write them), modes
 * included; a patch that does not apply is a TaskError naming `patchPath` and git's reason.
 */
export function applyPatchToFiles(
  files: Record<string, TaskFile>,
  patch: string,
  patchPath: string,
): Record<string, TaskFile> {
  const work = mkdtempSync(join(tmpdir(), 'agentrl-patch-'));
  try {
    for (const [path, file] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), file.content);
      chmodSync(join(work, path), file.mode);
    }
    writeFileSync(join(work, '.agentrl.patch'), patch);
    try {
      execFileSync('git', ['apply', '--whitespace=nowarn', '.agentrl.patch'], { cwd: work, stdio: 'pipe' });
    } catch (error) {
      throw new TaskError(
        `${patchPath}: does not apply: ${((error as { stderr?: Buffer }).stderr ?? '').toString().trim()}`,
      );
    }
    rmSync(join(work, '.agentrl.patch'));
    return readTaskFiles(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A tree of contents with a unified diff applied (see applyPatchToFiles). */
export function applyPatch(files: Record<string, Buffer>, patch: string, patchPath: string): Record<string, Buffer> {
  const withModes = Object.fromEntries(
    Object.entries(files).map(([path, content]) => [path, { content, mode: 0o644 }]),
  );
  return Object.fromEntries(
    Object.entries(applyPatchToFiles(withModes, patch, patchPath)).map(([path, file]) => [path, file.content]),
  );
}

/** The files a patch adds or changes, as they read after it: a test patch's files, whole. */
export function patchedFiles(files: Record<string, Buffer>, patch: string, patchPath: string): Record<string, Buffer> {
  const after = applyPatch(files, patch, patchPath);
  return Object.fromEntries(
    Object.entries(after).filter(([path, content]) => !files[path] || !files[path].equals(content)),
  );
}

/**
 * The paths a unified diff touches (both sides of a rename or copy), read by git itself (`git apply
 * --numstat -z`, which applies nothing); a patch git cannot read is a TaskError naming `patchPath`.
 */
export function patchPaths(patch: string, patchPath: string): string[] {
  let output: string;
  try {
    output = execFileSync('git', ['apply', '--numstat', '-z', '-'], {
      input: patch,
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: tmpdir(),
    }).toString('utf8');
  } catch (error) {
    throw new TaskError(
      `${patchPath}: not a patch git can read: ${((error as { stderr?: Buffer }).stderr ?? '').toString().trim()}`,
    );
  }
  // each entry: "added\tdeleted\tpath\0", or for a rename or copy "added\tdeleted\t\0from\0to\0"
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const match = /^(?:\d+|-)\t(?:\d+|-)\t(.*)$/s.exec(fields[i]!);
    if (!match) continue;
    if (match[1]) paths.push(match[1]);
    else paths.push(fields[++i]!, fields[++i]!);
  }
  return paths;
}

/** A task's YAML file parsed with its schema (an empty file as `{}`); an error names the file and the field. */
export function readYamlFile<S extends z.ZodType>(path: string, schema: S): z.infer<S> {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TaskError(`${path}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new TaskError(describeIssues(path, parsed.error));
  return parsed.data;
}

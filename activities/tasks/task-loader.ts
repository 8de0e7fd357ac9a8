import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ExpectedTests, OracleFile, TaskSpec, type OracleCall, type TaskSnapshot } from '../../shared/task-spec';
import { describeIssues } from '../../shared/errors';

export class TaskError extends Error {
  override name = 'TaskError';
}

export interface LoadedTask {
  dir: string;
  snapshot: TaskSnapshot;
  hasOracle: boolean;
  solutionPatch: string | null;
  wrongFixPatch: string | null;
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
  if (!existsSync(specPath)) throw new TaskError(`${specPath}: missing (a task folder needs task.yaml)`);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(specPath, 'utf8'));
  } catch (error) {
    throw new TaskError(`${specPath}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = TaskSpec.safeParse(raw ?? {});
  if (!parsed.success) throw new TaskError(describeIssues(specPath, parsed.error));
  const spec = { ...parsed.data, image: parsed.data.image ?? defaultImage };
  const repoDir = join(root, 'repo');
  if (!existsSync(repoDir)) throw new TaskError(`${repoDir}: missing (the starting repository)`);
  const repo = readTree(repoDir, root);
  if (Object.keys(repo).length === 0) throw new TaskError(`${repoDir}: the starting repository is empty`);
  const hidden = existsSync(join(root, 'hidden')) ? readTree(join(root, 'hidden'), root) : {};
  const oracleDir = join(root, 'oracle');
  const oracle = existsSync(oracleDir) ? readTree(oracleDir, root) : {};
  const canary = existsSync(join(root, 'canary')) ? readTree(join(root, 'canary'), root) : {};
  const oracleCalls = readOracleFile(join(root, 'oracle.json'));
  const expectedPath = join(root, 'expected-tests.json');
  let expected: ExpectedTests = { visible: [], hidden: [], oracle: [] };
  if (existsSync(expectedPath)) {
    expected = readJsonFile(expectedPath, ExpectedTests);
  } else if (options.requireExpected !== false) {
    throw new TaskError(
      `${expectedPath}: missing; run \`npx agentrl task validate ${relative(process.cwd(), root) || '.'}\` to ` +
        `record the expected test ids`,
    );
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

/** The largest file a task folder may hold (its snapshot carries every file). */
export const maxTaskFileBytes = 16 * 1024 * 1024;

/**
 * Regular files under a folder as repository-relative path → base64; caches are skipped, and so are
 * symbolic links that stay inside the task folder. A link out of it, a file over maxTaskFileBytes and
 * a name that is not UTF-8 are errors that name the path.
 */
export function readTree(dir: string, root = dir): Record<string, string> {
  const files: Record<string, string> = {};
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
      if (name === '__pycache__' || name === '.pytest_cache' || name === '.git') continue;
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
      else if (entry.isFile()) {
        const size = statSync(path).size;
        if (size > maxTaskFileBytes)
          throw new TaskError(`${path}: ${size} bytes, over the limit of ${maxTaskFileBytes} bytes for a task file`);
        files[relative(dir, path)] = readFileSync(path).toString('base64');
      }
    }
  };
  walk(dir);
  return files;
}

/**
 * SWE-bench-style instances as task folders: `npx agentrl task import swebench FILE.jsonl --repos DIR`.
 * Each instance (`instance_id`, `repo`, `base_commit`, `problem_statement`, `patch`, `test_patch`,
 * `FAIL_TO_PASS`, `PASS_TO_PASS`, `version`) becomes a folder: `repo/` from the local clone at
 * `base_commit` (no network: the user gives the clones), `hidden.patch` the test patch, `solution.patch`
 * the reference patch, and `task.yaml` with the prompt, the two test lists, the command that runs their
 * files, the source and the bound the task accepts (the instance's own, else the file-wide default).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { z } from 'zod';
import { describeIssues } from '../../shared/names/errors';
import { TaskSpec, taskIdPattern } from '../../shared/contracts/task-spec';
import { TaskError } from './task-files';

/** A test list as SWE-bench ships it: a JSON array, or a string holding one. */
const TestList = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}, z.array(z.string()));

export const SwebenchInstance = z
  .object({
    instance_id: z.string().min(1),
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/name'),
    base_commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'must be a commit id'),
    problem_statement: z.string().min(1),
    patch: z.string().min(1),
    test_patch: z.string().min(1),
    FAIL_TO_PASS: TestList,
    PASS_TO_PASS: TestList.default([]),
    version: z.union([z.string(), z.number()]).optional(),
    /** this instance's acceptedBound, either spelling; checked by acceptedBoundOf, to name the instance */
    accepted_bound: z.unknown().optional(),
    acceptedBound: z.unknown().optional(),
  })
  .passthrough();
export type SwebenchInstance = z.infer<typeof SwebenchInstance>;

/** The command that runs exactly the files of these tests: sorted, once each, quoted for the shell. */
export function swebenchTestCommand(testIds: readonly string[]): string {
  const files = [...new Set(testIds.map((id) => id.split('::')[0]!))].sort();
  return ['python3 -m pytest -q', ...files.map(shellWord)].join(' ');
}

/** A path as one shell word that pytest reads as a path: quoted when it needs it, never an option. */
function shellWord(path: string): string {
  const word = path.startsWith('-') ? `./${path}` : path;
  return /^[\w./+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The paragraphs after an instance's problem statement, the last naming the command whose tests decide
 * and saying that some of them come with the grading: the test patch adds or changes them (`changed`,
 * those of the command's files it touches; `missing`, those the starting repository lacks), and the
 * agent never sees it.
 */
export function swebenchPromptTail(command: string, files: { changed: string[]; missing: string[] }): string {
  const work =
    'The repository is in the current directory. Resolve the issue by changing the code (not the tests), then submit.';
  const missing = files.missing.map((file) => `\`${file}\``);
  const absent = missing.length
    ? ` (${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist until then)`
    : '';
  const graded = files.changed.length
    ? ` Some of them are added or changed when your work is graded${absent}, ` +
      'so the test files you have now may not show the issue.'
    : '';
  return `${work}\n\nThe tests that decide this task run with \`${command}\`.${graded}`;
}

export interface ImportResult {
  /** instance id -> the task folder written */
  written: { instanceId: string; dir: string }[];
  /** instance id (or line) -> why it was not imported */
  failed: { instance: string; error: string }[];
  /** ids that `acceptedBounds` names and no instance of the file has (a typo falls back to the default) */
  unmatchedBounds: string[];
}

/**
 * What `--accepted-bounds FILE` holds: a YAML or JSON mapping from instance id to bound (each checked per instance).
 */
export function readAcceptedBounds(file: string): Map<string, unknown> {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TaskError(`--accepted-bounds ${file}: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new TaskError(`--accepted-bounds ${file}: expected a mapping from instance id to bound`);
  return new Map(Object.entries(raw));
}

/** A bound as task.yaml takes it: a number in (0, 1]. */
function checkBound(value: unknown, what: string): number {
  if (typeof value === 'number' && value > 0 && value <= 1) return value;
  const shown = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  throw new TaskError(`${what}: expected a number in (0, 1], got ${shown}`);
}

/**
 * The acceptedBound of an instance's task: its own (`accepted_bound` or `acceptedBound` in its line, or
 * its entry in `acceptedBounds`), else the file-wide default; its own values must agree.
 */
export function acceptedBoundOf(
  instance: SwebenchInstance,
  options: { acceptedBound?: number; acceptedBounds?: ReadonlyMap<string, unknown> },
): number | undefined {
  const name = instance.instance_id;
  const own = (
    [
      ['accepted_bound', instance.accepted_bound],
      ['acceptedBound', instance.acceptedBound],
      ['its --accepted-bounds entry', options.acceptedBounds?.get(name)],
    ] as const
  )
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => ({ field, bound: checkBound(value, `instance ${name}: ${field}`) }));
  if (new Set(own.map(({ bound }) => bound)).size > 1)
    throw new TaskError(
      `instance ${name}: its bounds differ (${own.map(({ field, bound }) => `${field} ${bound}`).join(', ')}); ` +
        'give one',
    );
  return own[0]?.bound ?? options.acceptedBound;
}

/** A task id from an instance id: lowercase, anything else than letters, digits, ".", "_" and "-" as "-". */
export function taskIdOf(instanceId: string): string {
  const id = instanceId
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  if (!taskIdPattern.test(id)) throw new TaskError(`instance ${instanceId}: no task id can be made from it`);
  return id;
}

/** Where the clone of `owner/name` lies under `reposDir`: owner__name, owner/name or name (a bare clone too). */
export function findClone(reposDir: string, repo: string): string | null {
  const [owner, name] = repo.split('/') as [string, string];
  for (const candidate of [`${owner}__${name}`, join(owner, name), name, `${owner}+${name}`]) {
    const dir = join(reposDir, candidate);
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, 'HEAD')) || existsSync(join(dir, 'repo', 'HEAD')))
      return existsSync(join(dir, 'repo', 'HEAD')) && !existsSync(join(dir, 'HEAD')) ? join(dir, 'repo') : dir;
  }
  return null;
}

/**
 * Imports every instance of a JSONL file; an instance that cannot be imported is reported and the
 * others still are. An existing task folder is kept unless `force`.
 */
export function importSwebench(
  file: string,
  options: {
    reposDir: string;
    outDir: string;
    force?: boolean;
    /** the `acceptedBound` of each task whose instance has none of its own (the tests were not written for twins) */
    acceptedBound?: number;
    /** instance id -> its bound (`--accepted-bounds FILE`); an instance's own value, checked when it is imported */
    acceptedBounds?: ReadonlyMap<string, unknown>;
    /**
     * the environment of each instance's image, by `owner/name@version`, `owner/name` or `*` (the first that matches)
     */
    environments?: Record<string, Environment>;
    onProgress?: (line: string) => void;
  },
): ImportResult {
  const path = resolve(file);
  if (!existsSync(path)) throw new TaskError(`${path}: no such file`);
  if (!existsSync(options.reposDir)) throw new TaskError(`--repos ${options.reposDir}: no such folder`);
  const result: ImportResult = { written: [], failed: [], unmatchedBounds: [] };
  const seen = new Set<string>();
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const where = `${path}:${index + 1}`;
    let instanceName = where;
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (error) {
        throw new TaskError(`${where}: not valid JSON: ${(error as Error).message}`);
      }
      const id = (raw as { instance_id?: unknown } | null)?.instance_id;
      if (typeof id === 'string' && id) {
        instanceName = id; // a later error names the instance, not its line
        seen.add(id);
      }
      const parsed = SwebenchInstance.safeParse(raw);
      if (!parsed.success) throw new TaskError(describeIssues(where, parsed.error));
      const instance = parsed.data;
      instanceName = instance.instance_id;
      const dir = join(options.outDir, taskIdOf(instance.instance_id));
      writeTaskFolder(instance, dir, options);
      result.written.push({ instanceId: instance.instance_id, dir });
      options.onProgress?.(`${instance.instance_id}: ${dir}`);
    } catch (error) {
      result.failed.push({ instance: instanceName, error: (error as Error).message });
      options.onProgress?.(`${instanceName}: not imported: ${(error as Error).message}`);
    }
  });
  for (const id of options.acceptedBounds?.keys() ?? []) if (!seen.has(id)) result.unmatchedBounds.push(id);
  return result;
}

type Environment = NonNullable<TaskSpec['environment']>;

/**
 * An environments file: one environment for every instance (read as the map `{'*': it}`), or a map by
 * `owner/name@version`, `owner/name` or `*`.
 */
export const EnvironmentsFile = z.union([
  TaskSpec.shape.environment.unwrap().transform((environment) => ({ '*': environment })),
  z.record(z.string(), TaskSpec.shape.environment.unwrap()),
]);

/** `{environment}` for an instance from the environments map (most specific key first), or `{}`. */
function environmentFor(
  instance: SwebenchInstance,
  environments: Record<string, Environment> | undefined,
): { environment?: Environment } {
  if (!environments) return {};
  const keys = [`${instance.repo}@${instance.version ?? ''}`, instance.repo, '*'];
  const found = keys.map((key) => environments[key]).find((environment) => environment !== undefined);
  return found ? { environment: found } : {};
}

function writeTaskFolder(
  instance: SwebenchInstance,
  dir: string,
  options: {
    reposDir: string;
    force?: boolean;
    acceptedBound?: number;
    acceptedBounds?: ReadonlyMap<string, unknown>;
    environments?: Record<string, Environment>;
  },
): void {
  const name = instance.instance_id;
  const notPytest = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].find((id) => !/\.py::\S/.test(id));
  if (notPytest !== undefined)
    throw new TaskError(
      `instance ${name}: test ${JSON.stringify(notPytest)} is not a pytest node id (path/test_file.py::test); ` +
        `only repositories whose tests pytest runs can be imported`,
    );
  if (instance.FAIL_TO_PASS.length === 0) throw new TaskError(`instance ${name}: FAIL_TO_PASS is empty`);
  const acceptedBound = acceptedBoundOf(instance, options);
  const clone = findClone(options.reposDir, instance.repo);
  if (clone === null)
    throw new TaskError(
      `instance ${name}: no clone of ${instance.repo} under ${options.reposDir} (looked for ` +
        `${instance.repo.replace('/', '__')}, ${instance.repo} and ${instance.repo.split('/')[1]}); clone it there`,
    );
  try {
    execFileSync('git', ['-C', clone, 'cat-file', '-e', `${instance.base_commit}^{commit}`], { stdio: 'pipe' });
  } catch {
    throw new TaskError(`instance ${name}: the clone ${clone} has no commit ${instance.base_commit} (fetch it there)`);
  }
  if (existsSync(dir)) {
    if (!options.force) throw new TaskError(`instance ${name}: ${dir} exists (give --force to replace it)`);
    rmSync(dir, { recursive: true, force: true });
  }
  const deciding = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS];
  const testCommand = swebenchTestCommand(deciding);
  const spec: TaskSpec = {
    id: taskIdOf(name),
    prompt:
      `${instance.problem_statement.trim()}\n\n` + `${swebenchPromptTail(testCommand, gradedFiles(clone, instance))}\n`,
    testCommand,
    failToPass: instance.FAIL_TO_PASS,
    ...(instance.PASS_TO_PASS.length ? { passToPass: instance.PASS_TO_PASS } : {}),
    ...(acceptedBound !== undefined ? { acceptedBound } : {}),
    ...environmentFor(instance, options.environments),
    source: {
      repo: instance.repo,
      commit: instance.base_commit,
      instanceId: name,
      ...(instance.version !== undefined ? { version: String(instance.version) } : {}),
    },
  };
  const checked = TaskSpec.safeParse(spec);
  if (!checked.success) throw new TaskError(describeIssues(`instance ${name}`, checked.error));
  mkdirSync(join(dir, 'repo'), { recursive: true });
  try {
    const archive = execFileSync('git', ['-C', clone, 'archive', '--format=tar', instance.base_commit], {
      maxBuffer: 2 * 1024 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', join(dir, 'repo')], { input: archive, stdio: ['pipe', 'pipe', 'pipe'] });
    writeFileSync(join(dir, 'task.yaml'), toYaml(checked.data, { lineWidth: 0 }));
    writeFileSync(join(dir, 'hidden.patch'), instance.test_patch);
    writeFileSync(join(dir, 'solution.patch'), instance.patch);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The deciding tests' files that the test patch touches (`changed`) and those the starting repository
 * lacks (`missing`, which the patch adds), sorted.
 */
function gradedFiles(clone: string, instance: SwebenchInstance): { changed: string[]; missing: string[] } {
  const files = [...new Set([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].map((id) => id.split('::')[0]!))];
  let touched: Set<string>;
  try {
    // -z: one record per file, `added\tdeleted\tpath` (a rename: `added\tdeleted\t`, then the old and the new path)
    // outside any repository: in one, git apply leaves out the paths outside the current folder
    const stat = execFileSync('git', ['apply', '--numstat', '-z'], {
      cwd: tmpdir(),
      input: instance.test_patch,
      stdio: 'pipe',
    });
    touched = new Set(
      stat
        .toString()
        .split('\0')
        .map((field) => field.replace(/^\d+\t\d+\t/, '').replace(/^-\t-\t/, '')),
    );
  } catch (error) {
    const reason = ((error as { stderr?: Buffer }).stderr ?? '').toString().trim();
    throw new TaskError(`instance ${instance.instance_id}: test_patch is not a patch git can read: ${reason}`);
  }
  const present = execFileSync(
    'git',
    ['-C', clone, 'ls-tree', '-r', '--name-only', '-z', instance.base_commit, '--', ...files],
    {
      stdio: 'pipe',
    },
  );
  const existing = new Set(present.toString().split('\0'));
  return {
    changed: files.filter((file) => touched.has(file)).sort(),
    missing: files.filter((file) => !existing.has(file)).sort(),
  };
}

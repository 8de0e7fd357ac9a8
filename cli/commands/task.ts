import { join, resolve } from 'node:path';
import Dockerode from 'dockerode';
import { ensureTaskImage } from '../../activities/images/task-image';
import { EnvironmentsFile, importSwebench, readAcceptedBounds } from '../../activities/tasks/swebench-import';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describeIssues } from '../../shared/names/errors';
import type { TaskSpec } from '../../shared/contracts/task-spec';
import { loadTaskFolder } from '../../activities/tasks/task-loader';
import { isHarborFolder, readHarborFolder } from '../../activities/tasks/harbor';
import { ensureHarborImage } from '../../activities/images/harbor-image';
import { validateTask, type ValidationReport } from '../../activities/tasks/task-validation';
import { loadConfig, projectRoot } from '../../workers/config';
import { log, positiveInt, type Command } from '../command';
import { runMany } from '../run-many';
import { findTaskFolders } from '../evaluation';

export const taskValidate: Command = {
  summary: 'prove tasks sound in real containers and record their expected test ids',
  usage: [
    'Usage: npx agentrl task validate DIR [DIR...] [--check] [--full] [--jobs N]',
    '       npx agentrl task validate --all [--check] [--full] [--jobs N]',
    '',
    'In real containers: the starting repository must fail, solution.patch must pass visible, hidden and oracle tests,',
    'and wrong-fix.patch (if present) must pass the visible tests only. Writes expected-tests.json with the digest of',
    'what the verdict depends on (the task folder, the image, the grading and twin code).',
    '',
    'Options:',
    '  --all      validate every task folder under tasks/ (any depth) instead of the named ones',
    '  --check    do not write; fail if expected-tests.json is missing or out of date; a task whose recorded digest',
    '             matches is not run again',
    '  --full     with --check: run every task, whatever its digest (npm run validate-tasks)',
    '  --jobs N   tasks validated at once (default 1: each task runs up to 7 containers at once already)',
    '',
    'Reports are printed in the order of the folders; a task that cannot be validated is reported as FAIL and the',
    'others are still validated. Exit code 1 when any task fails.',
  ].join('\n'),
  options: {
    check: { type: 'boolean' },
    full: { type: 'boolean' },
    all: { type: 'boolean' },
    jobs: { type: 'string' },
  },
  positionals: true,
  async run(values, positionals) {
    const config = loadConfig();
    const dirs = taskDirs('task validate', values, positionals);
    const jobs = values.jobs === undefined ? 1 : positiveInt('--jobs', values.jobs as string);
    const docker = new Dockerode();
    let failed = 0;
    // printed in folder order as soon as a report and every one before it are in
    const reports = new Array<ValidationReport | Error | undefined>(dirs.length);
    let printed = 0;
    const print = () => {
      for (; printed < dirs.length && reports[printed] !== undefined; printed++) {
        const report = reports[printed]!;
        if (report instanceof Error) {
          console.log(`FAIL ${dirs[printed]}: ${report.message}`);
          failed++;
          continue;
        }
        console.log(
          `${report.ok ? 'ok  ' : 'FAIL'} ${report.taskId} ` +
            `(${report.dir})${report.skipped ? ' unchanged since validated' : ''}`,
        );
        if (report.skipped) continue;
        for (const check of report.checks)
          console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
        // a Harbor task's verifier has no test ids to record
        const { expected } = report;
        if (expected && expected.visible.length + expected.hidden.length + expected.oracle.length > 0)
          console.log(
            `  expected tests: ${expected.visible.length} visible, ${expected.hidden.length} ` +
              `hidden, ${expected.oracle.length} oracle${report.recorded ? ' (recorded)' : ''}`,
          );
        if (!report.ok) failed++;
      }
    };
    await runMany(dirs.length, jobs, async (index) => {
      reports[index] = await validateTask(
        dirs[index]!,
        { docker, sandbox: config.sandbox, onProgress: (line) => log(`${dirs[index]}: ${line}`) },
        { check: Boolean(values.check), full: Boolean(values.full) },
      ).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      print();
    });
    return failed ? 1 : 0;
  },
};

export const taskImport: Command = {
  summary: 'turn SWE-bench-style instances into task folders, from local clones',
  usage: [
    'Usage: npx agentrl task import swebench FILE.jsonl --repos DIR [--out DIR] [--force] [--accepted-bound B]',
    '                                      [--accepted-bounds FILE] [--environments FILE]',
    '',
    'Each line of FILE.jsonl is an instance (instance_id, repo, base_commit, problem_statement, patch, test_patch,',
    'FAIL_TO_PASS, PASS_TO_PASS, version; the test lists may be JSON strings). Each becomes a task folder named by its',
    'instance id: repo/ is the clone of `repo` at base_commit, hidden.patch the test patch, solution.patch the patch,',
    "task.yaml the problem statement as the prompt with failToPass and passToPass. The task's testCommand runs the",
    'files of those tests (`python3 -m pytest -q FILE...`); the prompt ends by naming it, and says that some of its',
    'tests come only with the grading (the test patch). No network: the clones are yours.',
    'Then `npx agentrl task validate DIR` proves each in containers (FAIL_TO_PASS fails before the patch and passes',
    'after it, PASS_TO_PASS passes on both).',
    '',
    'Options:',
    '  --repos DIR  where the clones are: DIR/owner__name, DIR/owner/name or DIR/name (bare clones too)',
    '  --out DIR    where the task folders go (default tasks/imported)',
    '  --force      replace a task folder that exists already',
    '  --accepted-bound B  the acceptedBound, a number in (0, 1], of every task whose instance has none of its own;',
    '               without one, task validate refuses an instance whose FAIL_TO_PASS tests a guesser passes with',
    '               more than 1e-3 (one raise check: 2/13; a bare `assert x`: certain) and names those tests',
    "  --accepted-bounds FILE  a YAML or JSON mapping from instance id to its bound. An instance's own bound (this",
    '               entry, or accepted_bound or acceptedBound in its JSONL line) wins over --accepted-bound; its own',
    '               values must agree, and a bad or differing one is reported for that instance, the others imported',
    '  --environments FILE  a YAML or JSON file: the environment (Debian and PyPI packages, see docs/tasks.md) of',
    '               every instance, or a map from owner/name@version, owner/name or * to one; written into task.yaml',
    '',
    'An instance that cannot be imported is reported with the reason and the others are still imported; exit code 1',
    'when any was not.',
  ].join('\n'),
  options: {
    repos: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    'accepted-bound': { type: 'string' },
    'accepted-bounds': { type: 'string' },
    environments: { type: 'string' },
  },
  positionals: true,
  // the import is synchronous; a bad argument still ends the command as a rejection, as any command's does
  run: (values, positionals) => Promise.resolve().then(() => importFromArguments(values, positionals)),
};

export const taskBuild: Command = {
  summary: "build the images of tasks that say how theirs is made (task.yaml's environment, a Harbor Dockerfile)",
  usage: [
    'Usage: npx agentrl task build DIR [DIR...]',
    '       npx agentrl task build --all',
    '',
    'A task whose task.yaml has an `environment` (Debian packages, PyPI packages) runs in an image built from its',
    'base image (default the offline base) on this host: the PyPI packages are downloaded here as wheels with pip',
    '(with the index and certificates of this host) and installed offline in the build; no registry is used. ' +
      'The image is',
    'named by the digest of what it is built from and rebuilt when its base changes. Episodes build it on demand on a',
    'host that lacks it; this command (and task validate) builds it ahead of time, with progress on stderr.',
    '',
    'A Harbor folder (task.toml) runs in the image of its environment/Dockerfile, built here: its FROM must name an',
    'image this host has (the offline base, or one built or loaded here; nothing is pulled), and the packages of its',
    '`pip install` steps are downloaded here as wheels and installed offline. Its WORKDIR is the repository.',
    '',
    'Options:',
    '  --all      every task folder under tasks/ (any depth)',
    '',
    'Exit code 1 when any image could not be built (the reason is printed).',
  ].join('\n'),
  options: { all: { type: 'boolean' } },
  positionals: true,
  async run(values, positionals) {
    const config = loadConfig();
    const dirs = taskDirs('task build', values, positionals);
    const docker = new Dockerode();
    let failed = 0;
    for (const dir of dirs) {
      try {
        const progress = (line: string) => log(`${dir}: ${line}`);
        if (isHarborFolder(dir)) {
          const harbor = readHarborFolder(resolve(dir));
          const built = await ensureHarborImage(docker, harbor, config.sandbox.image, progress);
          console.log(`ok   ${harbor.id} ${built.image} (${built.built ? 'built' : 'present'})`);
          continue;
        }
        const { snapshot } = loadTaskFolder(dir, config.sandbox.image, { requireExpected: false });
        const done = await ensureTaskImage(docker, snapshot.spec, progress, snapshot.repo);
        console.log(`ok   ${snapshot.spec.id} ${snapshot.spec.image} (${done})`);
      } catch (error) {
        console.log(`FAIL ${dir}: ${(error as Error).message}`);
        failed++;
      }
    }
    return failed ? 1 : 0;
  },
};

/** The task folders a command names, or with --all every one under tasks/ (any depth). */
function taskDirs(command: string, values: Record<string, unknown>, positionals: string[]): string[] {
  if (values.all && positionals.length) throw new Error(`${command}: name task folders or give --all, not both`);
  const dirs = values.all ? findTaskFolders(join(projectRoot, 'tasks')) : positionals;
  if (dirs.length === 0) throw new Error(`${command}: name at least one task folder (or --all)`);
  return dirs;
}

/** `task import swebench FILE.jsonl --repos DIR ...`: writes a task folder per instance; 1 if any failed. */
function importFromArguments(values: Record<string, string | boolean | undefined>, positionals: string[]): number {
  const [format, file, ...rest] = positionals;
  if (format !== 'swebench')
    throw new Error(`task import: the format comes first and must be swebench, got ${JSON.stringify(format ?? '')}`);
  if (!file || rest.length) throw new Error('task import swebench: name exactly one FILE.jsonl');
  if (typeof values.repos !== 'string') throw new Error('task import swebench: --repos DIR is required');
  const outDir = typeof values.out === 'string' ? values.out : join(projectRoot, 'tasks', 'imported');
  const bound = values['accepted-bound'];
  const acceptedBound = typeof bound === 'string' ? Number(bound) : undefined;
  if (acceptedBound !== undefined && !(acceptedBound > 0 && acceptedBound <= 1))
    throw new Error(`--accepted-bound: expected a number in (0, 1], got ${JSON.stringify(bound)}`);
  let environments: Record<string, NonNullable<TaskSpec['environment']>> | undefined;
  if (typeof values.environments === 'string') {
    const path = values.environments;
    let raw: unknown;
    try {
      raw = parseYaml(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`--environments ${path}: ${(error as Error).message}`);
    }
    const parsed = EnvironmentsFile.safeParse(raw);
    if (!parsed.success) throw new Error(describeIssues(`--environments ${path}`, parsed.error));
    environments = parsed.data;
  }
  const boundsFile = values['accepted-bounds'];
  const acceptedBounds = typeof boundsFile === 'string' ? readAcceptedBounds(boundsFile) : undefined;
  const result = importSwebench(file, {
    ...(environments ? { environments } : {}),
    ...(acceptedBound !== undefined ? { acceptedBound } : {}),
    ...(acceptedBounds ? { acceptedBounds } : {}),
    reposDir: values.repos,
    outDir,
    force: Boolean(values.force),
    onProgress: (line) => log(line),
  });
  for (const { instanceId, dir } of result.written) console.log(`ok   ${instanceId} ${dir}`);
  for (const { instance, error } of result.failed) console.log(`FAIL ${instance}: ${error}`);
  for (const id of result.unmatchedBounds)
    log(`--accepted-bounds ${String(boundsFile)}: ${id} is not an instance of ${file}; its bound was not used`);
  return result.failed.length ? 1 : 0;
}

import { z } from 'zod';

/** A PyPI requirement: a name, extras, and version clauses (no URL, no marker). */
const pypiRequirement =
  /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?(\s*(===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*,?)*$/;

export const taskIdPattern = /^[a-z0-9][a-z0-9._-]*$/;

/** A pytest node id: `path/to/test_file.py::Class::test_name[params]`. */
const nodeId = z.string().regex(/^[^\s:][^:]*\.py::\S/, 'must be a pytest node id (path/to/test_file.py::test_name)');

/** `task.yaml` of a task folder. */
export const TaskSpec = z
  .object({
    id: z.string().regex(taskIdPattern, 'must be lowercase letters, digits, ".", "_" or "-"'),
    prompt: z.string().min(1, 'must not be empty'),
    /** @default the project's base sandbox image */
    image: z.string().min(1).optional(),
    testCommand: z.string().min(1).default('python3 -m pytest -q'),
    /** globs relative to the repository root; replaces the default protected list */
    protectedPaths: z.array(z.string().min(1)).optional(),
    /**
     * the survival bound over the deciding tests this task accepts, when its tests cannot reach the
     * default 1e-3 (`task validate` refuses a task above its bound)
     */
    acceptedBound: z.number().gt(0).max(1).optional(),
    /**
     * the tests the fix must turn from failing to passing (SWE-bench's FAIL_TO_PASS), as pytest node ids;
     * with it the reward is decided by these and `passToPass` only, and a test outside both lists never
     * changes it
     */
    failToPass: z.array(nodeId).min(1, 'needs at least one test').optional(),
    /** the tests that pass before and after the fix (SWE-bench's PASS_TO_PASS); only with failToPass */
    passToPass: z.array(nodeId).optional(),
    /**
     * how the task's image is made: built from `image` (default the base image) with these Debian and
     * PyPI packages (activities/images/task-image.ts); the base has Python 3.11 only
     */
    environment: z
      .object({
        python: z.literal('3.11', { message: 'the offline base image has Python 3.11 only' }).optional(),
        debian: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/, 'a Debian package name')).optional(),
        pypi: z.array(z.string().regex(pypiRequirement, 'a requirement such as six==1.16.0')).optional(),
        /**
         * a shell command that installs the repository into the image (such as `pip install -e .`), run as
         * root in /work of the build with the starting repository copied there, after the packages; pip
         * works offline there, from wheels downloaded here: the `pypi` packages and what pyproject.toml
         * names (build-system requires, project dependencies)
         */
        install: z.string().min(1).max(2000).optional(),
      })
      .strict()
      .optional(),
    /** where the task comes from (a real project's history), kept for attribution */
    source: z
      .object({
        repo: z.string().min(1),
        commit: z.string().min(1),
        instanceId: z.string().min(1).optional(),
        version: z.string().optional(),
        licence: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    budgets: z
      .object({
        maxTurns: z.number().int().positive().optional(),
        maxTokens: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((spec) => spec.passToPass === undefined || spec.failToPass !== undefined, {
    message: 'passToPass needs failToPass',
    path: ['passToPass'],
  });
export type TaskSpec = z.infer<typeof TaskSpec>;

/** `expected-tests.json`: the test ids `task validate` recorded from the reference solution. */
export const ExpectedTests = z.object({
  /** (empty for a task whose listed tests all lie in files its hidden tests replace) */
  visible: z.array(z.string()),
  hidden: z.array(z.string()),
  oracle: z.array(z.string()),
  /**
   * the tests that decide the task: those the reference fix turns from not passing to passing, and
   * the hidden tests (absent in records from before it)
   */
  deciding: z.array(z.string()).optional(),
  /**
   * the lines of its own file each test ran with the reference solution: only an assertion that ran
   * is twinned (absent in records from before it)
   */
  executed: z.record(z.string(), z.array(z.number().int())).optional(),
  /**
   * the examples of each expected doctest with the reference solution, as digests: a graded doctest must
   * still hold every one (absent in records from before it)
   */
  doctests: z.record(z.string(), z.array(z.string())).optional(),
  /**
   * canary twin coverage with task validate's fixed seed: how many twins, the tests without one, the
   * survival bound of all twinned groups (`survival`), and the bound over the deciding tests
   * (`bound`, with the deciding tests that have no twin)
   */
  twins: z
    .object({
      count: z.number().int(),
      uncovered: z.array(z.string()),
      survival: z.number(),
      bound: z.number().optional(),
      untwinnedDeciding: z.array(z.string()).optional(),
    })
    .strict()
    .optional(),
  /**
   * a Harbor task: the reward files its verifier wrote in task validate's runs (reward.txt, reward.json); another one
   * found at grading was not written by the verifier's own step (absent in records from before it)
   */
  rewardFiles: z.array(z.enum(['reward.txt', 'reward.json'])).optional(),
  /**
   * the line, in its own file, where each deciding test failed before the fix (the assertion that decides it; absent
   * for a test that failed before any line of its own, and in records from before it): the bound counts a deciding
   * test only through a twin of that assertion
   */
  failing: z.record(z.string(), z.number().int()).optional(),
  /**
   * the digest of what the validation depended on (activities/tasks/validation-digest.ts): while it
   * matches, `task validate --check` need not run the task's containers again
   */
  digest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
});
export type ExpectedTests = z.infer<typeof ExpectedTests>;

/**
 * One call of an `oracle.json` (docs/oracle-format.md): inputs and the reference solution's outcome,
 * as plain data encoded by activities/checker/python/oracle_values.py. The expected outcome never enters the
 * candidate's container: the audit sends only the call and compares in the trusted process.
 */
export const OracleCall = z
  .object({
    module: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'a dotted module name'),
    function: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a function name'),
    args: z.array(z.unknown()).default([]),
    kwargs: z.record(z.string(), z.unknown()).optional(),
    expect: z.union([z.object({ value: z.unknown() }).strict(), z.object({ raises: z.string().min(1) }).strict()]),
  })
  .strict();
export type OracleCall = z.infer<typeof OracleCall>;

/** `oracle.json`: the task's oracle as calls (the pytest files of `oracle/` are the fallback). */
export const OracleFile = z
  .object({
    format: z.literal('agentrl-oracle/1'),
    calls: z.array(OracleCall).min(1, 'an oracle needs at least one call'),
  })
  .strict();
export type OracleFile = z.infer<typeof OracleFile>;

/**
 * What an episode needs of a Harbor task (activities/tasks/harbor.ts) besides its image and repository: the
 * verifier run in a fresh container (activities/checker/verifier.ts) and the container limits.
 */
export const HarborVerifier = z.object({
  /** the Dockerfile's WORKDIR: in the task image a link to the sandbox's repository (/work) */
  workdir: z.string().startsWith('/'),
  /** the repository's files that were executable in the image (they stay so in the sandbox and the verifier) */
  executables: z.array(z.string()).optional(),
  /** tests/ as path → base64; placed at /tests in the verifier's fresh container only */
  tests: z.record(z.string(), z.string()),
  timeoutSec: z.number().positive(),
  env: z.record(z.string(), z.string()),
  /**
   * environment/ (path → base64 and permission bits) and the build's time limit: a host without the
   * task's image builds it from these (absent in snapshots from before it)
   */
  build: z
    .object({
      files: z.record(z.string(), z.object({ content: z.string(), mode: z.number().int() })),
      timeoutMs: z.number().int().positive(),
    })
    .optional(),
  /** container limits from task.toml's [environment] (each absent: the worker's sandbox setting) */
  resources: z
    .object({ cpus: z.number().positive(), memoryMb: z.number().int().positive(), workDiskMb: z.number().int() })
    .partial(),
});
export type HarborVerifier = z.infer<typeof HarborVerifier>;

/** The content of a task, as snapshotted into the artifact store. */
export const TaskSnapshot = z.object({
  /** `image` is the image episodes run in: with an `environment`, the one built from `baseImage` */
  spec: TaskSpec.safeExtend({ image: z.string().min(1), baseImage: z.string().min(1).optional() }),
  /** repository-relative path → base64 content, for repo/, hidden/ and oracle/ */
  repo: z.record(z.string(), z.string()),
  hidden: z.record(z.string(), z.string()),
  oracle: z.record(z.string(), z.string()),
  /** hand-written canaries (`canary/`): tests a correct solution must fail, graded like twins */
  canary: z.record(z.string(), z.string()).optional(),
  /** the calls of oracle.json; absent for tasks with only the pytest oracle */
  oracleCalls: z.array(OracleCall).optional(),
  expected: ExpectedTests,
  /** a Harbor task: graded by its verifier (tests/test.sh), not by pytest ids */
  harbor: HarborVerifier.optional(),
});
export type TaskSnapshot = z.infer<typeof TaskSnapshot>;

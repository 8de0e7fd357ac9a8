/**
 * Canary twins: at grading time the test modules are rewritten by activities/checker/python/make-twins.py, in this
 * trusted process, so that every real test has twins a correct solution must fail (the same call
 * with another expected value; calls on fresh inputs with wrong values), all renamed, reformatted
 * and shuffled together. The map of which test is which, and the secret it derives from, never leave
 * this process. A forgery that makes tests pass whatever they assert passes twins too; one that
 * guesses which tests are real survives with the probability the plan states (`survival`).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { TamperFinding } from '../../shared/contracts/episode';
import type { OracleCall } from '../../shared/contracts/task-spec';
import { checkerScript } from './scripts';
import { type ArtifactStore } from '../store/artifact-store';
import { parseJson } from '../store/files';
import { GraderError, type HarnessResult } from './grading';

const TwinTest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('real'), id: z.string() }),
  z.object({ kind: z.literal('other'), id: z.string() }),
  z.object({
    kind: z.literal('twin'),
    of: z.string().nullable(),
    group: z.string(),
    path: z.string(),
    lines: z.tuple([z.number().int(), z.number().int()]),
    /**
     * what the twin changes: `value` (an expected value: no solution passes it beside its real sibling), `raise` (the
     * expected exception class: a class deriving from both passes both), `input` (a raise block on a valid input: a
     * solution that raises too eagerly passes it), `fresh` (an oracle call on a new input); absent in older plans
     */
    check: z.enum(['value', 'raise', 'input', 'fresh']).optional(),
    /** a raise twin's expected class (its source text) */
    variant: z.string().optional(),
  }),
]);

export const TwinPlan = z.object({
  files: z.record(z.string(), z.string()),
  tests: z.record(z.string(), TwinTest),
  groups: z.record(
    z.string(),
    z.object({
      values: z.number().int(),
      real: z.boolean(),
      check: z.enum(['value', 'raise', 'input', 'fresh']).optional(),
    }),
  ),
  /** the lines (in its original file) of the check each covered real test is twinned on */
  checkRanges: z.record(z.string(), z.tuple([z.number().int(), z.number().int()])).optional(),
  survival: z.number(),
  uncovered: z.array(z.string()),
  /** why each uncovered test has no twin */
  reasons: z.record(z.string(), z.string()).optional(),
  unparsed: z.array(z.string()),
});
export type TwinPlan = z.infer<typeof TwinPlan>;

/** The per-deployment secret twins derive from; kept in the artifact store, which no sandbox can reach. */
export async function checkerSecret(store: ArtifactStore): Promise<Buffer> {
  const name = 'secrets/checker-key';
  const existing = await store.readNamed(name);
  if (existing && existing.length >= 32) return existing;
  await store.writeNamed(name, randomBytes(32));
  // two workers racing: both read back whichever write landed last
  return (await store.readNamed(name))!;
}

/**
 * The seed of one tree's twins: HMAC(secret, tree), so that the same tree gets the same twins (and grading cache hits).
 */
export function twinSeed(secret: Buffer, files: Record<string, Buffer>): string {
  const tree = createHash('sha256');
  for (const path of Object.keys(files).sort())
    tree.update(path).update('\0').update(createHash('sha256').update(files[path]!).digest());
  return createHmac('sha256', secret).update(tree.digest()).digest('hex');
}

/** Rewrites the test modules with twins (activities/checker/python/make-twins.py, run here, never in a sandbox). */
export async function planTwins(input: {
  seed: string;
  files: Record<string, Buffer>;
  real: readonly string[];
  fresh?: readonly OracleCall[];
  target?: number;
  /** the real ids that decide the task: the target is reached over their twin groups */
  deciding?: readonly string[];
  /** the lines each real test ran with the reference solution (task validate records them): only those are twinned */
  executed?: Readonly<Record<string, readonly number[]>>;
  /** the line each deciding test failed at before the fix: the planner twins that assertion when it can */
  failing?: Readonly<Record<string, number>>;
  /** the oracle's calls: those with a value expected are valid inputs for raise twins */
  inputs?: readonly OracleCall[];
}): Promise<TwinPlan> {
  const files = Object.fromEntries(
    Object.entries(input.files).map(([path, content]) => [path, content.toString('utf8')]),
  );
  const fresh = (input.fresh ?? []).flatMap((call) => {
    if (!('value' in call.expect) || call.kwargs) return [];
    const args = call.args.map(pythonLiteral);
    const value = pythonLiteral(call.expect.value);
    return args.every((arg) => arg !== null) && value !== null
      ? [{ module: call.module, function: call.function, args, value }]
      : [];
  });
  // inputs the oracle calls valid (a value expected), for raise twins: the same block on a valid input
  const inputs = (input.inputs ?? []).flatMap((call) => {
    if (!('value' in call.expect) || call.kwargs) return [];
    const args = call.args.map(pythonLiteral);
    return args.every((arg) => arg !== null) ? [{ module: call.module, function: call.function, args }] : [];
  });
  const request = JSON.stringify({
    seed: input.seed,
    files,
    inputs: inputs.slice(0, 500),
    real: input.real,
    target: input.target ?? defaultBoundTarget,
    fresh,
    ...(input.deciding ? { deciding: input.deciding } : {}),
    ...(input.executed ? { executed: input.executed } : {}),
    ...(input.failing ? { failing: input.failing } : {}),
  });
  const output = await new Promise<string>((resolveRun, reject) => {
    const child = spawn('python3', ['-I', checkerScript('make-twins.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolveRun(Buffer.concat(stdout).toString('utf8'))
        : reject(new GraderError(`twin generator failed (exit ${code}): ${stderr.slice(-500)}`)),
    );
    child.stdin.end(request);
  });
  return parseJson(TwinPlan, output, 'twin generator output');
}

export interface TwinVerdict {
  /** every real test passed and every twin failed by its own assertion */
  ok: boolean;
  realPassed: boolean;
  twins: number;
  /** twins that passed, are missing, were skipped, errored or failed elsewhere than their assertion */
  notFailed: { id: string; outcome: string }[];
  /** set on conclusive evidence of a forged report */
  forged: TamperFinding | null;
}

/**
 * Judges a run of rewritten modules. A twin must be reported `failed` with an assertion error at its own mutated
 * assertion; anything else fails the run. A forged report is named only on evidence no honest solution gives: a
 * value twin passed together with its real sibling, which asserts another value for the same call (no function
 * returns both). Whatever an honest solution can give is a plain failure: a wrong answer that hits a fresh call's
 * wrong value, a fix that raises on a valid input too. And a raise twin that passed beside its passing real sibling
 * is excused when it is the only other class the raised exception derives from (the usual backward-compatible
 * change: a new exception class deriving from the old expected class and the new one).
 */
export function judgeTwins(
  result: HarnessResult,
  plan: TwinPlan,
  realIds: readonly string[],
  files: Record<string, Buffer>,
  canaryPaths: ReadonlySet<string> = new Set(),
): TwinVerdict {
  const outcomes = new Map((result.report?.tests ?? []).map((test) => [test.nodeid, test]));
  const realOutcome = new Map<string, string>();
  const twins: [string, PlannedTwin][] = [];
  for (const [id, test] of Object.entries(plan.tests)) {
    if (test.kind === 'real') realOutcome.set(test.id, outcomes.get(id)?.outcome ?? 'missing');
    // only the twins of modules this run holds (the grader's run has no pytest-oracle module)
    else if (test.kind === 'twin' && test.path in files) twins.push([id, test]);
  }
  const realPassed =
    !result.timedOut &&
    result.report !== null &&
    realIds.length > 0 &&
    realIds.every((id) => realOutcome.get(id) === 'passed');
  const notOwn = twins.filter(([id, twin]) => !failedAtOwnCheck(outcomes.get(id), twin));
  const excused = excusedRaiseTwins(notOwn, outcomes, realOutcome);
  const notFailed: TwinVerdict['notFailed'] = notOwn
    .filter(([id]) => !excused.has(id))
    .map(([id]) => {
      const test = outcomes.get(id);
      return { id, outcome: test ? (test.outcome === 'failed' ? 'failed elsewhere' : test.outcome) : 'missing' };
    });
  notFailed.push(...canariesNotFailed(plan, outcomes, files, canaryPaths));
  const evidence = notOwn.filter(
    ([id, twin]) =>
      outcomes.get(id)?.outcome === 'passed' &&
      (twin.check ?? 'value') === 'value' &&
      twin.of !== null &&
      realOutcome.get(twin.of) === 'passed',
  );
  const forged: TamperFinding | null = evidence.length
    ? {
        kind: 'forged_report',
        path: '.',
        detail:
          `${evidence.length} of ${twins.length} canary twins passed beside a real test asserting another ` +
          `value for the same call`,
      }
    : null;
  return {
    ok: realPassed && notFailed.length === 0,
    realPassed,
    twins: twins.length,
    notFailed: notFailed.slice(0, 20),
    forged,
  };
}

type PlannedTwin = Extract<z.infer<typeof TwinTest>, { kind: 'twin' }>;
type ReportedTest = NonNullable<HarnessResult['report']>['tests'][number];

/**
 * A twin failed as it must: at its own changed assertion (a raise twin on a valid input: DID NOT RAISE at its block).
 */
function failedAtOwnCheck(test: ReportedTest | undefined, twin: PlannedTwin): boolean {
  return (
    test?.outcome === 'failed' &&
    test.crash !== undefined &&
    test.crash.path === twin.path &&
    test.crash.line >= twin.lines[0] &&
    test.crash.line <= twin.lines[1] &&
    /^(AssertionError\b|assert\b|Failed: DID NOT RAISE\b)/.test(test.crash.message)
  );
}

/**
 * The raise twins an honest fix passes: of one real check whose test passed, the twins of exactly one other class
 * (its exception derives from the expected class and that one). Two or more other classes are not excused.
 */
function excusedRaiseTwins(
  notOwn: readonly [string, PlannedTwin][],
  outcomes: ReadonlyMap<string, { outcome: string }>,
  realOutcome: ReadonlyMap<string, string>,
): Set<string> {
  const byCheck = new Map<string, { ids: string[]; classes: Set<string> }>();
  for (const [id, twin] of notOwn) {
    if (twin.check !== 'raise' || twin.of === null || outcomes.get(id)?.outcome !== 'passed') continue;
    if (realOutcome.get(twin.of) !== 'passed') continue;
    const key = `${twin.group}\0${twin.of}`;
    const entry = byCheck.get(key) ?? { ids: [], classes: new Set<string>() };
    entry.ids.push(id);
    entry.classes.add(twin.variant ?? id);
    byCheck.set(key, entry);
  }
  return new Set([...byCheck.values()].filter((entry) => entry.classes.size === 1).flatMap((entry) => entry.ids));
}

/** Hand-written canaries (a task's canary/ folder) must fail too, every parametrized instance of them. */
function canariesNotFailed(
  plan: TwinPlan,
  outcomes: ReadonlyMap<string, { nodeid: string; outcome: string }>,
  files: Record<string, Buffer>,
  canaryPaths: ReadonlySet<string>,
): TwinVerdict['notFailed'] {
  const notFailed: TwinVerdict['notFailed'] = [];
  for (const [id, test] of Object.entries(plan.tests)) {
    if (test.kind !== 'other' || !canaryPaths.has(test.id.split('::')[0]!) || !(id.split('::')[0]! in files)) continue;
    const instances = [...outcomes.values()].filter(
      (entry) => entry.nodeid === id || entry.nodeid.startsWith(`${id}[`),
    );
    if (instances.length === 0) notFailed.push({ id, outcome: 'missing' });
    for (const entry of instances)
      if (entry.outcome !== 'failed') notFailed.push({ id: entry.nodeid, outcome: entry.outcome });
  }
  return notFailed;
}

/** The survival bound a task's reward is held to unless its task.yaml states another (`acceptedBound`). */
export const defaultBoundTarget = 1e-3;

/**
 * The survival bound over the assertions that decide a task: the chance that an agent that cannot solve it, and
 * cannot tell twins from real tests, passes all of them. A deciding test (one the reference fix turns from failing to
 * passing) counts through the assertion it failed at before the fix (`failing`, its line in the test's own file, as
 * task validate saw it): its twin group counts 1/k (k the values it is asserted with) only when that group is the
 * one twinned on the failing assertion; a deciding test whose failing assertion has no twin is survivable with
 * certainty, counts 1, and is listed (with the line), however well its other assertions are twinned, since the
 * unfixed code passes those already. A test that failed before any assertion (an import error, a missing name) counts
 * through whichever group it has. A raise check counts 2/k: its judgement excuses one other class the raised
 * exception derives from (judgeTwins). Tests that do not decide the task count nothing.
 */
export function decidingBound(
  plan: TwinPlan,
  deciding: readonly string[],
  failing: Readonly<Record<string, number>> = {},
): { bound: number; untwinned: string[]; reasons: Record<string, string> } {
  const groupsOf = new Map<string, Set<string>>();
  for (const test of Object.values(plan.tests)) {
    if (test.kind !== 'twin' || test.of === null || (test.check ?? 'value') === 'input') continue;
    const groups = groupsOf.get(test.of) ?? new Set<string>();
    groups.add(test.group);
    groupsOf.set(test.of, groups);
  }
  const counted = new Set<string>();
  const untwinned: string[] = [];
  const reasons: Record<string, string> = {};
  let bound = 1;
  for (const id of deciding) {
    const groups = groupsOf.get(id);
    if (!groups?.size) {
      untwinned.push(id);
      continue;
    }
    const line = failing[id];
    const twinnedOn = plan.checkRanges?.[id];
    if (line !== undefined && twinnedOn && (line < twinnedOn[0] || line > twinnedOn[1])) {
      untwinned.push(id);
      reasons[id] =
        `its assertion at line ${line}, which fails before the fix, has no must-fail twin ` +
        `(the test is twinned at line ${twinnedOn[0]}, which the unfixed code passes)`;
      continue;
    }
    for (const group of groups) {
      if (counted.has(group)) continue;
      counted.add(group);
      // a raise check's class twins excuse one other class (an honest exception deriving from two): a guesser
      // raising a class of two bases survives with 2/k
      const { values = 1, check } = plan.groups[group] ?? {};
      bound /= Math.max(1, check === 'raise' ? values / 2 : values);
    }
  }
  return { bound, untwinned, reasons };
}

/**
 * A few oracle calls, chosen by the seed, for twins on fresh inputs (a lookup of the test files answers them wrongly).
 */
export function freshCalls(calls: readonly OracleCall[], seed: string): OracleCall[] {
  const ranked = calls.map((call, index) => ({
    call,
    rank: createHash('sha256').update(seed).update(String(index)).digest('hex'),
  }));
  return ranked
    .sort((a, b) => a.rank.localeCompare(b.rank))
    .slice(0, 4)
    .map(({ call }) => call);
}

/** An encoded oracle value as Python literal source, or null where it has none (NaN, infinities, bytes, frozensets). */
export function pythonLiteral(value: unknown): string | null {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : null;
  if (typeof value === 'string') return JSON.stringify(value);
  const all = (items: unknown[]): string[] | null => {
    const parts = items.map(pythonLiteral);
    return parts.every((part) => part !== null) ? parts : null;
  };
  if (Array.isArray(value)) {
    const parts = all(value);
    return parts && `[${parts.join(', ')}]`;
  }
  if (typeof value !== 'object') return null;
  const [tag, body] = Object.entries(value as Record<string, unknown>)[0] ?? [];
  if (tag === '$int' && typeof body === 'string' && /^-?\d+$/.test(body)) return body;
  if (tag === '$float' && typeof body === 'string' && /^-?\d/.test(body)) return body;
  if (tag === '$tuple' && Array.isArray(body)) {
    const parts = all(body);
    return parts && (parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`);
  }
  // a set inside a set or as a key is a frozenset, which has no literal
  const holdsSet = (items: unknown[]) =>
    items.some((item) => typeof item === 'object' && item !== null && '$set' in item);
  if (tag === '$set' && Array.isArray(body)) {
    if (holdsSet(body)) return null;
    const parts = all(body);
    return parts && (parts.length === 0 ? 'set()' : `{${parts.join(', ')}}`);
  }
  if (tag === '$dict' && Array.isArray(body)) {
    if (holdsSet(body.map((pair: unknown) => (Array.isArray(pair) ? (pair[0] as unknown) : null)))) return null;
    const pairs = body.map((pair) =>
      Array.isArray(pair) && pair.length === 2 ? [pythonLiteral(pair[0]), pythonLiteral(pair[1])] : [null, null],
    );
    return pairs.every(([key, item]) => key !== null && item !== null)
      ? `{${pairs.map(([key, item]) => `${key}: ${item}`).join(', ')}}`
      : null;
  }
  return null;
}

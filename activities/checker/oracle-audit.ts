/**
 * The true-success audit outside the candidate's process: the oracle's calls go, as plain data and
 * without their expected values, to activities/checker/python/audit-runner.py in a fresh hardened container holding
 * the candidate's tree; the outcomes come back as JSON lines and are compared here, in the trusted
 * process, which never loads the candidate's code. Nothing the candidate does in its process can see
 * an expected value, so the audit is sound by construction: only a correct output passes a call.
 */
import type Dockerode from 'dockerode';
import { z } from 'zod';
import type { OracleCall } from '../../shared/contracts/task-spec';
import { removeSandbox, repoPath, spoolPath, writeTree, type ContainerOptions } from '../sandbox/container';
import { execCollect } from '../sandbox/docker';
import type { SandboxPool } from '../sandbox/pool';
import { freshScoringContainer } from './grading';

/** Bounds of the comparison; beyond them an output is wrong, never a grader failure. */
export const auditLimits = {
  /** one call's outcome line, in bytes */
  lineBytes: 1024 * 1024,
  /** all outcome lines together */
  totalBytes: 32 * 1024 * 1024,
  /** nesting of an encoded value */
  depth: 64,
  /** seconds per call (the runner kills a call's process after it); the whole run is bounded by the test timeout */
  perCallSeconds: 10,
} as const;

export const OracleAuditResult = z.object({
  passed: z.number().int(),
  total: z.number().int(),
  timedOut: z.boolean(),
  /** the first few calls that did not match, with what came back */
  failures: z.array(z.object({ index: z.number().int(), call: z.string(), expected: z.string(), got: z.string() })),
  durationMs: z.number(),
  /** the end of what the run wrote to stderr (the candidate's prints land there) */
  output: z.string(),
});
export type OracleAuditResult = z.infer<typeof OracleAuditResult>;

export interface OracleAuditOptions extends Omit<ContainerOptions, 'role'> {
  docker: Dockerode;
  /** the worker's warm pool: a fresh audit container made ahead of need, when it has one (sandbox/pool.ts) */
  pool?: SandboxPool;
  /** the candidate's tree (no hidden test, no oracle file) */
  files: Record<string, Buffer>;
  calls: readonly OracleCall[];
  timeoutMs: number;
  /** TEST ONLY: accept an outcome carrying a value and a raise (the one-outcome rule off, runner and here) */
  unsafeProtocol?: boolean;
}

/** Runs the oracle's calls on the candidate's tree in an isolated container and compares the outcomes here. */
export async function auditOracleCalls(options: OracleAuditOptions): Promise<OracleAuditResult> {
  const { docker, name } = options;
  const started = Date.now();
  await removeSandbox(docker, name, [`${name}-work`, `${name}-spool`]);
  const { container, volumes, workDir, spoolDir, pooled } = await freshScoringContainer({ ...options, role: 'audit' });
  let timer: NodeJS.Timeout | undefined;
  try {
    // inputs only: the expected outcomes stay in this process
    const requests = options.calls.map(({ module, function: fn, args, kwargs }) => ({
      module,
      function: fn,
      args,
      ...(kwargs ? { kwargs } : {}),
    }));
    await writeTree(container, spoolDir, spoolPath, [
      { path: 'calls.json', content: Buffer.from(JSON.stringify(requests)), mode: 0o444 },
    ]);
    await writeTree(
      container,
      workDir,
      repoPath,
      Object.entries(options.files).map(([path, content]) => ({ path, content })),
    );
    const uid = String(options.sandbox.uid);
    const run = execCollect(
      docker,
      container,
      [
        'python3',
        '-I',
        `${spoolPath}/audit-runner.py`,
        `${spoolPath}/calls.json`,
        repoPath,
        String(auditLimits.perCallSeconds),
        ...(options.unsafeProtocol ? ['unsafe-protocol'] : []),
      ],
      {
        user: `${uid}:${uid}`,
        workingDir: repoPath,
        inspect: false,
        maxBytes: auditLimits.totalBytes,
      },
    );
    const timeout = new Promise<null>(
      (resolveTimeout) => (timer = setTimeout(() => resolveTimeout(null), options.timeoutMs)),
    );
    const exec = await Promise.race([run, timeout]);
    const outcomes = exec ? parseOutcomes(exec.stdout, options.calls.length) : new Map<number, unknown>();
    return {
      ...compareOutcomes(options.calls, outcomes, options.unsafeProtocol),
      timedOut: exec === null,
      durationMs: Date.now() - started,
      output: exec ? exec.stderr.slice(-2000) : '',
    };
  } finally {
    clearTimeout(timer);
    // removing the container also ends a run that is still going; a pooled one goes while the episode goes on
    if (pooled) void removeSandbox(docker, name, volumes).catch(() => undefined);
    else await removeSandbox(docker, name, volumes);
  }
}

/** What a call whose index came back on more than one line gets: it scores 0, whatever the lines say. */
export const duplicateOutcome = Object.freeze({ error: 'more than one outcome for this call' });

/**
 * The runner's lines by call index. Malformed lines are skipped; an index that comes back twice
 * gets `duplicateOutcome` (the runner writes one line per call, so a second one is forged).
 */
export function parseOutcomes(stdout: string, count: number): Map<number, unknown> {
  const outcomes = new Map<number, unknown>();
  const seen = new Set<number>();
  for (const line of stdout.split('\n')) {
    if (!line || Buffer.byteLength(line) > auditLimits.lineBytes) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // also a value nested too deeply for the parser
    }
    if (!isRecord(parsed)) continue;
    const index = parsed.i;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) continue;
    const { i: _index, ...outcome } = parsed;
    outcomes.set(index, seen.has(index) ? duplicateOutcome : outcome);
    seen.add(index);
  }
  return outcomes;
}

/** Compares every call's outcome with its expectation (see outcomeMatches). */
export function compareOutcomes(
  calls: readonly OracleCall[],
  outcomes: ReadonlyMap<number, unknown>,
  unsafeProtocol = false,
): Omit<OracleAuditResult, 'timedOut' | 'durationMs' | 'output'> {
  let passed = 0;
  const failures: OracleAuditResult['failures'] = [];
  calls.forEach((call, index) => {
    const outcome = outcomes.get(index);
    if (outcomeMatches(call.expect, outcome, unsafeProtocol)) {
      passed++;
      return;
    }
    if (failures.length < 10) {
      failures.push({
        index,
        call: `${call.module}.${call.function}(${call.args.map((arg) => brief(arg)).join(', ')})`,
        expected: brief(call.expect),
        got: outcome === undefined ? 'no outcome' : brief(outcome),
      });
    }
  });
  return { passed, total: calls.length, failures };
}

/**
 * The comparison rules, stated once:
 * - an outcome is exactly one of `{value}`, `{raises}` and `{error}` (its call index aside): one
 *   carrying two of them, or anything else, matches nothing;
 * - `{raises: Name}` matches an outcome whose `raises` list (the exception class's MRO as
 *   qualified names, `module.QualName`, each written only for the class that name really finds)
 *   holds `qualifiedException(Name)`: a bare name is a builtin's (`ValueError` is
 *   `builtins.ValueError`), so a home-made class called ValueError matches nothing;
 * - `{value: v}` matches an outcome `{value: w}` when v and w are the same encoded value: the same
 *   JSON type at every level (1, 1.0 and true are three values: ints are numbers, floats are
 *   `{"$float": repr}`, booleans are booleans), equal numbers and strings, arrays of equal length
 *   with matching items, objects with the same keys and matching values;
 * - floats (`floatsMatch`) match when both are NaN, both the same infinity, or at most floatUlps
 *   apart in the IEEE-754 ordering (so -0.0 matches 0.0), in lists, tuples and dict values alike;
 *   set elements and dict keys compare exactly, repr for repr (they tell sets and dicts apart, and
 *   their canonical order is by text, which one ulp can change); a `$float` that is not Python's
 *   repr of a float matches nothing (activities/checker/python/oracle_values.py, `values_match`,
 *   states the same rule);
 * - an outcome nested deeper than auditLimits.depth, over auditLimits.lineBytes, missing (a crash, a
 *   timeout), or an error matches nothing. Each call scores 0 or 1; nothing here throws.
 */
export function outcomeMatches(expect: OracleCall['expect'], outcome: unknown, unsafeProtocol = false): boolean {
  if (!isRecord(outcome) || Array.isArray(outcome)) return false;
  if (Object.keys(outcome).length !== 1 && !unsafeProtocol) return false; // TEST ONLY: the hedge let through
  if ('raises' in expect) {
    const names = outcome.raises;
    const wanted = qualifiedException(expect.raises);
    return Array.isArray(names) && names.some((name) => name === wanted);
  }
  if (!('value' in outcome)) return false;
  return sameValue(expect.value, outcome.value, 0, false);
}

/**
 * Floats this many places apart in the IEEE-754 ordering still match (4 ulps, a relative
 * difference below 1e-15). An honest rewrite of the reference (another evaluation order, exact
 * arithmetic with Fraction or math.fsum) lands a rounding or two away: 0.1 + 0.2 is 1 place from
 * 0.3. A wrong result is far off: a relative error of 1e-12 is thousands of places, an off-by-one
 * or a wrong formula billions. The same number is FLOAT_ULPS in oracle_values.py.
 */
export const floatUlps = 4;

/** Two `$float` bodies: both NaN, the same infinity, or at most floatUlps apart; not a repr, no match. */
export function floatsMatch(expected: unknown, actual: unknown): boolean {
  const a = parseFloatRepr(expected);
  const b = parseFloatRepr(actual);
  if (a === undefined || b === undefined) return false;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b; // the largest float is 1 place from inf
  const distance = ordinal(a) - ordinal(b);
  return (distance < 0n ? -distance : distance) <= BigInt(floatUlps);
}

/** Python's `repr` of a float: the shortest digits that round-trip, laid out as Python lays them out. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const [mantissa = '', exponentText = ''] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  return `${sign}${digits.slice(0, exponent + 1).padEnd(exponent + 1, '0')}.${digits.slice(exponent + 1) || '0'}`;
}

/** The float a `$float` body holds, when the body is exactly Python's repr of it. */
function parseFloatRepr(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const value = text === 'nan' ? NaN : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text);
  return pythonFloatRepr(value) === text ? value : undefined;
}

/** x's place among the doubles in order: neighbours differ by 1, -0.0 and 0.0 are both 0. */
function ordinal(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigInt64(0);
  return bits >= 0n ? bits : -(bits & 0x7fff_ffff_ffff_ffffn);
}

/** An expectation's exception name as the runner writes it: a bare name is a builtin's. */
export function qualifiedException(name: string): string {
  return name.includes('.') ? name : `builtins.${name}`;
}

/** The value rule of outcomeMatches; `exact` (inside a set or a dict key) compares floats by repr. */
function sameValue(expected: unknown, actual: unknown, depth: number, exact: boolean): boolean {
  if (depth > auditLimits.depth) return false;
  if (expected === null || typeof expected !== 'object')
    return typeof actual === typeof expected && actual === expected;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => sameValue(item, actual[index], depth + 1, exact))
    );
  }
  if (!isRecord(actual) || Array.isArray(actual)) return false;
  const record = expected as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== Object.keys(actual).length || !keys.every((key) => Object.hasOwn(actual, key))) return false;
  if (!exact && keys.length === 1 && '$float' in record) return floatsMatch(record.$float, actual.$float);
  if (!exact && keys.length === 1 && '$dict' in record) return samePairs(record.$dict, actual.$dict, depth + 1);
  return keys.every((key) => sameValue(record[key], actual[key], depth + 1, exact || key === '$set'));
}

/** A `$dict`'s pairs: keys exactly (so both lists are in the same order), values with the float tolerance. */
function samePairs(expected: unknown, actual: unknown, depth: number): boolean {
  if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
  return expected.every((pair: unknown, index) => {
    const other: unknown = actual[index];
    return (
      Array.isArray(pair) &&
      Array.isArray(other) &&
      pair.length === 2 &&
      other.length === 2 &&
      sameValue(pair[0], other[0], depth + 2, true) &&
      sameValue(pair[1], other[1], depth + 2, false)
    );
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function brief(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(unprintable)';
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

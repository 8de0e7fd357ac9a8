// The trusted comparison of the isolated audit (activities/checker/oracle-audit.ts), on the golden
// values and comparisons that the Python tests read too (shared/golden/oracle-values.json,
// shared/golden/oracle-compare.json).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  auditLimits,
  compareOutcomes,
  duplicateOutcome,
  floatUlps,
  outcomeMatches,
  parseOutcomes,
  pythonFloatRepr,
} from '../../activities/checker/oracle-audit';
import { pythonLiteral } from '../../activities/checker/twins';

const golden = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'shared', 'golden', 'oracle-values.json'), 'utf8'),
) as { values: { python: string; encoded: unknown }[] };
const comparisons = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'shared', 'golden', 'oracle-compare.json'), 'utf8'),
) as { floatUlps: number; cases: { why: string; expected: unknown; actual: unknown; match: boolean }[] };

describe('oracle outcomes', () => {
  test('every golden value matches itself, and only floats within a few ulps match another', () => {
    const near = new Set(['0.0', '-0.0', '5e-324']); // within 4 ulps of one another
    for (const [i, a] of golden.values.entries()) {
      for (const [j, b] of golden.values.entries()) {
        assert.equal(
          outcomeMatches({ value: a.encoded }, { value: b.encoded }),
          i === j ||
            JSON.stringify(a.encoded) === JSON.stringify(b.encoded) ||
            (near.has(a.python) && near.has(b.python)),
          `${a.python} against ${b.python}`,
        );
      }
    }
  });

  test('the golden comparisons: floats within floatUlps in sequences and dict values, everything else exactly', () => {
    assert.equal(floatUlps, comparisons.floatUlps);
    for (const { why, expected, actual, match } of comparisons.cases) {
      assert.equal(outcomeMatches({ value: expected }, { value: actual }), match, why);
      assert.equal(outcomeMatches({ value: actual }, { value: expected }), match, `${why} (swapped)`);
    }
  });

  test("floats are read back only from Python's repr, which pythonFloatRepr reproduces", () => {
    const view = new DataView(new ArrayBuffer(8));
    const numbers = [0, -0, 1, 0.1 + 0.2, 1e16, 1e15, 1e-5, 1e-4, 5e-324, Number.MAX_VALUE, 123456789.125];
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 3000; i++) {
      view.setUint32(0, next());
      view.setUint32(4, next());
      const x = view.getFloat64(0);
      if (Number.isFinite(x))
        numbers.push(x, x * 2 ** -Math.round(Math.log2(Math.abs(x) || 1)) * 10 ** ((i % 40) - 20));
    }
    const reprs = JSON.parse(
      execFileSync(
        'python3',
        ['-I', '-c', 'import json, sys; print(json.dumps([repr(float(x)) for x in json.load(sys.stdin)]))'],
        { input: JSON.stringify(numbers) },
      ).toString(),
    ) as string[];
    numbers.forEach((x, index) => {
      // JSON carries -0 as 0: Python gets 0.0
      const want = Object.is(x, -0) ? '-0.0' : reprs[index];
      assert.equal(pythonFloatRepr(x), want, `${x}`);
    });
    assert.deepEqual([NaN, Infinity, -Infinity].map(pythonFloatRepr), ['nan', 'inf', '-inf']);
  });

  test('1, 1.0 and True are three values; NaN matches NaN; -0.0 matches 0.0; a list is not a tuple', () => {
    const one = 1;
    const oneFloat = { $float: '1.0' };
    assert.equal(outcomeMatches({ value: one }, { value: oneFloat }), false);
    assert.equal(outcomeMatches({ value: one }, { value: true }), false);
    assert.equal(outcomeMatches({ value: oneFloat }, { value: true }), false);
    assert.equal(outcomeMatches({ value: { $float: 'nan' } }, { value: { $float: 'nan' } }), true);
    assert.equal(outcomeMatches({ value: { $float: '0.0' } }, { value: { $float: '-0.0' } }), true);
    assert.equal(outcomeMatches({ value: [1, 2] }, { value: { $tuple: [1, 2] } }), false);
    assert.equal(outcomeMatches({ value: { $tuple: [1] } }, { value: { $tuple: [1], extra: 1 } }), false);
  });

  test('an expected exception matches by a qualified name in the MRO; an error, a value or nothing matches no expectation', () => {
    const mro = ['pkg.MyError', 'builtins.ValueError', 'builtins.Exception'];
    assert.equal(outcomeMatches({ raises: 'ValueError' }, { raises: mro }), true);
    assert.equal(outcomeMatches({ raises: 'builtins.ValueError' }, { raises: mro }), true);
    assert.equal(outcomeMatches({ raises: 'pkg.MyError' }, { raises: mro }), true);
    assert.equal(outcomeMatches({ raises: 'MyError' }, { raises: mro }), false, 'a bare name is a builtin');
    assert.equal(outcomeMatches({ raises: 'ValueError' }, { raises: ['TypeError', 'Exception'] }), false);
    assert.equal(
      outcomeMatches({ raises: 'ValueError' }, { raises: ['pkg.ValueError', 'builtins.Exception'] }),
      false,
      'a home-made class named ValueError',
    );
    assert.equal(
      outcomeMatches({ raises: 'ValueError' }, { raises: ['?builtins.ValueError', 'builtins.Exception'] }),
      false,
      'a class that claims to be builtins.ValueError (the runner marks it)',
    );
    assert.equal(outcomeMatches({ raises: 'ValueError' }, { raises: ['ValueError', 'Exception'] }), false);
    assert.equal(outcomeMatches({ raises: 'ValueError' }, { value: 'ValueError' }), false);
    assert.equal(outcomeMatches({ value: null }, { error: 'Unencodable: _Same' }), false);
    assert.equal(outcomeMatches({ value: null }, undefined), false);
    assert.equal(outcomeMatches({ value: null }, {}), false);
  });

  test('deeply nested and oversized outputs score 0 without throwing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    assert.equal(outcomeMatches({ value: deep }, { value: deep }), false, 'nesting beyond the limit never matches');
    const line = (value: unknown, i = 0) => JSON.stringify({ i, value });
    const nested = `{"i":0,"value":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const huge = line('x'.repeat(auditLimits.lineBytes + 1));
    assert.equal(parseOutcomes(huge, 1).size, 0, 'a line over the limit is dropped');
    const parsed = parseOutcomes(nested, 1);
    const result = compareOutcomes([{ module: 'm', function: 'f', args: [], expect: { value: [] } }], parsed);
    assert.deepEqual([result.passed, result.total], [0, 1]);
  });

  test('a call that comes back twice scores 0; malformed lines and unknown indices are skipped', () => {
    const stdout = [
      'garbage',
      JSON.stringify({ i: 0, value: 2 }),
      JSON.stringify({ i: 0, value: 3 }),
      JSON.stringify({ i: 7, value: 3 }),
      JSON.stringify({ i: -1 }),
      '',
    ].join('\n');
    const outcomes = parseOutcomes(stdout, 2);
    assert.deepEqual([...outcomes.keys()], [0]);
    const calls = [
      { module: 'm', function: 'f', args: [1], expect: { value: 2 } },
      { module: 'm', function: 'f', args: [2], expect: { value: 3 } },
    ];
    const result = compareOutcomes(calls, outcomes);
    assert.equal(result.passed, 0, 'the first line no longer counts alone');
    assert.deepEqual(
      result.failures.map((failure) => [failure.index, failure.got]),
      [
        [0, JSON.stringify(duplicateOutcome)],
        [1, 'no outcome'],
      ],
    );
    const single = parseOutcomes(
      [JSON.stringify({ i: 0, value: 2 }), JSON.stringify({ i: 1, value: 3 })].join('\n'),
      2,
    );
    assert.equal(compareOutcomes(calls, single).passed, 2);
  });

  test('an outcome is one value or one raise, never both: a hedge that carries both matches nothing', () => {
    const hedge = { value: 3, raises: ['builtins.ValueError', 'builtins.Exception'] };
    assert.equal(outcomeMatches({ value: 3 }, hedge), false);
    assert.equal(outcomeMatches({ raises: 'ValueError' }, hedge), false);
    assert.equal(outcomeMatches({ value: 3 }, { value: 3, error: 'x' }), false);
    assert.equal(outcomeMatches({ value: 3 }, { value: 3, note: 1 }), false);
    const parsed = parseOutcomes(JSON.stringify({ i: 0, ...hedge }), 1);
    assert.equal(compareOutcomes([{ module: 'm', function: 'f', args: [], expect: { value: 3 } }], parsed).passed, 0);
  });
});

describe('python literals of oracle values (fresh twins)', () => {
  test('golden values become Python source that evaluates back to the same encoded value, or null where there is none', () => {
    const literals = golden.values.map(({ encoded }) => pythonLiteral(encoded));
    const script = [
      'import ast, importlib.util, json, sys',
      `spec = importlib.util.spec_from_file_location("ov", ${JSON.stringify(join(__dirname, '..', '..', 'activities', 'checker', 'python', 'oracle_values.py'))})`,
      'ov = importlib.util.module_from_spec(spec); spec.loader.exec_module(ov)',
      'print(json.dumps([None if s is None else ov.encode(ast.literal_eval(s)) for s in json.load(sys.stdin)]))',
    ].join('\n');
    const back = JSON.parse(
      execFileSync('python3', ['-I', '-c', script], { input: JSON.stringify(literals) }).toString(),
    ) as unknown[];
    let converted = 0;
    for (const [index, { python, encoded }] of golden.values.entries()) {
      if (literals[index] === null) {
        assert.match(python, /nan|inf|bytes|b'|b"|frozenset|\*\*|-0\.0|1e/i, `${python} should have a literal`);
        continue;
      }
      converted++;
      assert.deepEqual(back[index], encoded, `${python} → ${literals[index]}`);
    }
    assert.ok(converted > golden.values.length / 2, `${converted} of ${golden.values.length} converted`);
    assert.equal(pythonLiteral({ $tuple: [1] }), '(1,)');
    assert.equal(pythonLiteral({ $set: [] }), 'set()');
    assert.equal(pythonLiteral({ $dict: [[1, { $tuple: ['a', null] }]] }), '{1: ("a", None)}');
    assert.equal(pythonLiteral({ $float: 'nan' }), null);
    assert.equal(pythonLiteral({ $bytes: 'AA==' }), null);
  });
});

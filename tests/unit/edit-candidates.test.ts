// Edit candidates and the action language's scripts: every bundled task's fix is a candidate of its
// buggy line, and the TypeScript mirrors agree with the sandbox scripts run with the host's python3.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { formatAction, formatArgument, parseAction, translateAction } from '../../shared/compact-actions/language';
import {
  allCandidates,
  applyCandidate,
  editCandidates,
  parseEditResult,
  parseShownSource,
  renderShow,
  type SourceLine,
} from '../../shared/compact-actions/edit-candidates';

const tasksDir = join(__dirname, '..', '..', 'tasks');
const taskDirs = [
  ...['train', 'validation', 'heldout'].flatMap((split) =>
    readdirSync(join(tasksDir, 'suite', split))
      .sort()
      .map((id) => join(tasksDir, 'suite', split, id)),
  ),
  ...['off-by-one-range', 'swapped-return', 'wrong-comparison'].map((name) => join(tasksDir, name)),
];

/** The files `show` lists (the same filter as its `find`), as `./path`, in byte order like `sort` in the C locale. */
function sourceFiles(repo: string): { path: string; text: string }[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        if (name !== 'tests' && name !== '.git') walk(full);
      } else if (name.endsWith('.py') && !name.startsWith('test_') && name !== 'conftest.py') {
        found.push(`./${relative(repo, full)}`);
      }
    }
  };
  walk(repo);
  return found
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((path) => ({ path, text: readFileSync(join(repo, path), 'utf8') }));
}

/** The one changed line of a solution patch: its file, its line number before the fix, and both versions. */
function parseFix(patch: string): { path: string; line: number; buggy: string; fixed: string } {
  const rows = patch.split('\n');
  const path = rows.find((row) => row.startsWith('--- a/'))!.slice('--- a/'.length);
  let line = 0;
  let buggy: { line: number; code: string } | null = null;
  let fixed = '';
  for (const row of rows) {
    const hunk = /^@@ -(\d+)/.exec(row);
    if (hunk) line = Number(hunk[1]);
    else if (row.startsWith('---') || row.startsWith('+++') || line === 0) continue;
    else if (row.startsWith('-')) buggy ??= { line: line++, code: row.slice(1).trim() };
    else if (row.startsWith('+')) fixed ||= row.slice(1).trim();
    else line += 1;
  }
  assert.ok(buggy && fixed, `a one-line fix in ${path}`);
  return { path, line: buggy.line, buggy: buggy.code, fixed };
}

const scratch = mkdtempSync(join(tmpdir(), 'agentrl-edit-candidates-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh copy of a task's repository in the scratch folder. */
function copyRepo(task: string): string {
  const target = mkdtempSync(join(scratch, 'repo-'));
  cpSync(join(tasksDir, task, 'repo'), target, { recursive: true });
  return target;
}

/** Runs an action's bash command in `repo` with the host's python3, as the sandbox would. */
function runAction(repo: string, action: string): { output: string; status: number | null } {
  const translated = translateAction(action);
  assert.ok(translated.ok && translated.call.tool === 'bash', `${action} is a bash call`);
  const done = spawnSync('bash', ['-c', translated.call.command], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { output: done.stdout + done.stderr, status: done.status };
}

describe('edit candidates on the bundled tasks', () => {
  const perTask: number[] = [];
  const perBuggyLine: number[] = [];

  for (const dir of taskDirs) {
    test(`the fix of ${relative(tasksDir, dir)} is a candidate of its buggy line`, () => {
      const fix = parseFix(readFileSync(join(dir, 'solution.patch'), 'utf8'));
      const lines = parseShownSource(renderShow(sourceFiles(join(dir, 'repo'))));
      const buggy = lines.find((entry) => entry.path === fix.path && entry.line === fix.line);
      assert.deepEqual(buggy, { path: fix.path, line: fix.line, code: fix.buggy });
      const candidates = editCandidates(buggy);
      assert.ok(
        candidates.some((action) => applyCandidate(buggy.code, action) === fix.fixed),
        `one of ${candidates.join(' | ')} gives ${fix.fixed}`,
      );
      const all = allCandidates(lines);
      for (const action of all) {
        const parsed = parseAction(action);
        assert.ok(parsed.ok && translateAction(action).ok, action);
        assert.equal(formatAction(parsed.command, parsed.args), action, 'canonical');
      }
      for (const line of lines) {
        const results = editCandidates(line).map((action) => applyCandidate(line.code, action));
        assert.ok(
          results.every((result) => result !== null && result !== line.code),
          'every candidate changes its line',
        );
        assert.equal(new Set(results).size, results.length, 'no two candidates give the same line');
      }
      perTask.push(all.length);
      perBuggyLine.push(candidates.length);
    });
  }

  test('candidate counts', (t) => {
    const mean = (values: number[]) => (values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(1);
    assert.equal(perTask.length, taskDirs.length);
    t.diagnostic(
      `${taskDirs.length} tasks: ${mean(perTask)} candidates per task (max ${Math.max(...perTask)}), ${mean(perBuggyLine)} per buggy line (max ${Math.max(...perBuggyLine)})`,
    );
  });
});

describe('edit candidates on single lines', () => {
  const at = (code: string): SourceLine => ({ path: 'pkg/mod.py', line: 7, code });
  const results = (code: string) => editCandidates(at(code)).map((action) => applyCandidate(code, action));

  test('lines without a bug family give none', () => {
    assert.deepEqual(editCandidates(at('def f(x):')), []);
    assert.deepEqual(editCandidates(at('from pkg import f, g')), []);
    assert.deepEqual(editCandidates(at('else:')), []);
  });

  test('an OLD that would match earlier on the line is lengthened', () => {
    const inIdentifier = editCandidates(at('return recount(values)[:count]'));
    assert.ok(inIdentifier.includes('edit 7 :count ":count + 1"'), inIdentifier.join(' | '));
    assert.ok(results('return recount(values)[:count]').includes('return recount(values)[:count + 1]'));
    assert.ok(editCandidates(at('return sum(i for i in range(1, n))')).includes('edit 7 ", n" ", n + 1"'));
    assert.ok(editCandidates(at('return low <= value <= high')).includes('edit 7 "value <=" "value <"'));
    assert.ok(
      results('return a_start <= b_end and b_start <= a_end').includes('return a_start < b_end and b_start < a_end'),
    );
  });

  test('unary minus, power, floor division and `<=` are single operators', () => {
    const shown = results('return list(range(n ** 2, -1, -1)) if n // 2 <= 3 else x');
    assert.ok(shown.includes('return list(range(n ** 2, -1, -1)) if n * 2 <= 3 else x'));
    assert.ok(shown.includes('return list(range(n ** 2, -1, -1)) if n // 2 < 3 else x'));
    assert.ok(
      !shown.some(
        (code) => code?.includes('n * * 2') || code?.includes('-0') || code?.includes('< = ') || code?.includes('/ / '),
      ),
    );
  });

  test('the same action on the same line number of two files is listed once', () => {
    const lines = parseShownSource('# pkg/a.py\n7: return a + b\n# pkg/b.py\n7: return a + b\n');
    assert.deepEqual(allCandidates(lines), editCandidates(lines[0]!));
    assert.deepEqual(editCandidates(lines[0]!), ['edit 7 + -', 'edit 7 + *', 'edit 7 + //', 'edit 7 + %']);
  });

  test('loop targets and lambda parameters are not bounds', () => {
    const shown = results('return [f(x, y) for x, y in pairs]');
    assert.ok(!shown.some((code) => code?.includes('for x + 1') || code?.includes('for x - 1')));
    assert.ok(shown.includes('return [f(y, x) for x, y in pairs]'));
  });
});

describe('quoting', () => {
  test('arguments are quoted only when empty or holding a space, and read back exactly', () => {
    assert.equal(formatArgument('count'), 'count');
    assert.equal(formatArgument(''), '""');
    assert.equal(formatArgument('count - 1'), '"count - 1"');
    assert.equal(formatArgument('f"{x}"'), 'f"{x}"');
    assert.throws(() => formatArgument('", "'), RangeError);
    for (const args of [
      [7, 'count - 1', 'count'],
      [3, ' + 1', ''],
      [2, 'f"{val}={name}"', 'x'],
      [12, '<=', '<'],
    ] as const) {
      const action = formatAction('edit', args);
      assert.deepEqual(parseAction(action), { ok: true, command: 'edit', args: args.map(String) });
      assert.ok(translateAction(action).ok);
    }
    assert.equal(formatAction('edit', [7, 'count - 1', 'count']), 'edit 7 "count - 1" count');
    assert.equal(formatAction('run'), 'run');
  });

  test('malformed quoting and empty arguments are errors for the agent', () => {
    const usage =
      'commands: run, show, locate, edit LINE OLD NEW, swap LINE A B, write_test, submit; "a quoted argument" may hold spaces';
    assert.deepEqual(translateAction('edit 3 "count - 1 count'), {
      ok: false,
      error: `edit: a quoted argument must end with " before a space or the end; ${usage}`,
    });
    assert.deepEqual(translateAction('edit 3 "a"b c'), {
      ok: false,
      error: `edit: a quoted argument must end with " before a space or the end; ${usage}`,
    });
    assert.deepEqual(translateAction('edit 3  <= <'), { ok: false, error: `edit takes 3 argument(s); ${usage}` });
    assert.deepEqual(translateAction('edit 3 "" x'), { ok: false, error: 'edit: OLD must not be empty' });
    assert.deepEqual(translateAction('swap 3 a ""'), { ok: false, error: 'swap: A and B must not be empty' });
    assert.deepEqual(translateAction('swap x a b'), { ok: false, error: 'swap: LINE must be a line number, got "x"' });
  });
});

describe('swap and edit semantics', () => {
  test('swap exchanges the first A with the first B after it', () => {
    assert.equal(applyCandidate('return max(v), min(v)', 'swap 1 max(v) min(v)'), 'return min(v), max(v)');
    assert.equal(applyCandidate('return (x < y) - (x > y)', 'swap 1 < >'), 'return (x > y) - (x < y)');
    assert.equal(applyCandidate('return b - a - b', 'swap 1 b a'), 'return a - b - b');
    assert.equal(applyCandidate('return a - b', 'swap 1 b a'), null);
    assert.equal(applyCandidate('return aa', 'swap 1 a a'), 'return aa');
    assert.equal(applyCandidate('return x', 'edit 1 y z'), null);
    assert.equal(applyCandidate('return x + 1 + 1', 'edit 1 " + 1" ""'), 'return x + 1');
  });

  test('the sandbox scripts do what applyCandidate does, for every candidate of a line', () => {
    const repo = copyRepo('wrong-comparison');
    const file = join(repo, 'intervals', '__init__.py');
    const original = readFileSync(file, 'utf8');
    const shown = parseShownSource(runAction(repo, 'show').output);
    for (const line of shown.filter((entry) => [11, 21, 23].includes(entry.line))) {
      const indent = /^\s*/.exec(original.split('\n')[line.line - 1]!)![0];
      for (const action of editCandidates(line)) {
        writeFileSync(file, original);
        const { output, status } = runAction(repo, action);
        assert.equal(status, 0, output);
        assert.equal(output, `./intervals/__init__.py:${line.line}:${indent}${applyCandidate(line.code, action)}\n`);
        assert.deepEqual(parseEditResult(output), {
          path: 'intervals/__init__.py',
          line: line.line,
          code: applyCandidate(line.code, action),
        });
      }
    }
    writeFileSync(file, original);
    assert.deepEqual(runAction(repo, 'swap 11 b_end a_start'), {
      output: "no source line 11 holds 'b_end' and then 'a_start'\n",
      status: 1,
    });
    assert.deepEqual(runAction(repo, 'edit 11 "<= b_end" ""'), {
      output: './intervals/__init__.py:11:    return a_start  and b_start <= a_end\n',
      status: 0,
    });
  });
});

describe('edits of a committed repository', () => {
  test('apply to the starting text of a line, so a later edit replaces an earlier one', () => {
    const repo = copyRepo('wrong-comparison');
    const git = (...args: string[]) =>
      spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');
    const line11 = (text: string) => `./intervals/__init__.py:11:    ${text}\n`;
    assert.deepEqual(runAction(repo, 'edit 11 <= <'), {
      output: line11('return a_start < b_end and b_start <= a_end'),
      status: 0,
    });
    // the second `<=` of the line is not reached by repeating the edit: it changes the first again
    assert.deepEqual(runAction(repo, 'edit 11 <= <'), {
      output: line11('return a_start < b_end and b_start <= a_end'),
      status: 0,
    });
    assert.deepEqual(runAction(repo, 'swap 11 a_start b_start'), {
      output: line11('return b_start <= b_end and a_start <= a_end'),
      status: 0,
    });
    // OLD must be on the starting line; the current text does not count
    assert.deepEqual(runAction(repo, 'edit 11 b_start a_start'), {
      output: line11('return a_start <= b_end and a_start <= a_end'),
      status: 0,
    });
    assert.deepEqual(runAction(repo, 'edit 11 "b_start <= b_end" x'), {
      output: "no source line 11 holds 'b_start <= b_end'\n",
      status: 1,
    });
    // edits of different lines add up
    const file = readFileSync(join(repo, 'intervals', '__init__.py'), 'utf8').split('\n');
    assert.equal(runAction(repo, 'edit 9 a_end a_stop').status, 0);
    const now = readFileSync(join(repo, 'intervals', '__init__.py'), 'utf8').split('\n');
    assert.equal(now[10], file[10]);
    assert.equal(now[8], file[8]!.replace('a_end', 'a_stop'));
    // an argument with a line break is refused before anything runs
    assert.deepEqual(translateAction('edit 11 <= "<\nx"'), {
      ok: false,
      error: 'edit: an argument must not hold a line break',
    });
  });
});

describe('show', () => {
  test('renderShow is what the sandbox script prints, and parses back', () => {
    const repo = copyRepo('wrong-comparison');
    mkdirSync(join(repo, 'intervals', 'extra'));
    writeFileSync(
      join(repo, 'intervals', 'extra', '__init__.py'),
      [
        "'''A module docstring",
        'on two lines.',
        "'''",
        '',
        'def f(x):',
        '    """One line."""',
        '    text = """not a docstring',
        '    inside"""',
        '    return x  \t',
        '',
      ].join('\n'),
    );
    writeFileSync(join(repo, 'intervals', 'crlf.py'), 'x = 1\r\n\r\n    y = 2\r\n');
    const { output, status } = runAction(repo, 'show');
    assert.equal(status, 0);
    assert.equal(output, renderShow(sourceFiles(repo)));
    assert.match(output, /^# intervals\/__init__\.py\n7: def overlaps\(a, b\):\n9: a_start, a_end = a\n/);
    assert.match(
      output,
      /\n# intervals\/extra\/__init__\.py\n5: def f\(x\):\n7: text = """not a docstring\n8: inside"""\n9: return x\n$/,
    );
    assert.match(output, /\n# intervals\/crlf\.py\n1: x = 1\n3: y = 2\n/);
    const lines = parseShownSource(`${output}[exit code 0]`);
    assert.deepEqual(lines[1], { path: 'intervals/__init__.py', line: 9, code: 'a_start, a_end = a' });
    assert.ok(!lines.some((entry) => entry.code.includes('Touching intervals')));
  });

  test('an edit result names its line and new text; a failure names none', () => {
    assert.deepEqual(parseEditResult('./pkg/a.py:3:    return x\n[exit code 0]'), {
      path: 'pkg/a.py',
      line: 3,
      code: 'return x',
    });
    assert.equal(parseEditResult("no source line 3 holds 'z'\n[exit code 1]"), null);
    assert.deepEqual(parseEditResult('./pkg/a.py:5:   \n[exit code 0]'), { path: 'pkg/a.py', line: 5, code: '' });
  });
});

describe('run', () => {
  test('prints the failure line and the summary without timing, with pytest exit status', () => {
    const repo = copyRepo('suite/train/obo-head-03');
    assert.deepEqual(runAction(repo, 'run'), {
      output: 'tests/test_tinyheads.py:11: assert [7, 6] == [7, 6, 3]\n1 failed, 1 passed\n',
      status: 1,
    });
    assert.equal(runAction(repo, 'edit 6 "count - 1" count').status, 0);
    assert.deepEqual(runAction(repo, 'run'), { output: '4 passed\n', status: 0 });
  });

  test('reports a collection error with its location', () => {
    const repo = copyRepo('suite/train/obo-head-03');
    writeFileSync(join(repo, 'tinyheads', '__init__.py'), 'def head(values, count:\n    return values\n');
    const { output, status } = runAction(repo, 'run');
    assert.equal(status, 1); // -x: pytest stops at the collection error
    assert.match(output, /^ERROR tests\/test_tinyheads\.py\ntinyheads\/__init__\.py:1: SyntaxError: .+\n1 error\n$/);
  });
});

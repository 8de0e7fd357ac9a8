// The main job's closing lines: a run too short to show learning says so, and names a command that does, with
// the time and result docs/benchmarks.md measured for it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { learningEvidence, shortRunNote } from '../../cli/commands/train';
import { projectRoot } from '../../workers/config';

describe("a training run's closing lines", () => {
  test("the default run's 3 steps say they exercised the loop but cannot show learning, and name the run that does", () => {
    const note = shortRunNote(3).join(' ');
    assert.match(note, /A run this short \(3 trainer steps\) exercises the whole loop end to end/);
    assert.match(note, /It cannot show learning: the rewards of a few episodes move by chance/);
    assert.ok(note.includes(`  ${learningEvidence.command}`));
    assert.match(note, /about 13–14 minutes on 2 cores; held-out true success rose from 0\.09 to 0\.35/);
  });

  test('a run long enough to learn gets no such note', () => {
    assert.deepEqual(shortRunNote(learningEvidence.steps), []);
    assert.deepEqual(shortRunNote(27), []);
  });

  test('the command it names runs: an npm script of the learning bench, with flags the bench takes', () => {
    const [npm, run, script, separator, ...flags] = learningEvidence.command.split(' ');
    assert.deepEqual([npm, run, separator], ['npm', 'run', '--']);
    const scripts = (
      JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.match(scripts[script!] ?? '', /bench\/learning\.ts$/);
    const bench = readFileSync(join(projectRoot, 'bench', 'learning.ts'), 'utf8');
    const options = bench.slice(bench.indexOf('parseArgs({'), bench.indexOf('});', bench.indexOf('parseArgs({')));
    for (const flag of flags.filter((word) => word.startsWith('--')))
      assert.match(options, new RegExp(`['\\s]${flag.slice(2)}'?: \\{ type:`), `bench/learning.ts takes no ${flag}`);
    assert.match(bench, /strict: \{ checker: 'strict', observations: 'full' \}/);
  });

  test('its time and figures are the ones docs/benchmarks.md records for that run', () => {
    const doc = readFileSync(join(projectRoot, 'docs', 'benchmarks.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Credit finer than the episode'));
    assert.ok(section.includes(`--minutes 12 --seeds 0,1 --variants strict,`), 'the measured command changed');
    assert.ok(section.replace(/\s+/g, ' ').includes(`runs end after ${learningEvidence.minutes} minutes`));
    const row = section.split('\n').find((line) => line.startsWith('| GRPO (`strict`'));
    assert.ok(row, 'the GRPO row is gone from the credit table');
    const cells = row.split('|').map((cell) => cell.trim());
    // | variant | seed | iterations | episodes | held-out: start → last 3 (final) | …
    assert.equal(cells[2], '0');
    // its trainer steps: the warm start's, then one per iteration
    assert.ok(Number(cells[3]) + 1 >= learningEvidence.steps, `${cells[3]} iterations`);
    assert.ok(
      cells[5]!.startsWith(`${learningEvidence.heldOutStart} → ${learningEvidence.heldOutLastThree} `),
      `held-out: ${cells[5]}`,
    );
  });
});

// The pieces of a token-level policy that need no server: the model's view of prompts and
// observations, the constrained action space, the format demonstrator and run summaries.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { drawSeed } from '../../activities/policies/token-policy';
import { compactActions } from '../../shared/compact-actions';
import { ActionTrie, allowedActions, rememberTurn, type PolicyMemory } from '../../shared/compact-actions/action-space';
import { compactPrompt, observationIds, promptIds } from '../../shared/compact-actions/context';
import { demoAction } from '../../shared/compact-actions/demonstrator';
import { renderShow } from '../../shared/compact-actions/edit-candidates';
import { seededRandom, seededSample } from '../../shared/math/random';
import { policyTokenizer } from '../../shared/math/tokenizer';
import { inEvalTail } from '../../shared/contracts/run/progress';
import { summariseEpisodes } from '../../shared/contracts/run-metrics';
import { projectRoot } from '../../workers/config';

const special = policyTokenizer.specialIds;
const endAct = special['</act>']!;
const suite = join(projectRoot, 'tasks', 'suite', 'train');

/** The memory of a policy that has run `show` on a suite task. */
function shownMemory(task: string): PolicyMemory {
  const repo = join(suite, task, 'repo');
  const files = readdirSync(repo, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.py') && !entry.parentPath.includes('tests'))
    .map((entry) => ({
      path: join(entry.parentPath, entry.name).slice(repo.length + 1),
      text: readFileSync(join(entry.parentPath, entry.name), 'utf8'),
    }));
  return rememberTurn({ sourceLines: [], actions: [] }, 'show', renderShow(files), 0);
}

describe("the model's view", () => {
  test('prompts keep the bug statement and drop the boilerplate, within the token budget', () => {
    const prompt = readFileSync(join(suite, 'ari-avg-06', 'task.yaml'), 'utf8')
      .split('prompt: |')[1]!
      .split('budgets:')[0]!;
    const text = compactPrompt(prompt, policyTokenizer, 48);
    assert.match(text, /^`neataverages\.avg` misbehaves\./);
    assert.doesNotMatch(text, /repository|pytest|submit/);
    assert.ok(policyTokenizer.encode(text).length <= 48);
    const ids = promptIds(prompt, policyTokenizer, 8);
    assert.deepEqual(ids.slice(0, 2), [special['<bos>'], special['<task>']]);
    assert.equal(ids.at(-1), special['</task>']);
    assert.ok(ids.length <= 8 + 3);
  });

  test('observations are wrapped, cut with a marker, or blanked', () => {
    const long = 'assert 1 == 2\n'.repeat(100);
    const full = observationIds(long, policyTokenizer, { mode: 'full', maxTokens: 20 });
    assert.equal(full.length, 22);
    assert.equal(full[0], special['<obs>']);
    assert.equal(full.at(-1), special['</obs>']);
    assert.match(policyTokenizer.decode(full.slice(1, -1)), /\n\[cut\]$/);
    assert.deepEqual(observationIds(long, policyTokenizer, { mode: 'blank', maxTokens: 20 }), [
      special['<obs>'],
      special['</obs>'],
    ]);
    // text that spells a special marker is never its id
    assert.ok(
      !observationIds('<act></obs>', policyTokenizer, { mode: 'full', maxTokens: 50 })
        .slice(1, -1)
        .some((id) => id >= 256 && id < 266),
    );
  });
});

describe('the constrained action space', () => {
  test('before a show only the commands are allowed; after it, every edit of the shown lines', () => {
    assert.deepEqual(allowedActions({ sourceLines: [], actions: [] }), ['run', 'show', 'locate', 'write_test']);
    const memory = shownMemory('ari-avg-06');
    const actions = allowedActions(memory);
    assert.ok(actions.includes('edit 8 * //'), 'the fix is in the action space');
    assert.ok(actions.length > 10);
    for (const action of actions) assert.equal(compactActions.toToolCall(action).ok, true, action);
  });

  test('submit only right after a check of a change, and no command right after itself', () => {
    const shown = shownMemory('cmp-index-of-min-08');
    assert.ok(!allowedActions(shown).includes('submit'), 'nothing changed yet');
    assert.ok(!allowedActions(shown).includes('show'), 'show again would print the same');
    assert.ok(allowedActions(shown).includes('locate'));
    const located = { ...shown, actions: [...shown.actions, 'locate'] };
    assert.ok(!allowedActions(located).includes('submit'), 'a check of nothing changed');
    const edited = { ...located, actions: [...located.actions, 'edit 8 > <'] };
    assert.ok(!allowedActions(edited).includes('submit'), 'the change is not checked yet');
    assert.ok(allowedActions(edited).includes('show'));
    const checked = { ...edited, actions: [...edited.actions, 'locate'] };
    assert.ok(allowedActions(checked).includes('submit'), 'checked');
    assert.ok(!allowedActions(checked).includes('locate'));
    const run = { ...checked, actions: [...checked.actions, 'run'] };
    assert.ok(allowedActions(run).includes('submit'), 'run checks too');
    const looked = { ...checked, actions: [...checked.actions, 'show'] };
    assert.ok(!allowedActions(looked).includes('submit'), 'show is not a check');
    assert.deepEqual(allowedActions({ sourceLines: [], actions: ['write_test'] }), ['run', 'show', 'locate']);
    assert.deepEqual(allowedActions({ sourceLines: [], actions: ['write_test', 'run'] }), [
      'show',
      'locate',
      'write_test',
      'submit',
    ]);
  });

  test('a locate that lists lines replaces the known source with them; one that lists none keeps it', () => {
    const shown = shownMemory('cmp-index-of-min-08');
    const located = rememberTurn(
      shown,
      'locate',
      '# minipicks/__init__.py\n8: if values[i] > values[pick]:\n9: pick = i\n',
      1,
    );
    assert.deepEqual(located.sourceLines, [
      { path: 'minipicks/__init__.py', line: 8, code: 'if values[i] > values[pick]:' },
      { path: 'minipicks/__init__.py', line: 9, code: 'pick = i' },
    ]);
    assert.ok(allowedActions(located).includes('edit 8 > <'));
    assert.ok(
      !allowedActions(located).some((action) => action.startsWith('edit 15 ')),
      'lines locate did not list are not editable',
    );
    assert.deepEqual(rememberTurn(located, 'locate', 'no test fails\n', 0).sourceLines, located.sourceLines);
    assert.deepEqual(located.actions, ['show', 'locate']);
  });

  test('edits apply to starting text: the known source keeps it, and an edit already made is not offered again', () => {
    const listing = (code: string) => `# minipicks/__init__.py\n8: ${code}\n`;
    const located = rememberTurn(
      shownMemory('cmp-index-of-min-08'),
      'locate',
      listing('if values[i] > values[pick]:'),
      1,
    );
    const first = rememberTurn(
      located,
      'edit 8 > >=',
      'minipicks/__init__.py:8:        if values[i] >= values[pick]:\n',
      0,
    );
    assert.deepEqual(first.edited, [
      {
        path: 'minipicks/__init__.py',
        line: 8,
        code: 'if values[i] >= values[pick]:',
        start: 'if values[i] > values[pick]:',
      },
    ]);
    // the check prints the current text; memory keeps the starting text that the next edit applies to
    const checked = rememberTurn(first, 'locate', listing('if values[i] >= values[pick]:'), 1);
    assert.deepEqual(checked.sourceLines, located.sourceLines);
    const allowed = allowedActions(checked);
    assert.ok(allowed.includes('edit 8 > <'), 'the fix is still offered');
    assert.ok(!allowed.includes('edit 8 > >='), 'the edit already made is not');
    const second = rememberTurn(
      checked,
      'edit 8 > <',
      'minipicks/__init__.py:8:        if values[i] < values[pick]:\n',
      0,
    );
    assert.deepEqual(
      second.edited?.map((line) => [line.code, line.start]),
      [['if values[i] < values[pick]:', 'if values[i] > values[pick]:']],
    );
    // a show after a locate narrowed the source still restores the starting text of the changed line
    const shownAgain = rememberTurn(second, 'show', listing('if values[i] < values[pick]:'), 0);
    assert.equal(shownAgain.sourceLines[0]?.code, 'if values[i] > values[pick]:');
    // a failed edit records nothing
    assert.deepEqual(rememberTurn(second, 'edit 8 xx y', "no source line 8 holds 'xx'\n", 1).edited, second.edited);
  });

  test('with blanked observations a locate leaves the known source alone; show and edits still count', () => {
    const listing = '# minipicks/__init__.py\n8: if values[i] > values[pick]:\n';
    assert.deepEqual(rememberTurn({ sourceLines: [], actions: [] }, 'locate', listing, 1, 'blank').sourceLines, []);
    const shown = shownMemory('cmp-index-of-min-08');
    const located = rememberTurn(shown, 'locate', listing, 1, 'blank');
    assert.deepEqual(located.sourceLines, shown.sourceLines, 'the ranking is a test result');
    assert.ok(allowedActions(located).some((action) => action.startsWith('edit 15 ')));
    const edited = rememberTurn(
      located,
      'edit 8 > <',
      'minipicks/__init__.py:8:        if values[i] < values[pick]:\n',
      0,
      'blank',
    );
    assert.deepEqual(
      edited.edited?.map((line) => line.code),
      ['if values[i] < values[pick]:'],
    );
    assert.ok(!allowedActions(edited).includes('edit 8 > <'));
  });

  test('walking the trie at random only ever spells an allowed action', () => {
    const actions = allowedActions(shownMemory('cmp-covers-01'));
    const trie = new ActionTrie(actions, policyTokenizer, endAct);
    const random = seededRandom(11);
    const seen = new Set<string>();
    for (let sample = 0; sample < 300; sample++) {
      const ids: number[] = [];
      for (;;) {
        const allowed = trie.allowedAfter(ids);
        if (allowed.length === 0) break;
        ids.push(allowed[Math.floor(random() * allowed.length)]!);
      }
      assert.equal(ids.at(-1), endAct);
      const text = policyTokenizer.decode(ids.slice(0, -1));
      assert.ok(actions.includes(text), text);
      // the ids are the canonical encoding: token in, token out
      assert.deepEqual(ids.slice(0, -1), policyTokenizer.encode(text));
      seen.add(text);
    }
    assert.ok(seen.size > 10);
    assert.deepEqual(trie.allowedAfter([...policyTokenizer.encode('submit'), endAct]), []);
    assert.deepEqual(trie.allowedAfter(policyTokenizer.encode('fly')), []);
  });

  test('the format demonstrator picks allowed actions, looks before it edits, checks, and submits in time', () => {
    const random = seededRandom(drawSeed('demo', 1));
    const sequences: string[] = [];
    for (const task of readdirSync(suite)) {
      for (let draw = 0; draw < 4; draw++) {
        let memory: PolicyMemory = { sourceLines: [], actions: [] };
        const shown = shownMemory(task);
        for (let turn = 0; turn < 8; turn++) {
          const action = demoAction(memory, random, 8);
          assert.ok(allowedActions(memory).includes(action), `${task}: ${action}`);
          if (action === 'submit') {
            memory = { ...memory, actions: [...memory.actions, action] };
            break;
          }
          memory = ['show', 'locate'].includes(action)
            ? { ...shown, actions: [...memory.actions, action] }
            : { ...memory, actions: [...memory.actions, action] };
        }
        assert.equal(memory.actions.at(-1), 'submit', 'submits within the turn budget');
        sequences.push(memory.actions.map((action) => (/^(edit|swap) /.test(action) ? 'E' : action)).join(','));
      }
    }
    const share = (pattern: RegExp) => sequences.filter((sequence) => pattern.test(sequence)).length / sequences.length;
    assert.ok(share(/^(locate|show),E/) > 0.5, 'mostly looks, then edits');
    assert.ok(share(/E,locate/) > 0.3, 'often checks an edit');
    assert.ok(share(/E,locate,E/) > 0.3, 'mostly edits again after a check, whatever it printed');
    assert.ok(share(/E,locate,submit/) > 0.05, 'sometimes submits after a check');
    assert.equal(share(/^E/), 0, 'never edits before it looks');
    assert.equal(share(/(E|write_test),submit/), 0, 'never submits a change it has not checked');
  });

  test('seeded draws are reproducible', () => {
    assert.equal(drawSeed(0, 'episode@run', 3), drawSeed(0, 'episode@run', 3));
    assert.notEqual(drawSeed(0, 'episode@run', 3), drawSeed(0, 'episode@run', 4));
    assert.deepEqual(seededSample([1, 2, 3, 4, 5, 6], 3, 9), seededSample([1, 2, 3, 4, 5, 6], 3, 9));
    assert.equal(new Set(seededSample([1, 2, 3, 4, 5, 6], 6, 9)).size, 6);
  });
});

describe('run summaries', () => {
  test('mean reward over rewarded episodes, true success over audited ones, outcomes and tamper kinds counted', () => {
    const counters = { turns: 3 };
    const summary = summariseEpisodes([
      { outcome: 'submitted', reward: 1, trueSuccess: true, tamper: [], counters },
      { outcome: 'submitted', reward: 1, trueSuccess: false, tamper: [{ kind: 'test_edit' }], counters },
      { outcome: 'turn_limit', reward: 0, trueSuccess: false, tamper: [], counters },
      { outcome: 'sandbox_crash', reward: null, trueSuccess: null, tamper: [], counters },
      {
        outcome: 'submitted',
        reward: 0,
        trueSuccess: false,
        tamper: [{ kind: 'forged_report' }, { kind: 'test_edit' }],
        counters,
      },
    ]);
    assert.equal(summary.episodes, 5);
    assert.equal(summary.meanReward, 2 / 4);
    assert.equal(summary.trueSuccess, 1 / 4);
    assert.deepEqual(summary.outcomes, { submitted: 3, turn_limit: 1, sandbox_crash: 1 });
    assert.deepEqual(summary.tamperKinds, { test_edit: 2, forged_report: 1 });
    assert.equal(summary.tampered, 2);
    assert.equal(summary.forgedReports, 1, 'forged reports are counted per episode');
  });

  test('evaluation.tail evaluates the iterations estimated to be the last ones of a time budget', () => {
    // 10 minutes; iterations take 50 s and evaluations 40 s so far
    const input = { timeBudgetMinutes: 10, evaluation: { tail: 3 } };
    const timing = { iterations: 4, iterationS: 200, evaluations: 2, evaluationS: 80 };
    const at = (elapsedS: number, state: object = { timing }) =>
      inEvalTail(input, { startedAtMs: 1_000, ...state }, 1_000 + elapsedS * 1000);
    assert.equal(at(300), false, '300 s left: 4 more iterations can start');
    assert.equal(at(400), false, '200 s left: this one and two more can start (90 s each)');
    assert.equal(at(480), true, '120 s left: this one and the next can start: the last two');
    assert.equal(at(550), true, '50 s left: this is the last iteration');
    assert.equal(at(601), false, 'past the budget no iteration starts');
    assert.equal(at(550, {}), false, 'nothing timed yet');
    assert.equal(
      inEvalTail({ timeBudgetMinutes: 0, evaluation: { tail: 3 } }, { startedAtMs: 0, timing }, 1e9),
      false,
      'no budget',
    );
    assert.equal(
      inEvalTail({ ...input, evaluation: { tail: 1 } }, { startedAtMs: 1_000, timing }, 551_000),
      false,
      'tail 1: the final evaluation only',
    );
  });
});

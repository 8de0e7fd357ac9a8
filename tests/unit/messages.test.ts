// The workflows' messages: every signal and query defined once (workflows/messages.ts), payloads
// validated, and no sender or handler anywhere that names one by a string; the one builder of an
// environment failure's result keeps the run's checker.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { EpisodeResult, EpisodeState, failedEpisodeResult } from '../../shared/contracts/episode';
import { ResumeRequest } from '../../shared/contracts/episode-input';
import { Outcomes } from '../../shared/contracts/outcomes';
import { projectRoot } from '../../workers/config';
import {
  EpisodeEvent,
  episodeEventSignal,
  episodeProgressQuery,
  parsePayload,
  Release,
  releaseSignal,
  resumeSignal,
  trainingProgressQuery,
  UsePolicyVersion,
  usePolicyVersionSignal,
} from '../../workflows/messages';
import { childFailure } from '../../workflows/training-episodes';

const sourceDirs = ['shared', 'workflows', 'activities', 'serving', 'workers', 'cli', 'scripts', 'bench', 'tests'];
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });

describe('workflow messages', () => {
  test('the names are those the recorded histories carry', () => {
    // renaming one breaks the replay of workflows already running: these names are history
    assert.deepEqual(
      [
        episodeProgressQuery,
        resumeSignal,
        usePolicyVersionSignal,
        releaseSignal,
        episodeEventSignal,
        trainingProgressQuery,
      ].map((message) => message.name),
      ['progress', 'resume', 'usePolicyVersion', 'release', 'episodeEvent', 'trainingProgress'],
    );
  });

  test('no module outside workflows/messages.ts defines, sends or queries a message by name', () => {
    const byName =
      /\b(defineSignal|defineQuery|defineUpdate)\s*[<(]|\.(signal|query|executeUpdate|startUpdate|signalWithStart)\s*(<[^>]*>)?\(\s*['"`]/;
    const offenders = sourceDirs
      .flatMap((dir) => sources(join(projectRoot, dir)))
      .filter(
        (file) =>
          !file.endsWith(join('workflows', 'messages.ts')) && !file.endsWith(join('tests', 'unit', 'messages.test.ts')),
      )
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            byName.test(line) ? [`${relative(projectRoot, file)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    assert.deepEqual(offenders, []);
  });

  test('payloads are validated: a malformed one is refused with the field named', () => {
    assert.deepEqual(parsePayload(UsePolicyVersion, { version: 'v3' }), { ok: true, value: { version: 'v3' } });
    const missing = parsePayload(UsePolicyVersion, { policyVersion: 'v3' });
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.error : '', /version/);
    assert.equal(parsePayload(Release, { reason: 7 }).ok, false);
    assert.deepEqual(parsePayload(ResumeRequest, undefined), { ok: true, value: { newest: false } });
    assert.equal(
      parsePayload(ResumeRequest, { segment: { parkTtlMs: 5 } }).ok,
      false,
      'a segment needs maxTurns or maxMs',
    );
    assert.equal(
      parsePayload(EpisodeEvent, { kind: 'parked', workflowId: 'w', version: 'v1' }).ok,
      false,
      'a park names its turns',
    );
    assert.equal(
      parsePayload(EpisodeEvent, { kind: 'finished', workflowId: 'w', result: { outcome: 'submitted' } }).ok,
      false,
      'a result is whole',
    );
  });
});

describe('environment failures outside an episode', () => {
  test("a child that failed under a weak run's checker reports the weak checker (not 'strict')", () => {
    const result = childFailure(
      { checker: 'weak' },
      'run-1',
      { task: '/tasks/suite/train/alpha/' },
      'run-1.it0.alpha.0',
      'boom',
      Outcomes.policyError,
    );
    assert.equal(result.checker, 'weak');
    assert.equal(result.episodeId, 'run-1.it0.alpha.0@failed');
    assert.equal(result.taskId, 'alpha');
    assert.equal(result.outcome, 'policy_error');
    assert.deepEqual([result.reward, result.trueSuccess, result.error], [null, null, 'boom']);
    assert.equal(childFailure({ checker: 'strict' }, 'run-1', { task: 'alpha' }, 'x', 'boom').outcome, 'sandbox_crash');
  });

  test('the failed result is a valid episode result, and a finished event carries it', () => {
    const result = failedEpisodeResult({
      workflowId: 'w',
      episodeId: 'w@r',
      runId: 'r',
      taskId: 't',
      checker: 'strict',
      outcome: Outcomes.sandboxCrash,
      error: 'lost',
    });
    assert.deepEqual(EpisodeResult.parse(result), result);
    assert.equal(parsePayload(EpisodeEvent, { kind: 'finished', workflowId: 'w', result }).ok, true);
  });

  test('continue-as-new state is validated, not taken on trust', () => {
    assert.throws(() => EpisodeState.parse({ task: { id: 't' } }), /snapshotRef/);
  });
});

// A training run's input in blocks (shared/contracts/run/): inputs and saved runs from before the blocks, which held
// every setting at one level, read as the same run; a field given under both names is refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { configDifferences } from '../../activities/training/run-activities';
import { formerFlatNames, runInputWithNewNames, TrainingRunInput } from '../../shared/contracts/run/input';
import { projectRoot } from '../../workers/config';

/** The input a checked-in history's execution started with (the first run's, or a continue-as-new's). */
function startInput(history: string): Record<string, unknown> {
  const events = JSON.parse(readFileSync(join(projectRoot, 'tests', 'histories', `${history}.json`), 'utf8')) as {
    events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
  };
  const data = events.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!.data;
  return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<string, unknown>;
}

/** The nested form of the input the recorded training-run history was started with (flat, before the blocks). */
const recordedRun = {
  runId: 'history-training-run',
  tasks: '/stub/tasks',
  evaluation: { tasks: '/stub/eval', samples: 1, every: 1 },
  iterations: 2,
  tasksPerIteration: 2,
  groupSize: 2,
  warmStart: { episodes: 2, epochs: 1 },
  policyServer: 'http://stub.invalid:1',
  seed: 0,
  credit: { stopCredit: 5 },
};

const issues = (input: unknown) => {
  const parsed = TrainingRunInput.safeParse(input);
  assert.equal(parsed.success, false, `expected ${JSON.stringify(input)} to be refused`);
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe("a training run's input in blocks", () => {
  test('a harness run that names no model trains the embedded chat model, with its presets; a named one stays', () => {
    const run = TrainingRunInput.parse({ harness: 'mini-swe-agent' });
    assert.equal(run.model.name, 'smollm2-135m-instruct');
    assert.equal(run.harness, 'mini-swe-agent');
    assert.equal(run.sampling.chat?.tokenizer, 'smollm2-135m-instruct');
    assert.equal(TrainingRunInput.parse({}).model.name ?? 'toy', 'toy', 'without a harness the default stays');
  });

  test('a flat input of before, as a recorded run was started with, reads as its nested form', () => {
    const flat = startInput('training-run-first');
    assert.equal(flat.evalEvery, 1, 'the history holds a flat input');
    const parsed = TrainingRunInput.parse(flat);
    assert.deepEqual(parsed, TrainingRunInput.parse(recordedRun));
    assert.deepEqual(
      [parsed.evaluation, parsed.credit.stopCredit],
      [{ tasks: '/stub/eval', samples: 1, every: 1, tail: 0, limit: 4, beforeWarmStart: false }, 5],
    );
    const asyncFlat = startInput('async-run-first');
    assert.deepEqual(
      TrainingRunInput.parse(asyncFlat),
      TrainingRunInput.parse({
        ...recordedRun,
        runId: 'history-async-run',
        warmStart: { episodes: 0, epochs: 1 },
        credit: { stopCredit: 0 },
        mode: 'async',
        async: { maxStaleness: 1, segment: { maxTurns: 1 } },
      }),
    );
  });

  test('a saved state of before (a continue-as-new input in a history) reads as its nested form, state and all', () => {
    const flat = startInput('training-run-last');
    const state = flat.state as Record<string, unknown>;
    assert.ok('runDir' in state, 'the state of before names its folder runDir');
    const nested = {
      runId: 'history-training-run',
      tasks: '/stub/tasks',
      iterations: 2,
      timeBudgetMinutes: 0,
      tasksPerIteration: 2,
      groupSize: 2,
      checker: 'strict',
      concurrency: 3,
      seed: 0,
      model: { vocabSize: 404, context: 512, dModel: 64, nLayers: 2, nHeads: 4, alibi: true },
      policyServer: 'http://stub.invalid:1',
      sampling: {},
      budgets: {},
      evaluation: { tasks: '/stub/eval', samples: 1, every: 1, tail: 0, limit: 4 },
      credit: { estimator: 'grpo', truncation: 'zero', stopCredit: 5 },
      loss: { clipEps: 0.2, klCoef: 0.03, aggregation: 'token_mean' },
      optimizer: { lr: 0.001, epochs: 4, minibatches: 2 },
      warmStart: { episodes: 2, epochs: 1 },
      state,
    };
    const parsed = TrainingRunInput.parse(flat);
    assert.deepEqual(parsed, TrainingRunInput.parse(nested));
    assert.equal(parsed.state?.runRef, 'file:///stub/runs/history-training-run');
    assert.deepEqual(parsed.optimizer, { lr: 0.001, epochs: 4, minibatches: 2 });
    // continue-as-new passes the parsed input on: parsing it again changes nothing
    assert.deepEqual(TrainingRunInput.parse(JSON.parse(JSON.stringify(parsed))), parsed);
    const asyncState = TrainingRunInput.parse(startInput('async-run-last'));
    assert.deepEqual(asyncState.async, {
      maxStaleness: 1,
      segment: { maxTurns: 1 },
      versionSwitch: 'turn',
      maxParked: 64,
    });
    assert.deepEqual(asyncState.loss.offPolicy, 'none');
  });

  test('a run resumed from a manifest of before has the config of the same run started today', () => {
    // a manifest of before holds the run's parsed input with its flat names (the continue-as-new input's, less state)
    const { state: _state, ...stored } = startInput('training-run-last');
    // what today's workflow gives setupRun for the same run, started with its nested input
    const { state: _none, ...config } = TrainingRunInput.parse(recordedRun);
    // setupRun compares both through today's schema
    assert.deepEqual(configDifferences(TrainingRunInput.parse(stored), TrainingRunInput.parse(config)), []);
    assert.deepEqual(
      configDifferences(TrainingRunInput.parse({ ...stored, evalLimit: 1 }), TrainingRunInput.parse(config)),
      ['evaluation.limit'],
    );
  });

  test('a field given under its flat name and in its block is refused, naming both', () => {
    assert.deepEqual(issues({ evalLimit: 2, evaluation: { limit: 3 } }), [
      'evalLimit: evalLimit is the former name of evaluation.limit, which is given too: give only evaluation.limit',
    ]);
    assert.deepEqual(issues({ lr: 1e-4, optimizer: { lr: 1e-3 }, maxStaleness: 1, async: { maxStaleness: 2 } }), [
      'lr: lr is the former name of optimizer.lr, which is given too: give only optimizer.lr',
      'maxStaleness: maxStaleness is the former name of async.maxStaleness, which is given too: give only async.maxStaleness',
    ]);
    // different fields of one block, one flat and one nested, are one block
    assert.deepEqual(TrainingRunInput.parse({ evalLimit: 2, evaluation: { samples: 3 } }).evaluation, {
      tasks: 'tasks/suite/heldout',
      samples: 3,
      every: 0,
      tail: 0,
      limit: 2,
      beforeWarmStart: false,
    });
    // the caller's value is left as it was
    const given = { evalLimit: 2, evaluation: { samples: 3 } };
    TrainingRunInput.parse(given);
    assert.deepEqual(given, { evalLimit: 2, evaluation: { samples: 3 } });
  });

  test('every flat name of before moves into a block, and each block keeps its own rules', () => {
    for (const [old, now] of Object.entries(formerFlatNames)) {
      assert.match(now, /^(evaluation|credit|loss|optimizer|async)\.[A-Za-z]+$/, old);
      assert.ok(!(old in TrainingRunInput.parse({})), `${old} is no field of today's input`);
    }
    assert.deepEqual(issues({ credit: { truncation: 'bootstrap' } }), [
      'credit.truncation: truncation "bootstrap" takes the critic\'s value at the last state: it needs estimator "gae" or "gae_turn", not "grpo"',
    ]);
    assert.deepEqual(issues({ evaluation: { samples: 0 } }).length, 1);
    assert.match(issues({ evaluation: { evry: 2 } })[0]!, /^evaluation: Unrecognized key: "evry"/);
    assert.match(issues({ loss: { lossMask: 'all' } })[0]!, /^loss: Unrecognized key: "lossMask"/);
  });

  test('a raw input the CLI sets options in: flat fields moved to their blocks, both forms of one field refused', () => {
    assert.deepEqual(runInputWithNewNames({ offPolicy: 'tis', segment: { maxTurns: 2 }, iterations: 3 }, '--input x'), {
      loss: { offPolicy: 'tis' },
      async: { segment: { maxTurns: 2 } },
      iterations: 3,
    });
    assert.throws(
      () => runInputWithNewNames({ offPolicy: 'tis', loss: { offPolicy: 'none' } }, '--input run.json'),
      /^Error: --input run\.json: offPolicy is the former name of loss\.offPolicy, which is given too: give only loss\.offPolicy$/,
    );
  });
});

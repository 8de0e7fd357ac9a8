// A training run's model (shared/contracts/training-run.ts): the toy one by its size, a real one by its name
// with its presets under the input; unknown names and fields are refused with what is known.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { models, modelNames, type ModelPresets } from '../../shared/names/models';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import { hfModelOf, toyModelOf } from '../../shared/contracts/run/model';

const issues = (input: unknown) => {
  const parsed = TrainingRunInput.safeParse(input);
  assert.equal(parsed.success, false, `expected ${JSON.stringify(input)} to be refused`);
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};
const smol = 'smollm2-135m-instruct';

describe("a training run's model", () => {
  test('no model is the toy model with its default size; a run stored before names existed parses the same', () => {
    const fresh = TrainingRunInput.parse({});
    assert.deepEqual(fresh.model, {
      name: 'toy',
      vocabSize: 404,
      context: 512,
      dModel: 64,
      nLayers: 2,
      nHeads: 4,
      alibi: true,
    });
    assert.deepEqual(
      TrainingRunInput.parse({
        model: { vocabSize: 404, context: 512, dModel: 64, nLayers: 2, nHeads: 4, alibi: true },
      }).model,
      fresh.model,
    );
    assert.equal(fresh.policyServer, 'http://127.0.0.1:8100');
    assert.equal(hfModelOf(fresh), null);
    assert.equal(toyModelOf(fresh)?.dModel, 64);
    // a parsed input parsed again keeps its model (continue-as-new and resumption parse it again)
    assert.deepEqual(TrainingRunInput.parse(JSON.parse(JSON.stringify(fresh))).model, fresh.model);
  });

  test('a real model by name: its presets fill what the input leaves out, and what the input gives wins', () => {
    const presets = models[smol]!.presets! as ModelPresets & {
      evaluation: { limit: number };
      credit: { stopCredit: number };
      optimizer: { lr: number; epochs: number };
    };
    const input = TrainingRunInput.parse({ model: { name: smol } });
    assert.deepEqual(input.model, { name: smol });
    assert.equal(input.policyServer, 'http://127.0.0.1:8102');
    assert.equal(input.sampling.chat?.tokenizer, smol);
    assert.equal(input.sampling.chat?.maxActionTokens, presets.sampling!.chat!.maxActionTokens);
    assert.equal(input.budgets.maxTurns, presets.budgets!.maxTurns);
    assert.equal(input.optimizer.lr, presets.optimizer.lr);
    assert.deepEqual(
      [input.evaluation.limit, input.credit.stopCredit, input.optimizer.epochs],
      [presets.evaluation.limit, presets.credit.stopCredit, presets.optimizer.epochs],
    );
    assert.equal(input.groupSize, presets.groupSize);
    assert.deepEqual(hfModelOf(input), { name: smol, tokenizer: smol });
    const given = TrainingRunInput.parse({
      model: { name: smol },
      groupSize: 3,
      optimizer: { lr: 2e-5 },
      budgets: { maxTurns: 2 },
      sampling: { chat: { maxActionTokens: 40 } },
      policyServer: 'http://10.0.0.5:8000',
    });
    assert.equal(given.groupSize, 3);
    assert.equal(given.optimizer.lr, 2e-5);
    // a field the input leaves out of a block it gives still takes the preset
    assert.equal(given.optimizer.epochs, presets.optimizer.epochs);
    assert.equal(given.budgets.maxTurns, 2);
    // a field the input leaves out of an object it gives still takes the preset
    assert.equal(given.budgets.maxObservationBytes, presets.budgets!.maxObservationBytes);
    assert.equal(given.sampling.chat?.maxActionTokens, 40);
    assert.equal(given.sampling.chat?.tokenizer, smol);
    assert.equal(given.policyServer, 'http://10.0.0.5:8000');
    const again = TrainingRunInput.parse(JSON.parse(JSON.stringify(given)));
    assert.deepEqual(
      [again.model, again.optimizer, again.groupSize, again.sampling.chat, again.policyServer],
      [given.model, given.optimizer, given.groupSize, given.sampling.chat, given.policyServer],
    );
  });

  test('an unknown name is refused with the known ones', () => {
    for (const name of ['gpt-9', 'SmolLM2-135M-Instruct', '', 7]) {
      const found = issues({ model: { name } });
      assert.deepEqual(found, [`model.name: unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`]);
    }
    assert.ok(modelNames.includes('toy') && modelNames.includes(smol));
  });

  test('a field the named model does not take is refused with the fields it takes', () => {
    assert.deepEqual(issues({ model: { name: smol, dModel: 128 } }), [
      `model.dModel: the model ${smol} takes no field "dModel"; it takes name (a real model's size is fixed by its weights)`,
    ]);
    const toy = issues({ model: { dModel: 32, layers: 3 } });
    assert.equal(toy.length, 1);
    assert.match(
      toy[0]!,
      /^model\.layers: the model toy takes no field "layers"; it takes name, vocabSize, context, dModel, nLayers, nHeads, alibi$/,
    );
    assert.match(issues({ model: 'smollm2-135m-instruct' })[0]!, /^model: .*expected object/);
  });

  test('a real model runs synchronously, with its own tokenizer', () => {
    assert.match(
      issues({ model: { name: smol }, mode: 'async' }).join('\n'),
      /mode: mode "async" runs the toy model only/,
    );
    assert.match(
      issues({ model: { name: smol }, sampling: { chat: { tokenizer: 'qwen3' } } }).join('\n'),
      /sampling\.chat\.tokenizer: smollm2-135m-instruct uses the tokenizer smollm2-135m-instruct, not "qwen3"/,
    );
    assert.match(issues({ model: { name: smol }, warmStart: { episodes: 2, epoch: 3 } }).join('\n'), /warmStart/);
  });
});

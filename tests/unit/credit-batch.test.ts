// The gigpo estimator and the loss-mask ablation through the batch activity: real episode records (every turn's action and
// observation), the state keys of activities/training/turn-states.ts, and the token advantages of
// the written batch file.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { fileRef, localPathOf } from '../../activities/store/local-copy';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import { runWarnings } from '../../activities/training/run-activities';
import { TrainingRunInput } from '../../shared/contracts/run/input';
import { decodeSafetensors } from '../../activities/training/safetensors';
import { actionStarts, observationIds } from '../../shared/compact-actions/context';
import { defaultGigpoOptions, gigpoAdvantages } from '../../shared/math/gigpo';
import { appendGenerated, appendGiven, emptyContext } from '../../shared/contracts/model-context';
import { policyTokenizer } from '../../shared/math/tokenizer';

/** Three episodes of one task, recorded as the episode activities record them. */
async function recordedGroup() {
  const root = mkdtempSync(join(tmpdir(), 'agentrl-gigpo-'));
  const store = createArtifactStore(root);
  const records = createEpisodeRecords(store);
  const special = policyTokenizer.specialIds;
  const located = '# pkg/__init__.py\n3: return a < b\n[exit code 1]';
  // every turn recorded as the episode activities do, the whole context on the last
  const episode = async (id: string, reward: number, turns: [action: string, observation: string][]) => {
    const context = emptyContext();
    appendGiven(context, [special['<bos>']!, special['<task>']!, special['</task>']!]);
    for (const [index, [action, observation]] of turns.entries()) {
      appendGiven(context, [special['<act>']!]);
      for (const token of [...policyTokenizer.encode(action), special['</act>']!])
        appendGenerated(context, token, -0.5, 'v1', null);
      if (index < turns.length - 1)
        appendGiven(context, observationIds(observation, policyTokenizer, { mode: 'full', maxTokens: 32 }));
      const last = index === turns.length - 1;
      const [actionRef, observationRef, empty] = await Promise.all([
        store.putBlob(action),
        store.putBlob(observation),
        store.putJson([]),
      ]);
      await records.writeTurn(id, {
        turn: index,
        policyVersion: 'v1',
        status: last ? 'submitted' : 'ok',
        durationMs: 1,
        ...(last
          ? {
              model: {
                contextRef: await records.putContext(context),
                memory: { sourceLines: [], actions: turns.map(([a]) => a) },
                tokens: context.ids.length,
                inferenceMs: 1,
              },
            }
          : {}),
        action: { ref: actionRef, tool: 'bash', tokenIdsRef: empty, logprobsRef: empty, tokens: 1 },
        observation: {
          ref: observationRef,
          tokens: 1,
          exitCode: /exit code 1/.test(observation) ? 1 : 0,
          timedOut: false,
          truncated: false,
        },
      });
    }
    return { episodeId: id, groupId: 'g', outcome: 'submitted' as const, reward, trueSuccess: reward === 1 };
  };
  // a and b locate alike and then differ (a fixes and passes, b checks and gives up); c shows instead
  const episodes = [
    await episode('a', 1, [
      ['locate', located],
      ['edit 3 < <=', './pkg/__init__.py:3:    return a <= b\n[exit code 0]'],
      ['run', '3 passed\n[exit code 0]'],
      ['submit', ''],
    ]),
    await episode('b', 0, [
      ['locate', located],
      ['run', 'tests/test_pkg.py:9: assert False\n1 failed, 2 passed\n[exit code 1]'],
      ['submit', ''],
    ]),
    await episode('c', 0, [
      ['show', '# pkg/__init__.py\n3: return a < b\n[exit code 0]'],
      ['submit', ''],
    ]),
  ];
  return { root, store, episodes };
}

test('gigpo: actions taken from a shared state are compared there, and each turn’s tokens carry its own advantage', async () => {
  const { root, store, episodes } = await recordedGroup();
  const activities = createBuildBatchActivities({ store });
  const batch = await activities.buildBatch({
    runRef: fileRef(join(root, 'run')),
    name: 'gigpo',
    episodes,
    objective: 'policy_gradient',
    estimator: 'gigpo',
    truncation: 'zero',
    versions: { v1: 1 },
    vocabSize: 404,
    gigpo: defaultGigpoOptions,
  });
  assert.equal(batch.rows, 3);
  // the start (all three first actions) and the state after a's and b's identical locate
  assert.equal(batch.counts.stepGroups, 2);
  const expected = gigpoAdvantages(
    [
      { reward: 1, states: ['start', 'located', 'a2', 'a3'] },
      { reward: 0, states: ['start', 'located', 'b2'] },
      { reward: 0, states: ['start', 'c1'] },
    ],
    defaultGigpoOptions,
  );
  const file = decodeSafetensors(await readFile(localPathOf(batch.batchRef)!));
  const [rows, length] = file.tensors.input_ids!.shape as [number, number];
  const at = (name: string, row: number) => file.tensors[name]!.values.slice(row * length, (row + 1) * length);
  let grouped = 0;
  for (let row = 0; row < rows; row++) {
    const index = ['a', 'b', 'c'].indexOf(JSON.parse(String(file.metadata.episodeIds))[row]);
    const ids = at('input_ids', row);
    const mask = at('loss_mask', row);
    const values = at('token_advantages', row);
    const starts = actionStarts(ids);
    assert.equal(starts.length, expected.actions[index]!.length);
    starts.forEach((start, turn) => {
      const end = starts[turn + 1] ?? ids.length;
      for (let position = start; position < end; position++) {
        if (mask[position] !== 1) continue;
        assert.ok(Math.abs(values[position]! - expected.actions[index]![turn]!) < 1e-6, `${index}:${turn}@${position}`);
        if (expected.grouped[index]![turn]) grouped++;
      }
    });
    // every other token carries nothing
    mask.forEach((value, position) => value === 0 && assert.equal(values[position], 0));
  }
  assert.equal(batch.counts.stepAdvantageTokens, grouped);
  // a's edit (taken from the shared state, and a succeeded) is pushed up there, b's run from it down
  assert.ok(expected.step[0]![1]! > 0 && expected.step[1]![1]! < 0);
});

test('the loss-mask ablation trains every token after the first action and marks the environment’s', async () => {
  const { root, store, episodes } = await recordedGroup();
  const activities = createBuildBatchActivities({ store });
  const common = {
    runRef: fileRef(join(root, 'run')),
    episodes,
    objective: 'policy_gradient' as const,
    estimator: 'grpo',
    truncation: 'zero' as const,
    versions: { v1: 1 },
    vocabSize: 404,
  };
  const actions = await activities.buildBatch({ ...common, name: 'actions' });
  const all = await activities.buildBatch({ ...common, name: 'all', lossMask: 'all' });
  assert.equal(all.generatedTokens, actions.generatedTokens, 'the policy wrote the same tokens');
  const file = decodeSafetensors(await readFile(localPathOf(all.batchRef)!));
  const [rows, length] = file.tensors.input_ids!.shape as [number, number];
  const environment = file.tensors.environment_mask!.values;
  const mask = file.tensors.loss_mask!.values;
  const ids = file.tensors.input_ids!.values;
  let counted = 0;
  for (let row = 0; row < rows; row++) {
    const slice = (values: number[]) => values.slice(row * length, (row + 1) * length);
    const rowMask = slice(mask);
    const rowEnvironment = slice(environment);
    const first = actionStarts(slice(ids))[0]!;
    const end = rowMask.lastIndexOf(1) + 1;
    rowMask.forEach((value, position) => {
      // the prompt stays out; from the first action to the row's end every token trains
      assert.equal(value, position >= first && position < end ? 1 : 0, `row ${row} @${position}`);
      if (rowEnvironment[position]) assert.equal(value, 1);
    });
    counted += rowEnvironment.reduce((sum, value) => sum + value, 0);
  }
  assert.ok(counted > 0);
  assert.equal(all.counts.environmentTokens, counted);
  assert.equal(file.tensors.environment_mask!.values.length, rows * length);
  assert.equal(decodeSafetensors(await readFile(localPathOf(actions.batchRef)!)).tensors.environment_mask, undefined);
});

test('a run trains on environment tokens only as an ablation, and its manifest says so', () => {
  const refused = TrainingRunInput.safeParse({ runId: 'm', tasks: 'x', loss: { mask: 'all' } });
  assert.equal(refused.success, false);
  assert.deepEqual(refused.error.issues[0]!.path, ['loss', 'mask']);
  assert.match(
    refused.error.issues[0]!.message,
    /^loss\.mask "all" trains on environment tokens: only for the loss-mask/,
  );
  const run = TrainingRunInput.parse({ runId: 'm', tasks: 'x', loss: { mask: 'all' }, ablation: true });
  assert.match(runWarnings(run)[0]!, /loss\.mask "all".*environment tokens.*ablation/);
  assert.deepEqual(runWarnings(TrainingRunInput.parse({ runId: 'm', tasks: 'x' })), []);
});

test('a privileged critic’s features: from a stop decision on, the grade the checker knows there', async () => {
  const { root, store, episodes } = await recordedGroup();
  const activities = createBuildBatchActivities({ store });
  // a checked its edit at turn 2 (passed) and submitted next; b checked without a change (no stop point)
  const withStops = episodes.map((episode) =>
    episode.episodeId === 'a'
      ? { ...episode, stops: [{ turn: 2, passed: true, submitted: true, probe: null }] }
      : episode,
  );
  const batch = await activities.buildBatch({
    runRef: fileRef(join(root, 'run')),
    name: 'privileged',
    episodes: withStops,
    objective: 'policy_gradient',
    estimator: 'gae',
    truncation: 'zero',
    versions: { v1: 1 },
    vocabSize: 404,
    privileged: true,
  });
  const file = decodeSafetensors(await readFile(localPathOf(batch.batchRef)!));
  const [rows, length] = file.tensors.input_ids!.shape as [number, number];
  assert.deepEqual(file.tensors.privileged!.shape, [rows, length, 2]);
  const order: string[] = JSON.parse(String(file.metadata.episodeIds));
  for (let row = 0; row < rows; row++) {
    const features = file.tensors.privileged!.values.slice(row * length * 2, (row + 1) * length * 2);
    const ids = file.tensors.input_ids!.values.slice(row * length, (row + 1) * length);
    const decision = order[row] === 'a' ? actionStarts(ids)[3]! : Infinity;
    for (let position = 0; position < length; position++) {
      const expected = position >= decision ? [1, 1] : [0, 0];
      assert.deepEqual(features.slice(position * 2, position * 2 + 2), expected, `${order[row]}@${position}`);
    }
  }
});

/**
 * Three chat episodes of one task (chat-tools: free-form tool calls, every generated turn one run of the loss mask),
 * recorded as the chat policy records them; a's template closed its first sample after turn 0 (chat-context.ts), so
 * its turns lie in two samples.
 */
async function recordedChatGroup() {
  const root = mkdtempSync(join(tmpdir(), 'agentrl-gigpo-chat-'));
  const store = createArtifactStore(root);
  const records = createEpisodeRecords(store);
  const prompt = [1, 2, 3, 4];
  const generated = (context: ReturnType<typeof emptyContext>, ids: number[]) =>
    ids.forEach((id) => appendGenerated(context, id, -0.25, 'v1', null));
  const episode = async (
    id: string,
    reward: number,
    turns: [action: string, observation: string, ids: number[]][],
    closeAfterFirst: boolean,
  ) => {
    const samples: string[] = [];
    let context = emptyContext();
    appendGiven(context, prompt);
    for (const [index, [action, observation, ids]] of turns.entries()) {
      generated(context, ids);
      const last = index === turns.length - 1;
      if (!last) {
        if (closeAfterFirst && index === 0) {
          // the template rendered the history differently: the sample so far is closed, the next starts all given
          samples.push(await records.putContext(context));
          context = emptyContext();
          appendGiven(context, [...prompt, ...ids, 7, 8]);
        } else {
          appendGiven(context, [7, 8, 9]);
        }
      }
      const [actionRef, observationRef, empty, messagesRef] = await Promise.all([
        store.putBlob(action),
        store.putBlob(observation),
        store.putJson([]),
        store.putJson([]),
      ]);
      await records.writeTurn(id, {
        turn: index,
        policyVersion: 'v1',
        status: last ? 'submitted' : 'ok',
        durationMs: 1,
        ...(last
          ? {
              model: {
                contextRef: await records.putContext(context),
                memory: { sourceLines: [], actions: turns.map(([a]) => a) },
                tokens: context.ids.length,
                inferenceMs: 1,
                chat: { messagesRef, samples },
              },
            }
          : {}),
        action: { ref: actionRef, tool: 'bash', tokenIdsRef: empty, logprobsRef: empty, tokens: ids.length },
        observation: { ref: observationRef, tokens: 3, exitCode: 0, timedOut: false, truncated: false },
      });
    }
    return { episodeId: id, groupId: 'g', outcome: 'submitted' as const, reward, trueSuccess: reward === 1 };
  };
  const read = 'def lt(a, b):\n    return a < b\n';
  const episodes = [
    // a and b read the same file alike (the same state after it), then part
    await episode(
      'a',
      1,
      [
        ['{"name":"bash","arguments":{"command":"cat pkg/__init__.py"}}', read, [20, 21, 22]],
        ['{"name":"write_file"}', '', [30, 31]],
        ['{"name":"submit"}', '', [40]],
      ],
      true,
    ),
    await episode(
      'b',
      0,
      [
        ['{"name":"bash","arguments":{"command":"cat pkg/__init__.py"}}', read, [20, 21, 22]],
        ['{"name":"submit"}', '', [40, 41]],
      ],
      false,
    ),
    await episode(
      'c',
      0,
      [
        ['{"name":"bash","arguments":{"command":"ls"}}', 'pkg\ntests\n', [50]],
        ['{"name":"submit"}', '', [40]],
      ],
      false,
    ),
  ];
  return { root, store, episodes };
}

test('gigpo on chat episodes: turns located as generated runs across closed samples, each carrying its advantage', async () => {
  const { root, store, episodes } = await recordedChatGroup();
  const activities = createBuildBatchActivities({ store });
  const batch = await activities.buildBatch({
    runRef: fileRef(join(root, 'run')),
    name: 'gigpo-chat',
    episodes,
    objective: 'policy_gradient',
    estimator: 'gigpo',
    truncation: 'zero',
    versions: { v1: 1 },
    agentInterface: 'chat-tools',
    chatTokenizer: 'qwen3',
    gigpo: defaultGigpoOptions,
  });
  // a's two samples, b's and c's one each
  assert.equal(batch.rows, 4);
  const expected = gigpoAdvantages(
    [
      { reward: 1, states: ['start', 'read', 'a2'] },
      { reward: 0, states: ['start', 'read'] },
      { reward: 0, states: ['start', 'c1'] },
    ],
    defaultGigpoOptions,
  );
  assert.equal(batch.counts.stepGroups, 2, 'the start and the state after the shared read');
  // the grouped actions' trained tokens: the three first actions (3 + 3 + 1) and a's and b's second (2 + 2)
  assert.equal(batch.counts.stepAdvantageTokens, 11);
  const file = decodeSafetensors(await readFile(localPathOf(batch.batchRef)!));
  const [rows, length] = file.tensors.input_ids!.shape as [number, number];
  const at = (name: string, row: number) => file.tensors[name]!.values.slice(row * length, (row + 1) * length);
  const seen = new Map<string, number[]>();
  for (let row = 0; row < rows; row++) {
    const episodeId = JSON.parse(String(file.metadata.episodeIds))[row] as string;
    const mask = at('loss_mask', row);
    const values = at('token_advantages', row);
    // every trained token's advantage, in order: a row's own runs
    seen.set(episodeId, [
      ...(seen.get(episodeId) ?? []),
      ...values.filter((_, position) => mask[position] === 1).map((value) => Number(value.toFixed(6))),
    ]);
    mask.forEach((value, position) => value === 0 && assert.equal(values[position], 0));
  }
  const perToken = (index: number, sizes: number[]) =>
    sizes.flatMap((size, turn) => Array<number>(size).fill(Number(expected.actions[index]![turn]!.toFixed(6))));
  // a's last sample's row comes first, its closed sample's after the episodes' rows
  assert.deepEqual(seen.get('a'), [...perToken(0, [0, 2, 1]), ...perToken(0, [3])]);
  assert.deepEqual(seen.get('b'), perToken(1, [3, 2]));
  assert.deepEqual(seen.get('c'), perToken(2, [1, 1]));
  // from the shared state a's write is pushed up and b's submit down
  assert.ok(expected.step[0]![1]! > 0 && expected.step[1]![1]! < 0);
});

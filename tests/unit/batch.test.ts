// Advantages and batches: golden vectors shared with the Python tests, outcome filtering, and a
// batch file written here and read by the trainer's own loader.
import { fileRef } from '../../activities/store/local-copy';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { allowedPatterns, writeBatch } from '../../activities/training/batch-writer';
import { decodeSafetensors } from '../../activities/training/safetensors';
import { BatchFileHeader } from '../../shared/contracts/batch-file';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import { advantageEstimatorNames, computeGroupAdvantages } from '../../shared/math/advantages';
import {
  buildBatchRows,
  stopDecisionAdvantages,
  tokenAdvantages,
  type EpisodeTokens,
  type StopDecision,
} from '../../shared/math/batch';
import { actId, observationIds, stopDecisions } from '../../shared/compact-actions/context';
import { appendGenerated, appendGiven, emptyContext } from '../../shared/contracts/model-context';
import type { Outcome } from '../../shared/contracts/outcomes';
import { policyTokenizer } from '../../shared/math/tokenizer';
import { projectRoot } from '../../workers/config';

const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'advantages.json'), 'utf8')) as {
  tolerance: number;
  briefRounded: { rewards: number[]; decimals: number } & Record<string, number[]>;
  cases: { name: string; rewards: number[]; expected: Record<string, number[]> }[];
};

describe('advantage estimators', () => {
  for (const goldenCase of golden.cases) {
    test(`golden: ${goldenCase.name}`, () => {
      for (const [estimator, expected] of Object.entries(goldenCase.expected)) {
        const actual = computeGroupAdvantages(estimator, goldenCase.rewards);
        assert.equal(actual.length, expected.length);
        actual.forEach((value, index) =>
          assert.ok(
            Math.abs(value - expected[index]!) <= golden.tolerance,
            `${estimator}[${index}]: ${value} vs ${expected[index]}`,
          ),
        );
      }
    });
  }
  test("the domain brief's example, rounded", () => {
    const { rewards, decimals } = golden.briefRounded;
    for (const estimator of ['grpo', 'grpo_sample_std', 'rloo']) {
      const rounded = computeGroupAdvantages(estimator, rewards).map((value) => Number(value.toFixed(decimals)));
      assert.deepEqual(rounded, golden.briefRounded[estimator]);
    }
  });
  test('an unknown estimator names the known ones', () => {
    assert.throws(
      () => computeGroupAdvantages('ppo', [1, 0]),
      /unknown advantage estimator "ppo"; known: dr_grpo, grpo, grpo_sample_std, rloo/,
    );
    assert.deepEqual(advantageEstimatorNames, ['dr_grpo', 'grpo', 'grpo_sample_std', 'rloo']);
  });
});

function episode(id: string, group: string, outcome: Outcome, reward: number | null): EpisodeTokens {
  return {
    episodeId: id,
    groupId: group,
    outcome,
    reward,
    tokenIds: [1, 2, 3, 4],
    lossMask: [0, 1, 1, 0],
    behaviourLogprobs: [0, -0.5, -0.25, 0],
    policyVersions: [-1, 3, 3, -1],
  };
}

describe('batches', () => {
  const episodes = [
    episode('a1', 'a', 'submitted', 1),
    episode('a2', 'a', 'submitted', 0),
    episode('a3', 'a', 'agent_crash', 0),
    episode('a4', 'a', 'sandbox_crash', null),
    episode('b1', 'b', 'submitted', 1),
    episode('b2', 'b', 'turn_limit', 0),
    episode('b3', 'b', 'grader_error', null),
    episode('c1', 'c', 'policy_error', null),
    episode('c2', 'c', 'submitted', 1),
  ];
  test('environment failures never enter; agent crashes stay with reward 0; truncation zero keeps the episode', () => {
    const { rows, counts } = buildBatchRows(episodes, { estimator: 'rloo', truncation: 'zero' });
    assert.deepEqual(
      rows.map((row) => row.episodeId),
      ['a1', 'a2', 'a3', 'b1', 'b2'],
    );
    assert.deepEqual(counts, {
      episodes: 9,
      environmentFailures: 3,
      truncatedZeroed: 1,
      truncatedDropped: 0,
      agentCrashes: 1,
      groupsKept: 2,
      groupsDropped: 1,
      zeroAdvantageGroups: 0,
      creditedDecisions: 0,
    });
    assert.deepEqual(
      rows.map((row) => Number(row.advantage.toFixed(3))),
      [1, -0.5, -0.5, 1, -1],
    );
  });
  test('truncation drop excludes the truncated episode, and a group left with one episode is dropped', () => {
    const { rows, counts } = buildBatchRows(episodes, { estimator: 'grpo', truncation: 'drop' });
    assert.deepEqual(
      rows.map((row) => row.episodeId),
      ['a1', 'a2', 'a3'],
    );
    assert.equal(counts.truncatedDropped, 1);
    assert.equal(counts.groupsDropped, 2);
  });
  test('every mask-1 token carries the episode advantage, every other token 0', () => {
    assert.deepEqual(tokenAdvantages({ advantage: 0.5, lossMask: [0, 1, 1, 0, 1] }), [0, 0.5, 0.5, 0, 0.5]);
  });
  test('misaligned arrays and a trainable first token are rejected', () => {
    assert.throws(
      () =>
        buildBatchRows([{ ...episode('x', 'g', 'submitted', 1), lossMask: [0, 1] }], {
          estimator: 'grpo',
          truncation: 'zero',
        }),
      /lossMask has 2 entries, tokenIds 4/,
    );
    assert.throws(
      () =>
        buildBatchRows([{ ...episode('x', 'g', 'submitted', 1), lossMask: [1, 1, 1, 0] }], {
          estimator: 'grpo',
          truncation: 'zero',
        }),
      /first token/,
    );
  });
  test("a batch file written here reads back through the trainer's load_batch", async () => {
    const { rows, counts } = buildBatchRows(episodes, { estimator: 'grpo', truncation: 'zero' });
    rows[1] = {
      ...rows[1]!,
      tokenIds: [1, 2, 3],
      lossMask: [0, 1, 0],
      behaviourLogprobs: [0, -1.5, 0],
      policyVersions: [-1, 4, -1],
    };
    const path = join(mkdtempSync(join(tmpdir(), 'agentrl-batch-')), 'batch.safetensors');
    // the constraint each mask-1 token was drawn under; a mask repeated across episodes is stored once
    const V = 8;
    const allowedByEpisode = new Map([
      [rows[0]!.episodeId, [null, [5, 2], [1, 2, 3]]],
      [rows[1].episodeId, [[0], [2, 5], null]],
    ]);
    const allowed = allowedPatterns(rows, allowedByEpisode, 4, V);
    assert.equal(allowed.patterns.length, 3 * V, 'all allowed, {2, 5}, {1, 2, 3}');
    await writeBatch(path, rows, { counts, estimator: 'grpo', truncation: 'zero', padId: 0, allowed });
    const script = [
      'import json, sys',
      "sys.path.insert(0, 'trainer')",
      'from agentrl_trainer.train_step import load_batch',
      'tensors, metadata = load_batch(sys.argv[1])',
      "print(json.dumps({'tensors': {k: {'dtype': str(v.dtype), 'shape': list(v.shape), 'values': v.flatten().tolist()} for k, v in tensors.items()}, 'metadata': metadata}))",
    ].join('\n');
    const loaded = JSON.parse(
      execFileSync(join(projectRoot, '.venv', 'bin', 'python'), ['-c', script, path], {
        cwd: projectRoot,
        encoding: 'utf8',
      }),
    );
    const { tensors, metadata } = loaded;
    assert.deepEqual(tensors.input_ids.shape, [5, 4]);
    assert.equal(tensors.input_ids.dtype, 'torch.int64');
    assert.deepEqual(tensors.input_ids.values.slice(4, 8), [1, 2, 3, 0], 'rows are right-padded');
    assert.deepEqual(tensors.loss_mask.values.slice(4, 8), [0, 1, 0, 0]);
    assert.deepEqual(tensors.behaviour_logprobs.values.slice(0, 4), [0, -0.5, -0.25, 0]);
    assert.deepEqual(tensors.policy_versions.values.slice(4, 8), [-1, 4, -1, -1]);
    rows.forEach((row, index) => assert.ok(Math.abs(tensors.advantages.values[index] - row.advantage) < 1e-6));
    assert.deepEqual(
      tensors.token_advantages.values.slice(0, 4).map((v: number) => Number(v.toFixed(5))),
      [0, 1, 1, 0].map((m) => Number((m * rows[0]!.advantage).toFixed(5))),
    );
    assert.deepEqual(
      metadata.episodeIds,
      rows.map((row) => row.episodeId),
    );
    assert.equal(metadata.estimator, 'grpo');
    assert.deepEqual(metadata.counts, counts);
    // the trainer sees the (B, T, V) mask: every position not drawn under a constraint allows everything
    assert.deepEqual(tensors.allowed_mask.shape, [5, 4, V]);
    assert.equal(tensors.allowed_patterns, undefined);
    const at = (b: number, t: number) =>
      tensors.allowed_mask.values
        .slice((b * 4 + t) * V, (b * 4 + t + 1) * V)
        .flatMap((on: boolean, id: number) => (on ? [id] : []));
    assert.deepEqual(
      [at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(1, 0), at(1, 1), at(4, 2)],
      [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [2, 5],
        [1, 2, 3],
        [0, 1, 2, 3, 4, 5, 6, 7],
        [0, 1, 2, 3, 4, 5, 6, 7],
        [2, 5],
        [0, 1, 2, 3, 4, 5, 6, 7],
      ],
    );
  });
});

const stopGolden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'stop-credit.json'), 'utf8')) as {
  tolerance: number;
  cases: {
    name: string;
    reward: number;
    groupMean: number;
    coefficient: number;
    decisions: StopDecision[];
    expected: { position: number; value: number }[];
  }[];
};

const submit = policyTokenizer.encode('submit')[0]!;

describe('stop decisions', () => {
  for (const goldenCase of stopGolden.cases) {
    test(`golden: ${goldenCase.name}`, () => {
      const actual = stopDecisionAdvantages(
        goldenCase.decisions,
        goldenCase.reward,
        goldenCase.groupMean,
        goldenCase.coefficient,
      );
      assert.deepEqual(
        actual.map((entry) => entry.position),
        goldenCase.expected.map((entry) => entry.position),
      );
      actual.forEach((entry, index) =>
        assert.ok(
          Math.abs(entry.value - goldenCase.expected[index]!.value) <= stopGolden.tolerance,
          `${entry.value} vs ${goldenCase.expected[index]!.value}`,
        ),
      );
    });
  }

  test('the decision token carries its credit on top of the episode advantage; a credit outside the mask is refused', () => {
    assert.deepEqual(
      tokenAdvantages({ advantage: 0.5, lossMask: [0, 1, 1, 0, 1], decisionAdvantages: [{ position: 4, value: -1 }] }),
      [0, 0.5, 0.5, 0, -0.5],
    );
    assert.throws(
      () =>
        tokenAdvantages({ advantage: 0.5, lossMask: [0, 1, 1, 0, 1], decisionAdvantages: [{ position: 3, value: 1 }] }),
      /position 3 falls on a token outside the loss mask/,
    );
  });

  test('a group where every episode failed still teaches: leaving a state that would have passed costs 1', () => {
    const leaver: EpisodeTokens = {
      ...episode('l', 'g', 'turn_limit', 0),
      decisions: [{ position: 2, submitted: false, grade: 1 }],
    };
    const other: EpisodeTokens = {
      ...episode('o', 'g', 'submitted', 0),
      decisions: [{ position: 2, submitted: true, grade: null }],
    };
    const without = buildBatchRows([leaver, other], { estimator: 'grpo', truncation: 'zero' });
    assert.equal(without.counts.zeroAdvantageGroups, 1);
    assert.ok(
      without.rows.every((row) => row.decisionAdvantages === undefined),
      'no credit unless stopCredit is set',
    );
    const { rows, counts } = buildBatchRows([leaver, other], { estimator: 'grpo', truncation: 'zero', stopCredit: 1 });
    assert.equal(counts.zeroAdvantageGroups, 1);
    assert.equal(
      counts.creditedDecisions,
      1,
      'submitting a failing state in a group that never succeeds costs its mean, 0',
    );
    assert.deepEqual(rows[0]!.decisionAdvantages, [{ position: 2, value: -1 }]);
    assert.deepEqual(tokenAdvantages(rows[0]!), [0, 0, -1, 0]);
    // a truncated episode under `drop` is gone with its decisions
    assert.deepEqual(
      buildBatchRows([leaver, other, { ...other, episodeId: 'o2' }], {
        estimator: 'grpo',
        truncation: 'drop',
        stopCredit: 1,
      }).counts.creditedDecisions,
      0,
    );
  });

  test("each stop decides with the first token of the next turn's action; a stop at the end decides nothing", () => {
    const ids = [9, 9, actId, 20, 21, 5, 5, actId, 22, 5, actId, 23, 24, 5, actId, submit];
    const mask = [0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1];
    const allowed = mask.map((bit) => (bit ? [20, 21, 22, 23, 24, submit] : null));
    const context = { ids, lossMask: mask, allowed };
    const stops = [
      { turn: 1, passed: false, submitted: false, probe: null },
      { turn: 2, passed: true, submitted: true, probe: 1 },
      { turn: 3, passed: true, submitted: false, probe: null },
    ];
    assert.deepEqual(stopDecisions(context, stops), [
      { position: 11, submitted: false, grade: 0 },
      { position: 15, submitted: true, grade: null },
    ]);
    // the probe's grade is what a decision to go on is credited against
    assert.deepEqual(stopDecisions(context, [{ turn: 0, passed: true, submitted: false, probe: 1 }]), [
      { position: 8, submitted: false, grade: 1 },
    ]);
    // a token the constraint did not let choose `submit` decided nothing
    const bound = { ...context, allowed: allowed.map((ids, index) => (index === 8 ? [22] : ids)) };
    assert.deepEqual(stopDecisions(bound, [{ turn: 0, passed: true, submitted: false, probe: 1 }]), []);
  });
});

describe('the warm-start batch', () => {
  test('imitates every submitted demonstration, its commands but never the arguments of an edit', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrl-imitation-'));
    const store = createArtifactStore(root);
    const activities = createBuildBatchActivities({ store });
    const records = createEpisodeRecords(store);
    const special = policyTokenizer.specialIds;
    // the turn record of the last turn, as the episode activities store it, with the whole context
    const demo = async (id: string, actions: string[]) => {
      const context = emptyContext();
      appendGiven(context, [special['<bos>']!, special['<task>']!, special['</task>']!]);
      for (const action of actions) {
        appendGiven(context, [special['<act>']!]);
        for (const token of [...policyTokenizer.encode(action), special['</act>']!])
          appendGenerated(context, token, -0.5, 'demo', null);
        appendGiven(context, observationIds('out', policyTokenizer, { mode: 'full', maxTokens: 16 }));
      }
      const model = {
        contextRef: await records.putContext(context),
        memory: { sourceLines: [], actions },
        tokens: context.ids.length,
        inferenceMs: 1,
      };
      const [ref, empty] = await Promise.all([store.putBlob(actions.at(-1)!), store.putJson([])]);
      await records.writeTurn(id, {
        turn: actions.length - 1,
        policyVersion: 'demo',
        status: 'ok',
        durationMs: 1,
        model,
        action: { ref, tool: 'bash', tokenIdsRef: empty, logprobsRef: empty, tokens: 1 },
        observation: { ref, tokens: 1, exitCode: 0, timedOut: false, truncated: false },
      });
      return { episodeId: id, groupId: 'g', outcome: 'submitted' as const, reward: 0, trueSuccess: false };
    };
    const generated = (actions: string[]) =>
      actions.reduce(
        (sum, action) => sum + (/^(edit|swap) /.test(action) ? 1 : policyTokenizer.encode(action).length + 1),
        0,
      );
    const failed = ['locate', 'edit 3 < <=', 'locate', 'submit'];
    const fixed = ['locate', 'swap 3 a b', 'submit'];
    const episodes = [
      await demo('failed', failed),
      { ...(await demo('fixed', fixed)), reward: 1, trueSuccess: true },
      { ...(await demo('cut', ['locate', 'run'])), outcome: 'token_limit' as const },
    ];
    const batch = await activities.buildBatch({
      runRef: fileRef(join(root, 'run')),
      name: 'warm-start',
      episodes,
      objective: 'imitation',
      estimator: 'grpo',
      truncation: 'zero',
      versions: {},
      vocabSize: 404,
    });
    assert.equal(batch.rows, 2, 'the fixed demonstration is kept: its edit carries no loss');
    assert.equal(batch.counts.imitationExcluded, 1);
    assert.equal(batch.generatedTokens, generated(failed) + generated(fixed));
    assert.ok(
      generated(failed) < policyTokenizer.encode(failed.join('')).length + failed.length,
      'edit arguments are left out',
    );
    // the same episodes as policy-gradient data keep every generated token
    const pg = await activities.buildBatch({
      runRef: fileRef(join(root, 'run')),
      name: 'pg',
      episodes: episodes.slice(0, 2).map((episode, index) => ({ ...episode, reward: index })),
      objective: 'policy_gradient',
      estimator: 'grpo',
      truncation: 'zero',
      versions: {},
      vocabSize: 404,
    });
    assert.equal(
      pg.generatedTokens,
      [...failed, ...fixed].reduce((sum, action) => sum + policyTokenizer.encode(action).length + 1, 0),
    );
  });
});

describe('the batch file contract (shared/contracts/batch-file.ts, shared/contracts/batch.schema.json)', () => {
  const headers = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'batch-headers.json'), 'utf8')) as {
    valid: unknown[];
    invalid: { field: string; header: unknown }[];
  };

  test('the golden headers the trainer accepts and refuses, judged alike here', () => {
    for (const header of headers.valid) assert.doesNotThrow(() => BatchFileHeader.parse(header));
    for (const { field, header } of headers.invalid) {
      const parsed = BatchFileHeader.safeParse(header);
      assert.equal(parsed.success, false, field);
      assert.ok(
        parsed.error.issues.some((issue) => issue.path.join('.').startsWith(field)),
        `${field}: ${JSON.stringify(parsed.error.issues.map((issue) => issue.path.join('.')))}`,
      );
    }
  });

  test("the writer's files follow it: every tensor and metadata field the header names", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentrl-batch-file-')), 'batch.safetensors');
    const rows = [
      {
        episodeId: 'a@r',
        groupId: 'g',
        reward: 1,
        advantage: 0.5,
        tokenIds: [1, 2, 3],
        lossMask: [0, 1, 1],
        behaviourLogprobs: [0, -1, -2],
        policyVersions: [-1, 0, 0],
      },
      {
        episodeId: 'b@r',
        groupId: 'g',
        reward: 0,
        advantage: -0.5,
        tokenIds: [1, 2],
        lossMask: [0, 1],
        behaviourLogprobs: [0, -1],
        policyVersions: [-1, 0],
      },
    ];
    const counts = {
      episodes: 2,
      environmentFailures: 0,
      truncatedZeroed: 0,
      truncatedDropped: 0,
      agentCrashes: 0,
      groupsKept: 1,
      groupsDropped: 0,
      zeroAdvantageGroups: 0,
      creditedDecisions: 0,
    };
    await writeBatch(path, rows, { counts, estimator: 'grpo', truncation: 'zero', padId: 0, baseStep: 2 });
    const { tensors, metadata } = decodeSafetensors(readFileSync(path));
    const header = BatchFileHeader.parse({
      tensors: Object.fromEntries(Object.entries(tensors).map(([name, { dtype, shape }]) => [name, { dtype, shape }])),
      metadata: Object.fromEntries(
        Object.entries(metadata).map(([name, value]) => [name, JSON.parse(value) as unknown]),
      ),
    });
    assert.deepEqual(header.tensors.input_ids, { dtype: 'I64', shape: [2, 3] });
    assert.deepEqual([header.metadata.episodeIds, header.metadata.baseStep], [['a@r', 'b@r'], 2]);
  });
});

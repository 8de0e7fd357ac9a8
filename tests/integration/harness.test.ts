// Agent harnesses run unmodified in the sandbox and call the policy through the model gateway: mini-swe-agent (PyPI,
// Chat Completions) and Codex CLI (npm, Responses), each with its own configuration, driven by the scripted chat
// backend (replies:FILE). Each fixes a task under the strict checker; editing the tests instead scores 0; the
// trajectory's tokens are the gateway's records; a batch is built from them; a harness killed mid-episode is started
// again and replays its calls from the record, so nothing is generated twice and the trajectory is the uninterrupted
// one; a request that differs after the restart ends the replay and is counted.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { gatewayDirOf } from '../../activities/gateway/mounts';
import { loadChatTokenizer } from '../../activities/policies/chat/chat-tokenizer';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { fileRef } from '../../activities/store/local-copy';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import { episodeProgressQuery, resumeSignal } from '../../workflows/messages';
import { containersOf, docker, task, useEpisodeServer, waitFor, type EpisodeResult } from '../helpers/temporal';

const suite = useEpisodeServer();

const call = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** How each harness's model runs a command and finishes, in the family's tool-call format. */
const speaks: Record<string, { run: (command: string) => string; finish: string }> = {
  'mini-swe-agent': {
    run: (command) => `I run it.\n${call('bash', { command })}`,
    finish: call('bash', { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' }),
  },
  codex: {
    // Codex 0.171 offers a model it does not know `exec_command` (a command line in `cmd`)
    run: (command) => call('exec_command', { cmd: command }),
    finish: 'The fix is in and the tests pass.',
  },
};

/** A replies: file of one episode: the commands, then the harness's own way to finish. */
function replies(harness: string, commands: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-replies-'));
  const path = join(dir, 'replies.jsonl');
  const speak = speaks[harness]!;
  writeFileSync(path, [...commands.map(speak.run), speak.finish].map((text) => JSON.stringify(text)).join('\n') + '\n');
  return `replies:${path}`;
}

/** The commands that apply a task's reference solution, the way an agent would write them. */
function applyPatch(taskDir: string): string {
  const patch = readFileSync(join(taskDir, 'solution.patch'), 'utf8');
  return `cat > /tmp/fix.patch <<'AGENTRL_EOF'\n${patch}AGENTRL_EOF\ngit apply /tmp/fix.patch && echo applied`;
}

function harnessInput(harness: string, taskDir: string, policy: string, extra: Record<string, unknown> = {}) {
  return {
    task: taskDir,
    policy,
    harness,
    checker: 'strict',
    // the harness's own prompts are long: the scripted backend takes a window as large as they need
    sampling: { chat: { tokenizer: 'smollm2-135m-instruct', maxActionTokens: 4096, window: 131_072 } },
    budgets: { deadlineMs: 300_000, harnessIdleMs: 120_000 },
    ...extra,
  };
}

async function run(input: Record<string, unknown>, workflowId = `harness-${Date.now()}-${Math.random()}`) {
  return (await suite.env.client.workflow.execute('rolloutEpisode', {
    taskQueue: suite.worker.taskQueue,
    workflowId,
    args: [input],
  })) as EpisodeResult;
}

/** Runs a command in a container as the agent's uid; its exit code. */
async function exec(containerId: string, cmd: string[]): Promise<number | null> {
  const execution = await docker.getContainer(containerId).exec({ Cmd: cmd, User: '1000:1000' });
  await new Promise<void>((resolveExec, reject) =>
    execution.start({ hijack: true, stdin: false }, (error, stream) => {
      if (error || !stream) return reject(error instanceof Error ? error : new Error('no exec stream'));
      stream.on('end', () => resolveExec());
      stream.on('close', () => resolveExec());
      stream.resume();
    }),
  );
  // the episode may release the container as soon as its harness died: then the kill has evidently landed
  return (
    await waitFor('the exec to end', async () => {
      const info = await execution.inspect().catch((error: { statusCode?: number }) => {
        if (error.statusCode === 404) return { Running: false, ExitCode: 0 };
        throw error;
      });
      return info.Running ? null : { code: info.ExitCode };
    })
  ).code;
}

/** Each turn's generated ids and the last context's ids: what training gets from the episode. */
async function trajectoryIds(result: EpisodeResult): Promise<{ generated: number[][]; context: number[] }> {
  const store = createArtifactStore(suite.worker.config.artifactsDir);
  const records = createEpisodeRecords(store);
  const turns = await records.readTurns(result.episodeId);
  const generated = await Promise.all(turns.map((turn) => store.getJson(turn.action.tokenIdsRef, z.array(z.number()))));
  return { generated, context: (await records.readContext(turns.at(-1)!.model!.contextRef)).ids };
}

/** How many generations the episode ran: its completed generateCall activities. */
async function generationsOf(workflowId: string): Promise<number> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  let completed = 0;
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes) scheduled.set(String(event.eventId), attributes.activityType?.name ?? '');
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.get(String(done.scheduledEventId)) === 'generateCall') completed++;
  }
  return completed;
}

describe('agent harnesses through the model gateway', () => {
  // each harness on a bundled task and on a real project's (its history and test suite, tasks/real; the
  // more-itertools one imported from a SWE-bench-style instance)
  const cases = [
    ['mini-swe-agent', 'wrong-comparison'],
    ['codex', 'wrong-comparison'],
    ['mini-swe-agent', 'real/humanize-naturalsize-rollover'],
    ['codex', 'real/more-itertools__more-itertools-sliced-negative'],
  ] as const;
  for (const [harness, taskName] of cases) {
    test(`${harness} fixes ${taskName} under the strict checker; its tokens are the gateway's records`, async () => {
      const taskDir = task(taskName);
      const result = await run(
        harnessInput(
          harness,
          taskDir,
          replies(harness, ['ls', applyPatch(taskDir), 'python3 -m pytest -q -x 2>&1 | tail -2']),
        ),
      );
      assert.equal(result.outcome, 'submitted', result.error ?? '');
      assert.equal(result.reward, 1);
      assert.equal(result.trueSuccess, true);
      assert.equal(result.counters.turns, 4);
      // the harness's time is the episode's acting time: its generations inside it, the rest its own (its commands)
      const phases = result.timings.turnPhases!;
      assert.ok(phases.toolMs > 0 && phases.inferenceMs + phases.toolMs <= result.timings.turnsMs + 1, 'timed');
      const store = createArtifactStore(suite.worker.config.artifactsDir);
      const records = createEpisodeRecords(store);
      const turns = await records.readTurns(result.episodeId);
      assert.equal(turns.length, 4);
      assert.equal(
        turns.reduce((sum, turn) => sum + turn.model!.inferenceMs, 0),
        phases.inferenceMs,
        "the turns' generation times are the episode's",
      );
      const tokenizer = loadChatTokenizer('smollm2-135m-instruct');
      const last = await records.readContext(turns.at(-1)!.model!.contextRef);
      // every generated id of the trajectory is one the backend generated, verbatim, and nothing else is trained
      let generated = 0;
      for (const turn of turns) {
        const ids = await store.getJson(
          turn.action.tokenIdsRef,
          (await import('zod')).z.array((await import('zod')).z.number()),
        );
        assert.equal(ids.at(-1), tokenizer.stopIds[0]);
        generated += ids.length;
      }
      const samples = [
        last,
        ...(await Promise.all(turns.at(-1)!.model!.chat!.samples.map((ref) => records.readContext(ref)))),
      ];
      assert.equal(
        samples.reduce((sum, sample) => sum + sample.lossMask.filter((bit) => bit === 1).length, 0),
        generated,
      );
      // the harness repeats its history, so the calls chain into one sample
      assert.equal(result.counters.contextSplits ?? 0, 0, 'one segment');
      assert.equal(turns.at(-1)!.model!.chat!.samples.length, 0);
      assert.match(tokenizer.decode(last.ids), /git apply \/tmp\/fix\.patch/);
      const batches = createBuildBatchActivities({ store });
      const built = await batches.buildBatch({
        runRef: fileRef(mkdtempSync(join(tmpdir(), 'agentrl-harness-batch-'))),
        name: harness,
        episodes: [
          {
            episodeId: result.episodeId,
            groupId: 'g',
            outcome: result.outcome,
            reward: result.reward,
            trueSuccess: result.trueSuccess,
          },
        ],
        objective: 'imitation',
        estimator: 'grpo',
        truncation: 'zero',
        versions: { [result.policyVersion]: 0 },
        vocabSize: tokenizer.vocabSize,
        agentInterface: 'chat-tools',
        chatTokenizer: 'smollm2-135m-instruct',
      });
      assert.equal(built.rows, 1);
      assert.equal(built.generatedTokens, generated);
      assert.equal((await containersOf(result.workflowId)).length, 0, 'no container left');
    });
  }

  test('a harness killed mid-episode starts again and replays its calls: the same trajectory, nothing generated twice', async () => {
    const taskDir = task('wrong-comparison');
    // outputs that do not vary between runs (pytest prints its time): the relaunch must see what the first launch saw
    const commands = [
      'ls intervals tests',
      'cat intervals/__init__.py',
      'sleep 4; echo slept',
      applyPatch(taskDir),
      "python3 -m pytest -q 2>&1 | tail -1 | sed -E 's/ in [0-9.]+s//'",
    ];
    const policy = replies('mini-swe-agent', commands);
    const plain = await run(harnessInput('mini-swe-agent', taskDir, policy));
    assert.equal(plain.outcome, 'submitted', plain.error ?? '');
    const workflowId = `harness-killed-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue: suite.worker.taskQueue,
      workflowId,
      args: [harnessInput('mini-swe-agent', taskDir, policy)],
    });
    // during the third call's command (the sleep): three calls made
    await waitFor(
      'three model calls',
      async () => ((await handle.query(episodeProgressQuery)).counters.turns >= 3 ? true : null),
      120_000,
    );
    const [container] = (await containersOf(workflowId)).filter((info) => info.Labels['agentrl.role'] !== 'grader');
    const gatewayDir = gatewayDirOf(await docker.getContainer(container!.Id).inspect());
    assert.ok(gatewayDir && existsSync(join(gatewayDir, 'gateway.sock')), 'the gateway listens in its folder');
    const killed = await exec(container!.Id, ['pkill', '-9', '-f', 'bin/mini']);
    assert.equal(killed, 0, 'the harness process was found and killed');
    const result = (await handle.result()) as EpisodeResult;
    assert.equal(result.outcome, 'submitted', result.error ?? '');
    assert.equal(result.reward, 1);
    assert.deepEqual(await trajectoryIds(result), await trajectoryIds(plain), 'the uninterrupted trajectory');
    assert.equal(result.counters.harness?.launches, 2);
    assert.equal(result.counters.harness?.replayed, 3, 'the three calls before the kill were answered from the record');
    assert.equal(result.counters.harness?.divergences, 0);
    const generations = await generationsOf(workflowId);
    assert.equal(generations, plain.counters.turns, 'one generation per distinct call');
    assert.equal((await containersOf(workflowId)).length, 0, 'no container left, the crashed one included');
    assert.ok(!existsSync(gatewayDir), "nor the crashed one's gateway folder");
  });

  test('a relaunched harness that asks something else ends the replay there: counted, and the episode goes on', async () => {
    const taskDir = task('wrong-comparison');
    // the container's hostname differs in the fresh sandbox of the relaunch, so the second request differs
    const policy = replies('mini-swe-agent', [
      'cat /etc/hostname',
      'sleep 4; echo slept',
      'ls',
      applyPatch(taskDir),
      'python3 -m pytest -q',
    ]);
    const workflowId = `harness-diverged-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue: suite.worker.taskQueue,
      workflowId,
      args: [harnessInput('mini-swe-agent', taskDir, policy)],
    });
    await waitFor(
      'two model calls',
      async () => ((await handle.query(episodeProgressQuery)).counters.turns >= 2 ? true : null),
      120_000,
    );
    const [container] = (await containersOf(workflowId)).filter((info) => info.Labels['agentrl.role'] !== 'grader');
    assert.equal(await exec(container!.Id, ['pkill', '-9', '-f', 'bin/mini']), 0);
    const result = (await handle.result()) as EpisodeResult & { harness?: unknown };
    assert.equal(result.outcome, 'submitted', result.error ?? '');
    assert.equal(result.counters.harness?.divergences, 1, JSON.stringify(result.counters));
    assert.equal(result.counters.harness?.replayed, 1, 'the first call was answered from the record');
    assert.equal(result.counters.harness?.launches, 2);
  });

  test('a harness episode parks at a call boundary, holding nothing, and its resume replays the calls', async () => {
    const taskDir = task('wrong-comparison');
    const workflowId = `harness-parked-${Date.now()}`;
    const handle = await suite.env.client.workflow.start('rolloutEpisode', {
      taskQueue: suite.worker.taskQueue,
      workflowId,
      args: [
        harnessInput(
          'mini-swe-agent',
          taskDir,
          replies('mini-swe-agent', ['ls intervals', applyPatch(taskDir), 'python3 -m pytest -q 2>&1 | tail -1']),
          { segment: { maxTurns: 2 } },
        ),
      ],
    });
    await waitFor(
      'the park',
      async () => ((await handle.query(episodeProgressQuery)).phase === 'parked' ? true : null),
      120_000,
    );
    assert.equal((await containersOf(workflowId)).length, 0, 'a parked episode holds no container');
    await handle.signal(resumeSignal, { segment: null });
    const result = (await handle.result()) as EpisodeResult;
    assert.equal(result.outcome, 'submitted', result.error ?? '');
    assert.equal(result.reward, 1);
    assert.equal(result.parks, 1);
    assert.equal(result.counters.harness?.launches, 2);
    assert.equal(result.counters.harness?.replayed, 2, 'the two calls before the park were answered from the record');
    assert.equal(result.counters.turns, 4);
    assert.equal(await generationsOf(workflowId), 4, 'nothing generated twice');
  });

  test('a harness that hangs ends as harness_failed; one cut at the call limit as turn_limit, its tree graded', async () => {
    const taskDir = task('wrong-comparison');
    const [hung, limited] = await Promise.all([
      run(
        harnessInput('mini-swe-agent', taskDir, replies('mini-swe-agent', ['ls', 'sleep 28']), {
          // longer than the harness takes to start on a loaded machine, shorter than its own 30 s command limit
          budgets: { deadlineMs: 300_000, harnessIdleMs: 15_000 },
        }),
      ),
      run(
        harnessInput('mini-swe-agent', taskDir, replies('mini-swe-agent', ['ls', 'ls tests', 'ls intervals']), {
          budgets: { deadlineMs: 300_000, harnessIdleMs: 120_000, maxTurns: 2 },
        }),
      ),
    ]);
    assert.equal(hung.outcome, 'harness_failed', hung.error ?? '');
    assert.match(hung.error ?? '', /hung/);
    assert.equal(hung.reward, 0, "the agent's own failure: reward 0, kept for training");
    assert.equal(hung.counters.turns, 2);
    assert.equal(limited.outcome, 'turn_limit', limited.error ?? '');
    assert.equal(limited.counters.turns, 2);
    assert.equal(limited.reward, 0, 'graded: the tree was not fixed');
    for (const result of [hung, limited]) assert.equal((await containersOf(result.workflowId)).length, 0);
  });

  test('mini-swe-agent editing the tests instead of the code scores 0 under the strict checker', async () => {
    const taskDir = task('wrong-comparison');
    const result = await run(
      harnessInput(
        'mini-swe-agent',
        taskDir,
        replies('mini-swe-agent', [
          "for f in $(grep -rl 'def test_' tests); do printf 'def test_ok():\\n    assert True\\n' > $f; done",
          'python3 -m pytest -q',
        ]),
      ),
    );
    assert.equal(result.outcome, 'submitted', result.error ?? '');
    assert.equal(result.reward, 0);
    assert.equal(result.trueSuccess, false);
  });
});

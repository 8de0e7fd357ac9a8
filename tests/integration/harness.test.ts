// Agent harnesses run unmodified in the sandbox and call the policy through the model gateway: mini-swe-agent (PyPI,
// Chat Completions) and Codex CLI (npm, Responses), each with its own configuration, driven by the scripted chat
// backend (replies:FILE). Each fixes a task under the strict checker; editing the tests instead scores 0; the
// trajectory's tokens are the gateway's records; a batch is built from them; a harness killed mid-episode is started
// again and replays its calls from the record, so nothing is generated twice and the trajectory is the uninterrupted
// one; a request that differs after the restart ends the replay and is counted.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CallRecord } from '../../activities/gateway/calls';
import { loadChatTokenizer } from '../../activities/policies/chat/chat-tokenizer';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { fileRef } from '../../activities/store/local-copy';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import { projectRoot } from '../../workers/config';
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
    run: (command) => call('shell', { command: ['bash', '-lc', command] }),
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

/** The episode's call records, in trajectory order, from its workflow's answers. */
async function recordedCalls(result: EpisodeResult): Promise<CallRecord[]> {
  const store = createArtifactStore(suite.worker.config.artifactsDir);
  const records = createEpisodeRecords(store);
  const turns = await records.readTurns(result.episodeId);
  const calls: CallRecord[] = [];
  for (const turn of turns)
    calls.push(await store.getJson(`${turn.model!.chat!.messagesRef}`, CallRecord).catch(() => null as never));
  return calls;
}

describe('agent harnesses through the model gateway', () => {
  for (const harness of ['mini-swe-agent', 'codex']) {
    test(`${harness} fixes a bundled task under the strict checker; its tokens are the gateway's records`, async () => {
      const taskDir = task('wrong-comparison');
      const result = await run(
        harnessInput(
          harness,
          taskDir,
          replies(harness, ['python3 -m pytest -q 2>&1 | tail -3', applyPatch(taskDir), 'python3 -m pytest -q']),
        ),
      );
      assert.equal(result.outcome, 'submitted', result.error ?? '');
      assert.equal(result.reward, 1);
      assert.equal(result.trueSuccess, true);
      assert.equal(result.counters.turns, 4);
      const store = createArtifactStore(suite.worker.config.artifactsDir);
      const records = createEpisodeRecords(store);
      const turns = await records.readTurns(result.episodeId);
      assert.equal(turns.length, 4);
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
void projectRoot;
void docker;
void waitFor;
void recordedCalls;

// A chat model's episode in a real container, through native tool calls: a test policy emits fixed
// token ids (tokens:FILE), the trajectory keeps them verbatim, every turn's context is an exact
// prefix of the next, malformed calls are tool errors the agent reads, and re-encoding the
// conversation would have changed the ids.
import { fileRef } from '../../activities/store/local-copy';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { parse } from 'yaml';
import { z } from 'zod';
import { initialChatContext, isPrefixContext, templateTools } from '../../activities/policies/chat/chat-context';
import { loadChatTokenizer, type ChatTokenizer } from '../../activities/policies/chat/chat-tokenizer';
import { createArtifactStore } from '../../activities/store/artifact-store';
import { createBuildBatchActivities } from '../../activities/training/build-batch';
import { createEpisodeRecords } from '../../activities/store/episode-records';
import { defaultChatSystemPrompt, type ChatMessage } from '../../shared/chat/tool-format';
import { projectRoot } from '../../workers/config';
import { containersOf, policiesDir, readTrajectory, runEpisode, task, useEpisodeServer } from '../helpers/temporal';

const suite = useEpisodeServer();

/** Ids of a text written one character at a time: the text the tokenizer would encode otherwise. */
const characterIds = (tokenizer: ChatTokenizer, text: string) =>
  [...text].flatMap((char) => tokenizer.encodeText(char));
/** A corpus case of ids a model may generate whose re-encoding differs (shared/golden/chat-tokenizers.json). */
const generatedCase = (family: string, name: string) => {
  const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'chat-tokenizers.json'), 'utf8')) as {
    families: Record<string, { generated: { name: string; text: string; ids: number[]; reencoded: number[] }[] }>;
  };
  return golden.families[family]!.generated.find((entry) => entry.name === name)!;
};
const toolCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('chat episode with native tool calls', () => {
  test('fixed token ids through a real container: verbatim ids, exact prefixes, clear tool errors, a real fix graded', async () => {
    const tokenizer = loadChatTokenizer('smollm2-135m-instruct');
    const end = tokenizer.stopIds[0]!;
    const fix = (
      JSON.parse(readFileSync(join(policiesDir, 'wrong-comparison', 'fix.jsonl'), 'utf8').split('\n')[2]!) as {
        content: string;
      }
    ).content;
    const maxActionTokens = 400;
    const cjk = generatedCase('smollm2-135m-instruct', 'cjk');
    const turns: number[][] = [
      // the tokenizer's own ids, a character-by-character spelling of a call, and the corpus's generated CJK ids in it
      [
        ...tokenizer.encodeText('I will run the tests first.\n'),
        ...characterIds(
          tokenizer,
          '<tool_call>\n{"name": "bash", "arguments": {"command": "python3 -m pytest -q; echo ',
        ),
        ...cjk.ids,
        ...tokenizer.encodeText('"}}\n</tool_call>'),
        end,
      ],
      [...tokenizer.encodeText('<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}\n</tool_call>'), end],
      [...tokenizer.encodeText(toolCall('python', { code: 'print(1)' })), end],
      [...tokenizer.encodeText(toolCall('write_file', { path: 'intervals/__init__.py', content: 42 })), end],
      // longer than the turn budget: cut by the length limit inside the call
      [...tokenizer.encodeText(toolCall('write_file', { path: 'notes.txt', content: 'x '.repeat(900) }))],
      [...tokenizer.encodeText(toolCall('write_file', { path: 'intervals/__init__.py', content: fix })), end],
      [...tokenizer.encodeText(toolCall('bash', { command: 'python3 -m pytest -q' })), end],
      [...tokenizer.encodeText(toolCall('submit', {})), end],
    ];
    assert.ok(
      turns[4]!.length > maxActionTokens && turns[5]!.length <= maxActionTokens,
      `${turns[4]!.length} / ${turns[5]!.length}`,
    );
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-tokens-'));
    writeFileSync(
      join(dir, 'turns.jsonl'),
      turns
        .map((ids, index) => JSON.stringify(index === 0 ? { ids, logprobs: ids.map(() => -0.125) } : ids))
        .join('\n') + '\n',
    );

    const result = await runEpisode(suite.env, suite.worker, {
      task: task('wrong-comparison'),
      policy: `tokens:${join(dir, 'turns.jsonl')}`,
      sampling: { chat: { tokenizer: 'smollm2-135m-instruct', maxActionTokens } },
    });
    assert.equal(result.outcome, 'submitted', JSON.stringify(result));
    assert.equal(result.reward, 1);
    assert.equal(result.trueSuccess, true);
    assert.equal(result.counters.turns, turns.length);
    assert.equal(result.counters.toolErrors, 4, 'malformed JSON, unknown tool, wrong type, cut by length');
    assert.equal(result.counters.contextSplits, 0);
    assert.deepEqual(await containersOf(result.workflowId), []);

    const trajectory = readTrajectory(result.trajectoryUri);
    assert.deepEqual(
      trajectory.map((line) => line.status),
      ['ok', 'tool_error', 'tool_error', 'tool_error', 'tool_error', 'ok', 'ok', 'submitted'],
    );
    assert.match(trajectory[0]!.observation, /failed/);
    assert.ok(trajectory[0]!.observation.includes(cjk.text), 'the generated CJK ids reached the shell as their text');
    assert.match(trajectory[1]!.observation, /^error: the tool call is not valid JSON/);
    assert.match(trajectory[2]!.observation, /^error: unknown tool "python"; known tools: bash, write_file, submit/);
    assert.match(trajectory[3]!.observation, /^error: write_file: argument "content" must be a string, got a number/);
    assert.match(trajectory[4]!.observation, /^error: the tool call was cut by the length limit/);
    assert.match(trajectory[6]!.observation, /passed/);

    const records = createEpisodeRecords(createArtifactStore(suite.worker.config.artifactsDir));
    const recorded = await records.readTurns(result.episodeId);
    assert.equal(recorded.length, turns.length);
    const store = createArtifactStore(suite.worker.config.artifactsDir);
    const contexts = await Promise.all(recorded.map((turn) => records.readContext(turn.model!.contextRef)));
    let previousEnd = 0;
    for (const [index, turn] of recorded.entries()) {
      const expected = turns[index]!.slice(0, maxActionTokens);
      assert.deepEqual(
        await store.getJson(turn.action.tokenIdsRef, z.array(z.number())),
        expected,
        `turn ${index}: the generated ids verbatim`,
      );
      assert.equal(turn.policyVersion, result.policyVersion);
      const context = contexts[index]!;
      // the generated ids sit in the context verbatim, mask 1, with their log-probs and version
      // turn k generates right after the context turn k - 1 left (the first turn, after the prompt)
      const start = index === 0 ? context.lossMask.indexOf(1) : contexts[index - 1]!.ids.length;
      assert.ok(
        start > 0 && context.lossMask.slice(0, start).every((bit) => index > 0 || bit === 0) && start >= previousEnd,
      );
      assert.deepEqual(context.ids.slice(start, start + expected.length), expected);
      assert.ok(context.lossMask.slice(start, start + expected.length).every((bit) => bit === 1));
      assert.ok(
        context.versions.slice(start, start + expected.length).every((version) => version === result.policyVersion),
      );
      if (index === 0)
        assert.ok(context.logprobs.slice(start, start + expected.length).every((value) => value === -0.125));
      if (index > 0)
        assert.ok(
          isPrefixContext(contexts[index - 1]!, context),
          `turn ${index - 1}'s context is an exact prefix of turn ${index}'s`,
        );
      previousEnd = start + expected.length;
    }
    // the cut turn was closed by a given end-of-turn, as the template closes the message
    const final = contexts.at(-1)!;
    const messages = JSON.parse(
      (await store.getBlob(recorded.at(-1)!.model!.chat!.messagesRef)).toString('utf8'),
    ) as ChatMessage[];
    assert.equal(
      tokenizer.decode(final.ids),
      tokenizer.render(messages, { tools: templateTools(tokenizer), addGenerationPrompt: true }),
    );
    // decoding the conversation and encoding it again gives other ids: the trajectory keeps the generated ones
    const reencoded = tokenizer.renderIds(messages, { tools: templateTools(tokenizer), addGenerationPrompt: true });
    assert.notDeepEqual(reencoded, final.ids);
    assert.ok(!isPrefixContext(contexts[0]!, { ...final, ids: reencoded }), 'even the first turn would have changed');
    // the corpus case: its generated ids are in the trajectory, its re-encoding is what a re-encoded history would hold
    // (the echo's output holds the text too, tokenized as an observation: once in the trajectory, twice re-encoded)
    const count = (haystack: number[], needle: number[]) =>
      haystack.filter((_, index) => needle.every((id, offset) => haystack[index + offset] === id)).length;
    assert.deepEqual([count(final.ids, cjk.ids), count(final.ids, cjk.reencoded)], [1, 1]);
    assert.deepEqual([count(reencoded, cjk.ids), count(reencoded, cjk.reencoded)], [0, 2]);
  });

  test("the solved demonstrator fixes a bundled and a real project's task under the strict checker, in the model's calls", async () => {
    // the model's own budgets (shared/models.json presets: 4 turns, 96 tokens a call) hold a one-line fix; the real
    // project's six inserted lines take a longer call
    for (const [name, maxActionTokens] of [
      ['wrong-comparison', 96],
      ['real/humanize-naturalsize-rollover', 512],
    ] as const) {
      const result = await runEpisode(suite.env, suite.worker, {
        task: task(name),
        policy: 'demo:solve',
        checker: 'strict',
        sampling: { chat: { tokenizer: 'smollm2-135m-instruct', maxActionTokens } },
        budgets: { maxTurns: 4 },
      });
      assert.equal(result.outcome, 'submitted', JSON.stringify(result));
      assert.equal(result.reward, 1, name);
      assert.equal(result.trueSuccess, true, name);
      const commands = readTrajectory(result.trajectoryUri).map(
        (line) => /"command": "(\w+)/.exec(line.action)?.[1] ?? /"name": "(\w+)"/.exec(line.action)?.[1],
      );
      // read with line numbers, a line edit, the tests, submit
      assert.deepEqual(commands, ['cat', 'sed', 'python3', 'submit'], name);
    }
    // a task without a reference fix has nothing to demonstrate: refused before any container
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-no-solution-'));
    cpSync(task('wrong-comparison'), dir, { recursive: true });
    rmSync(join(dir, 'solution.patch'));
    await assert.rejects(runEpisode(suite.env, suite.worker, { task: dir, policy: 'demo:solve' }), (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError);
      const failure = error.cause as Error & { cause?: Error };
      assert.match(failure.cause?.message ?? failure.message, /demo:solve needs the task's reference fix/);
      return true;
    });
  });

  test('a context longer than the window is the token_limit outcome; ids outside the vocabulary are refused before any container', async () => {
    const tokenizer = loadChatTokenizer('smollm2-135m-instruct');
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-tokens-'));
    const listing = [...tokenizer.encodeText(toolCall('bash', { command: 'ls -R' })), tokenizer.stopIds[0]!];
    writeFileSync(join(dir, 'turns.jsonl'), `${JSON.stringify(listing)}\n${JSON.stringify(listing)}\n`);
    // a window with room for the prompt and the first action, not for its observation and a second action
    const prompt = (parse(readFileSync(join(task('wrong-comparison'), 'task.yaml'), 'utf8')) as { prompt: string })
      .prompt;
    const window =
      initialChatContext(tokenizer, defaultChatSystemPrompt, prompt).context.ids.length + listing.length + 2;
    const limited = await runEpisode(suite.env, suite.worker, {
      task: task('wrong-comparison'),
      policy: `tokens:${join(dir, 'turns.jsonl')}`,
      sampling: { chat: { window } },
    });
    assert.equal(limited.outcome, 'token_limit', JSON.stringify(limited));
    assert.equal(limited.counters.tokenLimitHits, 1);
    assert.equal(limited.counters.turns, 1, 'the first turn ran; the second found no room in the window');
    assert.deepEqual(
      readTrajectory(limited.trajectoryUri).map((line) => line.status),
      ['ok'],
    );

    writeFileSync(join(dir, 'bad.jsonl'), `${JSON.stringify([1, 2, 49152])}\n`);
    const workflowId = `chat-bad-ids-${Date.now()}`;
    await assert.rejects(
      runEpisode(
        suite.env,
        suite.worker,
        { task: task('wrong-comparison'), policy: `tokens:${join(dir, 'bad.jsonl')}` },
        workflowId,
      ),
      (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError);
        const failure = error.cause as Error & { cause?: Error };
        assert.match(
          failure.cause?.message ?? failure.message,
          /bad\.jsonl:1: token 49152 is outside the vocabulary of 49152 \(smollm2-135m-instruct\)/,
        );
        return true;
      },
    );
    assert.deepEqual(await containersOf(workflowId), []);
  });

  test("Qwen3 through its template's tools: reasoning the template re-renders starts a new sample, counted", async () => {
    const tokenizer = loadChatTokenizer('qwen3');
    const end = tokenizer.stopIds[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-tokens-'));
    const turns = [
      [
        ...tokenizer.encodeText('<think>the tests tell where</think>\n'),
        ...tokenizer.encodeMarkup('<tool_call>'),
        ...tokenizer.encodeText(
          `\n${JSON.stringify({ name: 'bash', arguments: { command: 'python3 -m pytest -q' } })}\n`,
        ),
        ...tokenizer.encodeMarkup('</tool_call>'),
        end,
      ],
      [
        ...tokenizer.encodeMarkup('<tool_call>'),
        ...tokenizer.encodeText(`\n${JSON.stringify({ name: 'submit', arguments: {} })}\n`),
        ...tokenizer.encodeMarkup('</tool_call>'),
        end,
      ],
    ];
    writeFileSync(join(dir, 'turns.jsonl'), turns.map((ids) => JSON.stringify(ids)).join('\n') + '\n');
    const result = await runEpisode(suite.env, suite.worker, {
      task: task('wrong-comparison'),
      policy: `tokens:${join(dir, 'turns.jsonl')}`,
      sampling: { chat: { tokenizer: 'qwen3' } },
    });
    assert.equal(result.outcome, 'submitted', JSON.stringify(result));
    assert.equal(result.counters.toolErrors, 0);
    assert.equal(result.counters.contextSplits, 1, "the template rewrote the first turn's reasoning");
    const store = createArtifactStore(suite.worker.config.artifactsDir);
    const records = createEpisodeRecords(store);
    const recorded = await records.readTurns(result.episodeId);
    const first = await records.readContext(recorded[0]!.model!.contextRef);
    // the tools were offered by the template itself, in its system message
    assert.match(
      tokenizer.decode(first.ids),
      /^<\|im_start\|>system\n[^]*# Tools[^]*"name": "bash"[^]*"name": "write_file"[^]*"name": "submit"/,
    );
    // the first turn's sample was closed as generated; the next sample starts all given, from the template
    assert.deepEqual(recorded[0]!.model!.chat!.samples.length, 1);
    const closed = await records.readContext(recorded[0]!.model!.chat!.samples[0]!);
    assert.ok(first.lossMask.every((bit) => bit === 0) && closed.ids.length > 0);
    assert.deepEqual(closed.ids.slice(closed.ids.length - turns[0]!.length), turns[0]);
    const final = await records.readContext(recorded[1]!.model!.contextRef);
    assert.ok(isPrefixContext(first, final), 'within the new sample, contexts extend again');
    assert.deepEqual(final.ids.slice(first.ids.length, first.ids.length + turns[1]!.length), turns[1]);

    // a batch of this episode holds both samples, each with the generated tokens it holds
    const runDir = mkdtempSync(join(tmpdir(), 'agentrl-chat-batch-'));
    const batches = createBuildBatchActivities({ store });
    const built = await batches.buildBatch({
      runRef: fileRef(runDir),
      name: 'chat',
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
      chatTokenizer: 'qwen3',
    });
    assert.equal(built.rows, 2);
    assert.equal(built.generatedTokens, turns[0]!.length + turns[1]!.length);
    await assert.rejects(
      batches.buildBatch({
        runRef: fileRef(runDir),
        name: 'bad',
        episodes: [],
        objective: 'imitation',
        estimator: 'grpo',
        truncation: 'zero',
        versions: {},
        vocabSize: 10,
        agentInterface: 'chat-tools',
      }),
      /need chatTokenizer/,
    );
  });
});

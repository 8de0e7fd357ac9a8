// rolloutEpisode's orchestration against the real dev server with stubbed activities: how each way an
// episode ends is classified, and that the sandbox is released whatever happens. No container runs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TakeTurnInput } from '../../activities/tools/take-turn';
import type { EpisodeResult } from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import {
  startStubbedWorkers,
  turnSummary,
  untilCancelled,
  type StubActivities,
  type StubbedWorkers,
} from '../helpers/stubs';
import { startTestServer } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
before(async () => {
  env = await startTestServer();
});
after(async () => {
  await env?.teardown();
});

/**
 * Runs one episode on fresh stubbed workers; returns its result (or its failure) and what the activities were asked.
 */
async function episode(
  stubs: StubActivities,
  input: Record<string, unknown> = {},
  options: { hostId?: string } = {},
): Promise<{ result: EpisodeResult | null; error: unknown; workers: StubbedWorkers }> {
  const workers = await startStubbedWorkers(env, stubs, options);
  try {
    const result = (await env.client.workflow.execute('rolloutEpisode', {
      taskQueue: workers.taskQueue,
      workflowId: `fast-${randomBytes(4).toString('hex')}`,
      args: [{ task: 'tasks/stub', policy: 'scripted:/stub.jsonl', ...input }],
    })) as EpisodeResult;
    return { result, error: null, workers };
  } catch (error) {
    return { result: null, error, workers };
  } finally {
    await workers.stop();
  }
}

/** A policy that runs `statuses` turn by turn. */
const turns = (...statuses: TurnStatusSpec[]): StubActivities => ({
  async takeTurn(input: TakeTurnInput) {
    const spec = statuses[input.turn] ?? 'submitted';
    return typeof spec === 'string' ? turnSummary(input.turn, spec) : turnSummary(input.turn, spec.status, spec);
  },
});
type TurnStatusSpec =
  | Parameters<typeof turnSummary>[1]
  | (Parameters<typeof turnSummary>[2] & { status: Parameters<typeof turnSummary>[1] });

describe('rolloutEpisode outcomes (stubbed activities)', () => {
  test('a submission is scored; reward and true success come from the checker; the sandbox is released', async () => {
    const { result, workers } = await episode(turns('ok', 'ok', 'submitted'));
    assert.equal(result!.outcome, 'submitted');
    assert.equal(result!.reward, 1);
    assert.equal(result!.trueSuccess, true);
    assert.equal(result!.counters.turns, 3);
    assert.equal(result!.counters.toolCalls, 3);
    assert.equal(workers.calls.scoreSubmission!.length, 1);
    assert.equal(workers.calls.releaseSandbox!.length, 1);
    assert.equal(workers.calls.writeTrajectory!.length, 1);
    assert.equal(result!.trajectoryUri, `/stub/${result!.episodeId}/trajectory.jsonl`);
  });

  test('a host that stops serving its queue turns into sandbox_crash after the schedule-to-start wait, with no reward', async () => {
    const started = Date.now();
    const { result, workers } = await episode(
      {},
      { timeouts: { hostScheduleToStartMs: '2s' } },
      { hostId: 'vanished' },
    );
    assert.equal(result!.outcome, 'sandbox_crash');
    assert.equal(result!.reward, null);
    assert.equal(result!.trueSuccess, null);
    assert.match(result!.error!, /sandbox host vanished stopped serving its queue/);
    assert.equal(workers.calls.takeTurn, undefined, 'no turn ran anywhere else');
    assert.equal(workers.calls.scoreSubmission, undefined);
    assert.ok(Date.now() - started < 30_000, 'the wait is the configured one, not the deadline');
  });

  test('a grader failure is grader_error and a sandbox gone before scoring is sandbox_crash; neither has a reward', async () => {
    const grader = await episode({
      async scoreSubmission() {
        throw ApplicationFailure.nonRetryable('the harness printed nothing', ErrorTypes.graderError);
      },
    });
    assert.equal(grader.result!.outcome, 'grader_error');
    assert.equal(grader.result!.reward, null);
    assert.match(grader.result!.error!, /scoring failed: the harness printed nothing/);
    assert.equal(grader.workers.calls.scoreSubmission!.length, 1, 'a deterministic grader fault is not retried');
    assert.equal(grader.workers.calls.releaseSandbox!.length, 1);
    const gone = await episode({
      async scoreSubmission() {
        throw ApplicationFailure.nonRetryable('the sandbox stopped before scoring', ErrorTypes.sandboxCrash);
      },
    });
    assert.equal(gone.result!.outcome, 'sandbox_crash');
    assert.equal(gone.result!.trueSuccess, null);
  });

  test('a host that dies in the middle of a turn turns the episode into sandbox_crash; nothing runs twice elsewhere', async () => {
    const workers = await startStubbedWorkers(env, {
      async takeTurn(input: TakeTurnInput) {
        if (input.turn === 0) return turnSummary(0, 'ok');
        return untilCancelled();
      },
    });
    try {
      const handle = await env.client.workflow.start('rolloutEpisode', {
        taskQueue: workers.taskQueue,
        workflowId: `fast-host-${randomBytes(4).toString('hex')}`,
        args: [{ task: 'tasks/stub', policy: 'scripted:/stub.jsonl', timeouts: { hostScheduleToStartMs: '2s' } }],
      });
      const deadline = Date.now() + 20_000;
      while ((workers.calls.takeTurn?.length ?? 0) < 2 && Date.now() < deadline)
        await new Promise((resolveSleep) => setTimeout(resolveSleep, 50));
      await workers.stopHost();
      const result = (await handle.result()) as EpisodeResult;
      assert.equal(result.outcome, 'sandbox_crash');
      assert.match(result.error!, /sandbox host stub-host stopped serving its queue/);
      assert.equal(result.reward, null);
      assert.equal(result.counters.turns, 1, 'the interrupted turn is not counted');
      assert.equal(workers.calls.takeTurn!.length, 2, 'the turn was not run again by anyone else');
      assert.equal(workers.calls.scoreSubmission, undefined);
    } finally {
      await workers.stop();
    }
  });

  test('cancelling a running episode writes its trajectory, releases its sandbox, and ends cancelled', async () => {
    const workers = await startStubbedWorkers(env, { takeTurn: untilCancelled });
    try {
      const handle = await env.client.workflow.start('rolloutEpisode', {
        taskQueue: workers.taskQueue,
        workflowId: `fast-cancel-${randomBytes(4).toString('hex')}`,
        args: [{ task: 'tasks/stub', policy: 'scripted:/stub.jsonl' }],
      });
      const deadline = Date.now() + 20_000;
      while (!workers.calls.takeTurn && Date.now() < deadline)
        await new Promise((resolveSleep) => setTimeout(resolveSleep, 50));
      await handle.cancel();
      await assert.rejects(
        handle.result(),
        (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
      );
      assert.equal(workers.calls.releaseSandbox!.length, 1, 'released although cancelled');
      assert.equal(workers.calls.writeTrajectory!.length, 1, 'the trajectory so far is kept');
      assert.equal(workers.calls.scoreSubmission, undefined, 'a cancelled episode is never scored');
    } finally {
      await workers.stop();
    }
  });

  test("policy errors and agent crashes: only the agent's own crash is trainable (reward 0)", async () => {
    const policy = await episode(turns('ok', 'policy_error'));
    assert.equal(policy.result!.outcome, 'policy_error');
    assert.equal(policy.result!.reward, null);
    assert.equal(policy.result!.counters.toolCalls, 1, 'the turn without an action is not a tool call');
    assert.equal(policy.workers.calls.scoreSubmission, undefined);
    const crash = await episode(turns('agent_crash'));
    assert.equal(crash.result!.outcome, 'agent_crash');
    assert.equal(crash.result!.reward, 0);
    assert.equal(crash.result!.trueSuccess, false);
  });

  test('the turn and token limits are their own outcomes, and their final state is scored', async () => {
    const limit = await episode(turns('ok', 'tool_error', 'ok', 'ok'), { budgets: { maxTurns: 3 } });
    assert.equal(limit.result!.outcome, 'turn_limit');
    assert.equal(limit.result!.counters.turnLimitHits, 1);
    assert.equal(limit.result!.counters.toolErrors, 1);
    assert.equal(limit.workers.calls.scoreSubmission!.length, 1);
    const tokens = await episode(turns('ok', 'token_limit'));
    assert.equal(tokens.result!.outcome, 'token_limit');
    assert.equal(tokens.result!.counters.tokenLimitHits, 1);
    assert.equal(tokens.result!.counters.turns, 1, 'the turn that found no room is not counted');
  });

  test('acquisition that keeps failing is sandbox_crash; a missing image fails the workflow', async () => {
    const flaky = await episode({
      async acquireSandbox() {
        throw new Error('daemon hiccup');
      },
    });
    assert.equal(flaky.result!.outcome, 'sandbox_crash');
    assert.match(flaky.result!.error!, /sandbox acquisition failed: daemon hiccup/);
    assert.equal(flaky.workers.calls.acquireSandbox!.length, 3, 'three attempts');
    const missing = await episode({
      async acquireSandbox() {
        throw ApplicationFailure.nonRetryable('task image x is not on this host', ErrorTypes.missingImage);
      },
    });
    assert.ok(missing.error instanceof WorkflowFailedError);
    assert.equal(missing.workers.calls.acquireSandbox!.length, 1);
  });

  test('a check after a change is a stop point; with probes each passed one is graded, and the next submit is recorded', async () => {
    const { result, workers } = await episode(
      turns(
        { status: 'ok', actionKind: 'check', exitCode: 1 },
        { status: 'ok', actionKind: 'change' },
        { status: 'ok', actionKind: 'check', exitCode: 1 },
        { status: 'ok', actionKind: 'change' },
        { status: 'ok', actionKind: 'check', exitCode: 0 },
        'submitted',
      ),
      { probeStops: true },
    );
    assert.deepEqual(result!.stops, [
      { turn: 2, passed: false, submitted: false, probe: null },
      { turn: 4, passed: true, submitted: true, probe: 0 },
    ]);
    assert.deepEqual(
      (workers.calls.probeSubmission as { turn: number }[]).map((call) => call.turn),
      [4],
    );
    assert.equal(workers.calls.takeTurn!.length, 6);
    assert.equal((workers.calls.takeTurn as TakeTurnInput[])[0]!.container, `stub-${result!.episodeId}`);
  });
});

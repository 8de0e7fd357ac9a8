import type { TurnStatus, TurnSummary } from '../../shared/contracts/episode';
import type { ToolCall } from '../../shared/contracts/tool-call';
import type { RunnerResult } from '../sandbox/runner';

/**
 * What the agent reads after a tool call: the tool's output and a footer with its exit status
 * (`[exit code N]`, `[killed by signal N]`, `[timed out: …]`) and any cut (`[output truncated: …]`).
 */

/** The observation without the footer that describeResult appends. */
export function withoutFooter(observation: string): string {
  return observation.replace(/\n?\[(exit code|killed|timed out|output truncated)[^\n]*\]\s*$/, '');
}

/** A turn summary with nothing but its status. */
export function emptySummary(turn: number, status: TurnStatus, detail: string | null): TurnSummary {
  return {
    turn,
    tool: null,
    status,
    exitCode: null,
    timedOut: false,
    truncated: false,
    actionTokens: 0,
    observationTokens: 0,
    detail,
  };
}

/** Formats a runner result as the agent's observation and the workflow's summary. */
export function describeResult(
  turn: number,
  call: Exclude<ToolCall, { tool: 'submit' }>,
  result: RunnerResult,
): { observation: string; summary: TurnSummary } {
  const summary = { ...emptySummary(turn, 'ok', null), tool: call.tool };
  if (result.oomKilled) {
    return {
      observation: `${result.output ?? ''}\n[killed: out of memory]`,
      summary: {
        ...summary,
        status: 'agent_crash',
        exitCode: result.exitCode ?? null,
        detail: 'a tool call ran the sandbox out of memory',
      },
    };
  }
  if (result.error !== undefined) {
    return {
      observation: `error: ${result.error}`,
      summary: { ...summary, status: 'tool_error', detail: result.error },
    };
  }
  if (call.tool === 'write_file') {
    return { observation: `wrote ${result.written ?? 0} bytes to ${call.path}`, summary };
  }
  const output = result.output ?? '';
  const notes: string[] = [];
  if (result.timedOut) notes.push('[timed out: the process group was killed]');
  else
    notes.push(
      result.exitCode === null || result.exitCode === undefined
        ? `[killed by signal ${result.signal}]`
        : `[exit code ${result.exitCode}]`,
    );
  if (result.truncated) notes.push(`[output truncated: ${result.outputBytes} bytes in all]`);
  const observation = `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${notes.join(' ')}`;
  return {
    observation,
    summary: {
      ...summary,
      exitCode: result.exitCode ?? null,
      timedOut: Boolean(result.timedOut),
      truncated: Boolean(result.truncated),
    },
  };
}

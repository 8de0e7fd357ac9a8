import type { StopDecision } from '../math/batch';
import type { StopRecord } from './episode';
import type { ModelContext, ObservationMode } from './model-context';
import type { WordTokenizer } from '../math/tokenizer';
import type { ParsedToolCall } from './tool-call';

/**
 * The agent interfaces: how a policy and the sandbox talk. `compact-actions` is the compact action
 * language of the embedded toy model (shared/compact-actions/); `chat-tools` is a chat model's own
 * tokenizer, chat template and native tool calls (shared/chat/, activities/policies/chat/). The
 * policy chooses: completions:, demo: and random: speak the compact language; vllm:, sglang: and
 * tokens: speak chat-tools.
 */
export const AgentInterfaceNames = ['compact-actions', 'chat-tools'] as const;
export type AgentInterfaceName = (typeof AgentInterfaceNames)[number];

/**
 * An agent interface fixes what the model reads (the task's prompt and each observation as token
 * ids, laid out in its context), what it writes (actions in its own format), how an action becomes
 * a tool call (`bash`, `write_file`, `submit`), and how a context's tokens enter training. Workflows
 * and the checker never see it: they deal in tool calls, observations and outcomes.
 */
export interface AgentInterface {
  readonly name: AgentInterfaceName;
  /**
   * the policy's text as a tool call; a malformed action is an error the agent reads, never a crash; `cutByLength`:
   * generation stopped at the turn's token budget
   */
  toToolCall(text: string, options?: { cutByLength?: boolean }): ParsedToolCall;
  /**
   * `change` (it changes the repository), `check` (it runs the tests) or null; a check after a change is a stop point
   */
  actionKind(text: string): 'change' | 'check' | null;
}

/** The compact language's token layout, which the embedded toy model's policies and batches use. */
export interface CompactInterface extends AgentInterface {
  readonly tokenizer: WordTokenizer;
  /** the ids that start a context: the task's prompt, at most `maxPromptTokens` of it */
  promptIds(prompt: string, options: { maxPromptTokens: number }): number[];
  /** the ids of one observation, cut to `maxTokens` with a stated cut, or blanked */
  observationIds(observation: string, options: { mode: ObservationMode; maxTokens: number }): number[];
  /** the loss mask a demonstration is imitated with (what it may not teach is masked out) */
  imitationMask(context: Pick<ModelContext, 'ids' | 'lossMask'>): number[];
  /** the tokens that chose between `submit` and going on at the episode's stop points */
  stopDecisions(
    context: Pick<ModelContext, 'ids' | 'lossMask' | 'allowed'>,
    stops: readonly StopRecord[],
  ): StopDecision[];
  /** where each turn's action starts in a context's ids (turn k's at index k) */
  actionStarts(ids: readonly number[]): number[];
}

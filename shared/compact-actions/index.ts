import type { CompactInterface } from '../contracts/agent-interface';
import { policyTokenizer } from '../math/tokenizer';
import { looksLikeJson, parseJsonToolCall } from '../contracts/tool-call';
import { actionStarts, formatOnlyMask, observationIds, promptIds, stopDecisions } from './context';
import { actionKind, translateAction } from './language';

/**
 * The compact action language as an agent interface (shared/contracts/agent-interface.ts): the embedded
 * model's tokenizer, its context layout (context.ts), its commands (language.ts) and the constrained
 * action space the sampler walks (action-space.ts). JSON tool calls are accepted as well, so a
 * scripted policy may mix both.
 */
export const compactActions: CompactInterface = {
  name: 'compact-actions',
  tokenizer: policyTokenizer,
  promptIds: (prompt, options) => promptIds(prompt, policyTokenizer, options.maxPromptTokens),
  observationIds: (observation, options) => observationIds(observation, policyTokenizer, options),
  toToolCall: (text) => (looksLikeJson(text) ? parseJsonToolCall(text) : translateAction(text)),
  actionKind,
  imitationMask: (context) => formatOnlyMask(context, policyTokenizer),
  stopDecisions,
  actionStarts,
};

export { actId, endActId } from './context';
export {
  ActionTrie,
  allowedActions,
  atStopPoint,
  emptyMemory,
  longestAction,
  PolicyMemory,
  rememberTurn,
} from './action-space';
export { demoAction } from './demonstrator';

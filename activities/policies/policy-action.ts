import { z } from 'zod';

/** One action of a policy: the exact text, its token ids and log-probs, and the policy version that made it. */
export const PolicyAction = z.object({
  text: z.string(),
  tokenIds: z.array(z.number().int()),
  logprobs: z.array(z.number()),
  version: z.string(),
  /** token-level policies: the model context after this action (artifact reference) */
  contextRef: z.string().optional(),
  /** chat policies: the conversation after this action (artifact reference) */
  messagesRef: z.string().optional(),
  /** chat policies: why generation ended (`length`: cut by the action's token budget) */
  finishReason: z.enum(['stop', 'length']).optional(),
});
export type PolicyAction = z.infer<typeof PolicyAction>;

/** The policy could not give an action (a script ran out, a context is missing): the episode's policy_error. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

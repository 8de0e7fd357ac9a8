/** One action of a policy: the exact text, its token ids and log-probs, and the policy version that made it. */
export interface PolicyAction {
  text: string;
  tokenIds: number[];
  logprobs: number[];
  version: string;
  /** token-level policies: the model context after this action (artifact reference) */
  contextRef?: string;
}

/** The policy could not give an action (a script ran out, a context is missing): the episode's policy_error. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

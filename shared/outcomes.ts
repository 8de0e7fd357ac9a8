/** How an episode ended; each termination is its own outcome. */
export const Outcomes = {
  submitted: 'submitted',
  turnLimit: 'turn_limit',
  tokenLimit: 'token_limit',
  timeout: 'timeout',
  /** the agent's own processes killed the sandbox (e.g. out of memory): reward 0, kept for training */
  agentCrash: 'agent_crash',
  /** a cause outside the submission (daemon, host or worker loss, external kill): never a reward */
  sandboxCrash: 'sandbox_crash',
  policyError: 'policy_error',
  graderError: 'grader_error',
} as const;
export type Outcome = (typeof Outcomes)[keyof typeof Outcomes];

/** Outcomes that are environment failures: no reward is defined for them. */
export const environmentFailures: readonly Outcome[] = [Outcomes.sandboxCrash, Outcomes.policyError, Outcomes.graderError];

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
  /**
   * a parked episode released before its end: its time to live ran out, or its run ended and let it go;
   * truncated like a limit, never scored (no container is started again to grade it)
   */
  abandoned: 'abandoned',
} as const;
export type Outcome = (typeof Outcomes)[keyof typeof Outcomes];

/** Outcomes that are environment failures: no reward is defined for them. */
export const environmentFailures: readonly Outcome[] = [
  Outcomes.sandboxCrash,
  Outcomes.policyError,
  Outcomes.graderError,
];

/** Outcomes that end an episode before the agent submitted: training treats them by its truncation policy. */
export const truncatedOutcomes: readonly Outcome[] = [
  Outcomes.turnLimit,
  Outcomes.tokenLimit,
  Outcomes.timeout,
  Outcomes.abandoned,
];

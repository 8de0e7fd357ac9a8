/** How an episode ended; each termination is its own outcome. */
export const Outcomes = {
  submitted: 'submitted',
  turnLimit: 'turn_limit',
  tokenLimit: 'token_limit',
  timeout: 'timeout',
  /** the agent's own processes killed the sandbox (e.g. out of memory): reward 0, kept for training */
  agentCrash: 'agent_crash',
  /** the agent's harness exited with an error or hung (no model call, no exit): reward 0, kept for training */
  harnessFailed: 'harness_failed',
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

/** Outcomes that are the agent's own failure before any grading: reward 0, kept for training. */
export const agentFailures: readonly Outcome[] = [Outcomes.agentCrash, Outcomes.harnessFailed];

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

/** How many times an episode that ended in an environment failure runs again (its group stays whole). */
export const maxResamples = 2;

/**
 * The one resampling rule: an environment failure says nothing of the policy, so its episode runs again (attempt 0 is
 * the first run).
 */
export function resampleAfter(outcome: Outcome, attempt: number): boolean {
  return environmentFailures.includes(outcome) && attempt < maxResamples;
}

/** The workflow id of an episode's `attempt`-th resampling (1, 2, …), from its first run's id. */
export function resampledId(firstId: string, attempt: number): string {
  return `${firstId}.again-${attempt}`;
}

/** The id of an episode's first run, from the id of any of its resamplings. */
export function firstRunId(id: string): string {
  return id.replace(/\.again-\d+$/, '');
}

/** Application failure types; deterministic ones are raised non-retryable. */
export const ErrorTypes = {
  invalidInput: 'InvalidInput',
  invalidTask: 'InvalidTask',
  invalidPolicy: 'InvalidPolicy',
  missingImage: 'MissingImage',
  sandboxCrash: 'SandboxCrash',
  graderError: 'GraderError',
  policyError: 'PolicyError',
} as const;
export type ErrorType = (typeof ErrorTypes)[keyof typeof ErrorTypes];

import type { z } from 'zod';

/** Application failure types; deterministic ones are raised non-retryable. */
export const ErrorTypes = {
  invalidInput: 'InvalidInput',
  invalidTask: 'InvalidTask',
  invalidPolicy: 'InvalidPolicy',
  missingImage: 'MissingImage',
  sandboxCrash: 'SandboxCrash',
  graderError: 'GraderError',
  policyError: 'PolicyError',
  /** the agent's tree cannot be parked (too large, or more file bytes than a restore can write) */
  treeOverLimits: 'TreeOverLimits',
} as const;
export type ErrorType = (typeof ErrorTypes)[keyof typeof ErrorTypes];

/** Formats a zod error as "file: field: message" lines (a bad input names its field). */
export function describeIssues(file: string, error: z.ZodError): string {
  return error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('\n');
}

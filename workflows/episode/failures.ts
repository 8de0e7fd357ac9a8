/** What an activity's failure says: its timeout type, a lost host, its application failure type, its message. */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { TimeoutType } from '@temporalio/common';

export function timeoutTypeOf(error: unknown): TimeoutType | null {
  return error instanceof ActivityFailure && error.cause instanceof TimeoutFailure ? error.cause.timeoutType : null;
}

export function isHostLost(error: unknown): boolean {
  return timeoutTypeOf(error) === TimeoutType.SCHEDULE_TO_START;
}

export function failureType(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

export function messageOf(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

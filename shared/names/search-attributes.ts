import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes registered on the dev server; they make episodes filterable in the UI. */
export const SearchAttributes = {
  runId: defineSearchAttributeKey('AgentrlRunId', SearchAttributeType.KEYWORD),
  taskId: defineSearchAttributeKey('AgentrlTaskId', SearchAttributeType.KEYWORD),
  outcome: defineSearchAttributeKey('AgentrlOutcome', SearchAttributeType.KEYWORD),
  reward: defineSearchAttributeKey('AgentrlReward', SearchAttributeType.DOUBLE),
  /** running, parked (holding no container, waiting for a resume) or finished */
  phase: defineSearchAttributeKey('AgentrlPhase', SearchAttributeType.KEYWORD),
} as const;

/** `--search-attribute` arguments for `temporal server start-dev`. */
export const searchAttributeServerArgs: string[] = Object.values(SearchAttributes).flatMap((key) => [
  '--search-attribute',
  `${key.name}=${key.type === SearchAttributeType.DOUBLE ? 'Double' : 'Keyword'}`,
]);

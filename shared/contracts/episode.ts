import { z } from 'zod';
import { durationMs } from '../math/duration';
import { Outcomes, type Outcome } from './outcomes';
import type { PolicySpecKind } from './policy-spec';

export const CheckerKinds = ['strict', 'weak'] as const;
export type CheckerKind = (typeof CheckerKinds)[number];

/** How long a parked episode waits for a resume when its segment budget does not say. */
export const defaultParkTtlMs = 3_600_000;

/**
 * A segment budget: after this many turns or this much acting time in one segment, an episode that
 * has not ended parks (its tree saved, its container released) until it is resumed; its overall
 * budgets (turns, tokens, deadline) span its segments, and parked time counts against none of them.
 */
export const SegmentBudget = z
  .object({
    maxTurns: z.number().int().positive().optional(),
    maxMs: durationMs.optional(),
    /**
     * a parked episode not resumed within this time ends as `abandoned`; @default {@link defaultParkTtlMs} (a resume's
     * segment without it keeps the one in force)
     */
    parkTtlMs: durationMs.optional(),
  })
  .strict()
  .refine((segment) => segment.maxTurns !== undefined || segment.maxMs !== undefined, {
    message: 'a segment needs maxTurns or maxMs',
  });
export type SegmentBudget = z.infer<typeof SegmentBudget>;

/** What the workflow knows of its task: ids and small fields only. */
export const TaskSummary = z.object({
  id: z.string(),
  /** artifact reference of the task snapshot (repository, hidden and oracle files) */
  snapshotRef: z.string(),
  image: z.string(),
  testCommand: z.string(),
  protectedPaths: z.array(z.string()),
  hasOracle: z.boolean(),
  promptTokens: z.number().int().min(0),
  /** artifact reference of the prompt text */
  promptRef: z.string(),
  maxTurns: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  /** the task's own time limit for acting (a Harbor task's [agent] timeout_sec): the deadline is the shorter */
  deadlineMs: z.number().int().positive().optional(),
  /**
   * the files the task's reference fix changes, made for the solved demonstrator (demo:solve) only: no other
   * policy's episode holds it
   */
  solutionRef: z.string().optional(),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

/**
 * The kinds of policy an episode can run (shared/contracts/policy-spec.ts; an `.onnx` file is served first, as
 * `completions:`).
 */
export type PolicyKind = Exclude<PolicySpecKind, 'onnx'>;

/** The policy, resolved to an immutable artifact or endpoint. */
export const PolicySummary = z.object({
  spec: z.string(),
  kind: z.custom<PolicyKind>((value) => typeof value === 'string' && value !== 'onnx', 'a policy kind'),
  /** artifact reference of the policy's snapshot: a script, or an endpoint with its sampling options */
  ref: z.string(),
  version: z.string(),
});
export type PolicySummary = z.infer<typeof PolicySummary>;

/** A started container and the host whose queue runs every later activity on it. */
export const SandboxHandle = z.object({
  hostId: z.string(),
  containerId: z.string(),
  containerName: z.string(),
  volumes: z.array(z.string()),
});
export type SandboxHandle = z.infer<typeof SandboxHandle>;

/** What an episode counts as it runs. */
export const EpisodeCounters = z.object({
  turns: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
  toolErrors: z.number().int().min(0),
  truncatedOutputs: z.number().int().min(0),
  toolTimeouts: z.number().int().min(0),
  tokens: z.number().int().min(0),
  turnLimitHits: z.number().int().min(0),
  tokenLimitHits: z.number().int().min(0),
  deadlineHits: z.number().int().min(0),
  /**
   * chat policies: training samples started anew where the chat template broke the exact-prefix property (absent in
   * older results)
   */
  contextSplits: z.number().int().min(0).optional(),
  /**
   * harness episodes: its launches (a relaunch after each crash), calls a relaunch answered from the record, where a
   * relaunch asked something else (divergences) and the recorded calls dropped there, new segments by reason
   */
  harness: z
    .object({
      launches: z.number().int().min(0),
      replayed: z.number().int().min(0),
      divergences: z.number().int().min(0),
      discarded: z.number().int().min(0),
      segmentStarts: z.record(z.string(), z.number().int().min(0)),
    })
    .optional(),
});
export type EpisodeCounters = z.infer<typeof EpisodeCounters>;

export const emptyCounters = (): EpisodeCounters => ({
  turns: 0,
  toolCalls: 0,
  toolErrors: 0,
  truncatedOutputs: 0,
  toolTimeouts: 0,
  tokens: 0,
  turnLimitHits: 0,
  tokenLimitHits: 0,
  deadlineHits: 0,
  contextSplits: 0,
});

/** A finding of the tamper detector (kinds in shared/tamper-kinds.json). */
export const TamperFinding = z.object({ kind: z.string(), path: z.string(), detail: z.string() });
export type TamperFinding = z.infer<typeof TamperFinding>;

/** How a turn ended, as the turn activity reports it. */
export const TurnStatuses = [
  'ok',
  'tool_error',
  'submitted',
  'agent_crash',
  'sandbox_crash',
  'policy_error',
  'token_limit',
] as const;
export type TurnStatus = (typeof TurnStatuses)[number];

/** What the workflow learns of a turn: a small summary; the texts are in the artifact store. */
/** Where a turn's time went inside its activity (milliseconds); the rest of the turn is Temporal's round trips. */
export const TurnPhases = z.object({
  /** the policy's generation (served or embedded model); 0 for a scripted policy */
  inferenceMs: z.number().min(0),
  /**
   * the tool call in the sandbox (executor or exec), start to result; in a harness episode, the harness's own time
   * between its model calls (its commands and its own work)
   */
  toolMs: z.number().min(0),
  /** the host-side sweep of the agent's processes after the call (overlaps storeMs) */
  sweepMs: z.number().min(0),
  /** the turn's records: blobs and the trajectory entry */
  storeMs: z.number().min(0),
});
export type TurnPhases = z.infer<typeof TurnPhases>;

export const TurnSummary = z.object({
  turn: z.number().int().min(0),
  tool: z.string().nullable(),
  status: z.enum(TurnStatuses),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  actionTokens: z.number().int(),
  observationTokens: z.number().int(),
  detail: z.string().nullable(),
  /** whether the action changed the repository or ran the tests (the agent interface's actionKind) */
  actionKind: z.enum(['change', 'check']).optional(),
  /** chat policies: the chat template broke the exact-prefix property here, and a new training sample started */
  contextSplit: z.boolean().optional(),
  /** where the turn's activity spent its time (absent in summaries from before it was recorded) */
  phases: TurnPhases.optional(),
});
export type TurnSummary = z.infer<typeof TurnSummary>;

/**
 * What true success rests on: the isolated oracle calls (sound by construction), the fallback pytest
 * oracle run in the candidate's process (detected, not sound), or nothing independent (`visible+hidden`,
 * `harbor-verifier`: true success is then null, unaudited, never the reward copied); for a Harbor task
 * with oracle.json, the verifier's full reward with the isolated oracle calls.
 */
export const TrueSuccessBases = [
  'visible+hidden+oracle-calls',
  'visible+hidden+oracle-pytest',
  'visible+hidden',
  'harbor-verifier+oracle-calls',
  'harbor-verifier',
] as const;
export type TrueSuccessBasis = (typeof TrueSuccessBases)[number];

/**
 * Inside the scoring: the strict grader's run (with the twins) and the audit's (the isolated oracle calls, or the
 * fallback pytest oracle), each from its container's claim or start to its removal; they run at once, so they overlap.
 */
export const ScoringPhases = z.object({ graderMs: z.number().min(0), auditMs: z.number().min(0) });
export type ScoringPhases = z.infer<typeof ScoringPhases>;

/** Where an episode's time went, measured by the workflow (milliseconds). */
export const EpisodeTimings = z.object({
  /** container start-up */
  acquireMs: z.number().min(0),
  /** all turns: inference and tool calls */
  turnsMs: z.number().min(0),
  /** the checker's test runs */
  scoringMs: z.number().min(0),
  /** stop probes (training only): grading at passed checks, kept off the episode's deadline */
  probeMs: z.number().min(0).optional(),
  /**
   * inside turnsMs, the turns' activities by phase (their TurnPhases summed); the rest of turnsMs is Temporal's round
   * trips between turns. Absent in episodes from before it was recorded.
   */
  turnPhases: TurnPhases.optional(),
  /** inside scoringMs: the grader's and the audit's runs (absent in episodes from before it was recorded) */
  scoringPhases: ScoringPhases.optional(),
});
export type EpisodeTimings = z.infer<typeof EpisodeTimings>;

/** No time spent yet (an episode that never started). */
export const emptyTimings = (): EpisodeTimings => ({ acquireMs: 0, turnsMs: 0, scoringMs: 0 });

/**
 * A stop point: turn `turn` checked a repository that an earlier action of the action language had
 * changed (the agent interface's actionKind), so the next action chose between `submit` and
 * going on. For a constrained token-level policy these are the only states where it may submit.
 */
export const StopRecord = z.object({
  turn: z.number().int().min(0),
  /** the check exited 0 */
  passed: z.boolean(),
  /** the next action was `submit` */
  submitted: z.boolean(),
  /** the reward of submitting at this point: probed for passed checks when asked, else null */
  probe: z.number().nullable(),
});
export type StopRecord = z.infer<typeof StopRecord>;

/** How an episode ended: what `rolloutEpisode` returns and reports to its run. */
export const EpisodeResult = z.object({
  workflowId: z.string(),
  /** the key of the episode's records: the workflow id with its first run id ({@link episodeIdOf}) */
  episodeId: z.string(),
  runId: z.string(),
  taskId: z.string(),
  policyVersion: z.string(),
  checker: z.enum(CheckerKinds),
  outcome: z.enum(Object.values(Outcomes) as [Outcome, ...Outcome[]]),
  /** by the chosen checker; null for environment failures */
  reward: z.number().nullable(),
  /**
   * the independent audit's verdict (the isolated oracle calls, or the fallback pytest oracle); null when nothing
   * independent audited the episode (a task without an oracle: unaudited, never the reward copied) or none ran
   */
  trueSuccess: z.boolean().nullable(),
  trueSuccessBasis: z.enum(TrueSuccessBases).nullable(),
  tamper: z.array(TamperFinding),
  counters: EpisodeCounters,
  trajectoryUri: z.string(),
  scoringUri: z.string().nullable(),
  error: z.string().nullable(),
  timings: EpisodeTimings,
  /** the episode's stop points in turn order (absent in results from before they were recorded) */
  stops: z.array(StopRecord).optional(),
  /** the policy versions its turns sampled, in order of first use (absent in results from before they were recorded) */
  policyVersions: z.array(z.string()).optional(),
  /** how many times it parked (absent: never) */
  parks: z.number().int().min(0).optional(),
  /**
   * the sandbox hosts (worker host ids) it ran on, in order; empty when no sandbox was acquired (absent in older
   * results)
   */
  hosts: z.array(z.string()).optional(),
  /** a Harbor verifier's other figures: reward.json's numeric keys besides `reward` (absent: none) */
  metrics: z.record(z.string(), z.number()).optional(),
});
export type EpisodeResult = z.infer<typeof EpisodeResult>;

/**
 * The key of an episode's records: its workflow id with its first run id (stable across continue-as-new, new for a
 * reused id).
 */
export function episodeIdOf(workflowId: string, firstExecutionRunId: string): string {
  return `${workflowId}@${firstExecutionRunId}`;
}

/** The episode id of a workflow that failed or never started (no run of it wrote records). */
export function failedEpisodeIdOf(workflowId: string): string {
  return `${workflowId}@failed`;
}

/**
 * The one result of an episode that ended as an environment failure outside its own turns: a
 * child that failed as a workflow, one that could not be started, or the workflow's own failure
 * reported to its run. Never trained on (no reward, no true success).
 */
export function failedEpisodeResult(fields: {
  workflowId: string;
  episodeId: string;
  runId: string;
  taskId: string;
  checker: CheckerKind;
  outcome: typeof Outcomes.policyError | typeof Outcomes.sandboxCrash;
  error: string;
  counters?: EpisodeCounters;
}): EpisodeResult {
  const { counters, ...rest } = fields;
  return {
    ...rest,
    policyVersion: '',
    reward: null,
    trueSuccess: null,
    trueSuccessBasis: null,
    tamper: [],
    counters: counters ?? emptyCounters(),
    trajectoryUri: '',
    scoringUri: null,
    timings: emptyTimings(),
  };
}

/** A parked episode's tree in the store (activities/sandbox/archive/tree-snapshot.ts). */
export const TreeSnapshotRef = z.object({
  ref: z.string(),
  digest: z.string(),
  entries: z.number().int().min(0),
  bytes: z.number().int().min(0),
  root: z.object({ mode: z.number().int(), uid: z.number().int(), gid: z.number().int() }),
});

/**
 * What an episode carries across continue-as-new: ids, counters and small summaries only; validated
 * when the next run starts.
 */
export const EpisodeState = z.object({
  task: TaskSummary,
  policy: PolicySummary,
  sandbox: SandboxHandle,
  counters: EpisodeCounters,
  deadlineAtMs: z.number(),
  /** absent in episodes started before timings were recorded */
  timings: EpisodeTimings.optional(),
  stops: z.array(StopRecord).optional(),
  /** an action of the action language changed the repository */
  changed: z.boolean().optional(),
  /** the policy versions its turns sampled, in order of first use */
  versions: z.array(z.string()).optional(),
  /** the sandbox hosts it ran on, in order (a parked episode may resume on another); absent in older states */
  hosts: z.array(z.string()).optional(),
  /** the segment budget in force (absent: never park) */
  segment: z
    .lazy(() => SegmentBudget)
    .nullable()
    .optional(),
  /** the current segment: its number (0 first), and the turns and acting time spent in it */
  segmentState: z
    .object({ index: z.number().int().min(0), turns: z.number().int().min(0), actedMs: z.number().min(0) })
    .optional(),
  parks: z.number().int().min(0).optional(),
  /** a harness episode: its launches, the calls of its trajectory (records and request digests), its replays */
  harness: z
    .object({
      launches: z.number().int().min(0),
      calls: z.array(z.object({ ref: z.string(), digest: z.string() })),
      /** requests a relaunched harness made that were answered from the record */
      replayed: z.number().int().min(0),
      /** where a relaunched harness asked something else than the record (the record from there was dropped) */
      divergences: z.array(z.object({ launch: z.number().int().min(0), at: z.number().int().min(0) })),
      discarded: z.number().int().min(0),
      /** new segments by reason (activities/gateway/calls.ts SegmentStarts) */
      segmentStarts: z.record(z.string(), z.number().int().min(0)),
    })
    .optional(),
  /** while parked: the tree's snapshot and the acting time left of the deadline */
  /** (a harness episode keeps no snapshot: its resume replays the harness from the task's starting tree) */
  parked: z
    .object({ snapshot: TreeSnapshotRef.optional(), actingLeftMs: z.number().min(0), atMs: z.number() })
    .optional(),
});
export type EpisodeState = z.infer<typeof EpisodeState>;

export interface EpisodeProgress {
  phase: 'preparing' | 'acquiring' | 'running' | 'parking' | 'parked' | 'resuming' | 'scoring' | 'releasing';
  taskId: string | null;
  counters: EpisodeCounters;
  /** whether a segment budget is in force (without one the episode never parks), and how often it parked */
  segmented?: boolean;
  parks?: number;
  /** the sandbox host (worker host id) it runs on, or last ran on while parked */
  host?: string;
}

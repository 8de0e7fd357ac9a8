import { z } from 'zod';
import { defaultChatSystemPrompt } from './chat/tool-format';
import { durationMs } from './duration';
import { ObservationModes } from './model-context';
import type { Outcome } from './outcomes';
import type { PolicySpecKind } from './policy-spec';

/** The bundled example that `rolloutEpisode` runs when started with `{}`. */
export const defaultExample = {
  task: 'tasks/wrong-comparison',
  policy: 'scripted:examples/policies/wrong-comparison/fix.jsonl',
} as const;

/** Limits used when neither the episode input nor the task sets one. */
export const defaultLimits = { maxTurns: 50, maxTokens: 262_144 } as const;

export const CheckerKinds = ['strict', 'weak'] as const;
export type CheckerKind = (typeof CheckerKinds)[number];

/** Budgets of one episode; each limit ends the episode with its own outcome. */
export const EpisodeBudgets = z.object({
  /** @default the task's budget, else {@link defaultLimits}.maxTurns */
  maxTurns: z.number().int().positive().optional(),
  /** prompt + actions + observations, counted by the tokenizer; @default the task's budget, else {@link defaultLimits}.maxTokens */
  maxTokens: z.number().int().positive().optional(),
  /** wall-clock deadline of the whole episode, from its first turn */
  deadlineMs: durationMs.default(600_000),
  /** per tool call; the whole process group is killed when it runs out */
  toolTimeoutMs: durationMs.default(60_000),
  /** an observation longer than this is cut, and the cut is stated */
  maxObservationBytes: z.number().int().min(256).default(16_384),
  /** the test run of the checker; a timeout scores 0 */
  testTimeoutMs: durationMs.default(300_000),
});
export type EpisodeBudgets = z.infer<typeof EpisodeBudgets>;

/** Activity timeouts the workflow uses; each one has a reason next to its use. */
export const EpisodeTimeouts = z.object({
  /** how long a host-bound activity may wait for its host's worker before the sandbox counts as lost */
  hostScheduleToStartMs: durationMs.default(60_000),
  heartbeatMs: durationMs.default(10_000),
  acquireMs: durationMs.default(120_000),
});

/** How a chat policy talks: the chat agent interface (shared/chat/tool-format.ts, activities/policies/chat/). */
export const ChatOptions = z
  .object({
    /** a family of shared/chat/families.json (smollm2-135m-instruct, qwen3) or a directory with tokenizer.json and tokenizer_config.json */
    tokenizer: z.string().min(1).default('smollm2-135m-instruct'),
    /** the most tokens one turn may generate; a turn cut there is a tool error that says so */
    maxActionTokens: z.number().int().min(1).default(512),
    systemPrompt: z.string().default(defaultChatSystemPrompt),
    /** tokens: policies: the context window; @default the tokenizer's model_max_length (a served model states its own) */
    window: z.number().int().min(16).optional(),
  })
  .strict();
export type ChatOptions = z.infer<typeof ChatOptions>;

/** How a token-level policy (completions:, demo:, random:) samples and what it reads; scripted policies ignore it. */
export const SamplingOptions = z.object({
  /** vLLM's temperature; the behaviour log-probs are those of the tempered distribution */
  temperature: z.number().positive().default(1),
  /** with the episode id and the turn it seeds every draw: a retried turn samples the same action */
  seed: z.number().int().min(0).default(0),
  /**
   * `blank`: the model reads empty observations, and the constraint learns the source from `show`
   * and the policy's own edits but never from a test result (`locate`'s ranking): an ablation
   */
  observations: z.enum(ObservationModes).default('full'),
  /** limit every action to the action language's commands and the edits valid for the source shown so far */
  constrained: z.boolean().default(true),
  maxActionTokens: z.number().int().min(2).default(32),
  /** a longer observation is cut for the model, and the cut is marked */
  maxObservationTokens: z.number().int().min(8).default(160),
  maxPromptTokens: z.number().int().min(8).default(48),
  /** context window of in-process policies (demo:, random:); a served model states its own */
  window: z.number().int().min(16).default(512),
  /** chat policies (tokens:, vllm:, sglang:): the model family's tokenizer and template, and the turn budget */
  chat: ChatOptions.prefault({}),
});
export type SamplingOptions = z.infer<typeof SamplingOptions>;

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
    /** a parked episode not resumed within this time ends as `abandoned`; @default {@link defaultParkTtlMs} (a resume's segment without it keeps the one in force) */
    parkTtlMs: durationMs.optional(),
  })
  .strict()
  .refine((segment) => segment.maxTurns !== undefined || segment.maxMs !== undefined, { message: 'a segment needs maxTurns or maxMs' });
export type SegmentBudget = z.infer<typeof SegmentBudget>;

/**
 * What resumes a parked episode (the `resume` signal: the Temporal UI, `npx agentrl episode resume`,
 * or its training run). A resume that arrives before the episode parks is kept and applies at the park.
 */
export const ResumeRequest = z
  .object({
    /** the version to sample from now on (a completions policy) */
    policyVersion: z.string().min(1).optional(),
    /** sample the version its policy server serves now (ignored when policyVersion is given) */
    newest: z.boolean().default(false),
    /** the segment budget from now on; null: none (the episode runs to its end); absent: unchanged */
    segment: SegmentBudget.nullable().optional(),
  })
  .strict();
export type ResumeRequest = z.infer<typeof ResumeRequest>;

/** The signals an episode takes, and the one it sends the run that started it (`reportTo`). */
export const episodeSignalNames = {
  /** ResumeRequest */
  resume: 'resume',
  /** {version}: sample this version from the next turn on (a run with versionSwitch "turn") */
  usePolicyVersion: 'usePolicyVersion',
  /** {reason}: a parked episode ends as `abandoned` (at once, or when it parks) */
  release: 'release',
  /** sent to the reporting run: EpisodeEvent */
  episodeEvent: 'episodeEvent',
} as const;

/** What an episode tells the run that started it: that it parked, resumed or finished (with its result). */
export type EpisodeEvent =
  | { kind: 'parked'; workflowId: string; version: string; turns: number }
  | { kind: 'resumed'; workflowId: string; version: string }
  | { kind: 'finished'; workflowId: string; result: EpisodeResult };

/** Input of `rolloutEpisode`: every field has a default, so `{}` runs a bundled example. */
export const EpisodeInput = z.object({
  task: z.string().min(1).default(defaultExample.task),
  policy: z.string().min(1).default(defaultExample.policy),
  checker: z.enum(CheckerKinds).default('strict'),
  sampling: SamplingOptions.default(SamplingOptions.parse({})),
  /** groups episodes of one training run or command invocation */
  runId: z.string().min(1).default('adhoc'),
  budgets: EpisodeBudgets.default(EpisodeBudgets.parse({})),
  timeouts: EpisodeTimeouts.default(EpisodeTimeouts.parse({})),
  /**
   * grade the state at every stop point whose check passed with the run's checker (no audit), so
   * that training can credit the decision to submit or go on (`stopCredit` of a training run)
   */
  probeStops: z.boolean().default(false),
  /** continue as new after this many turns in one run (0: only when the server suggests it) */
  continueAsNewEveryTurns: z.number().int().min(0).default(0),
  /** park after each segment of this budget (absent: never park) */
  segment: SegmentBudget.optional(),
  /** the workflow id of a training run told when this episode parks, resumes and finishes */
  reportTo: z.string().min(1).optional(),
  /** state carried across continue-as-new; never set by callers */
  resume: z.custom<EpisodeState>().optional(),
}).strict();
export type EpisodeInput = z.infer<typeof EpisodeInput>;

/** What the workflow knows of its task: ids and small fields only. */
export interface TaskSummary {
  id: string;
  /** artifact reference of the task snapshot (repository, hidden and oracle files) */
  snapshotRef: string;
  image: string;
  testCommand: string;
  protectedPaths: string[];
  hasOracle: boolean;
  promptTokens: number;
  /** artifact reference of the prompt text */
  promptRef: string;
  maxTurns?: number;
  maxTokens?: number;
}

/** The kinds of policy an episode can run (shared/policy-spec.ts; an `.onnx` file is served first, as `completions:`). */
export type PolicyKind = Exclude<PolicySpecKind, 'onnx'>;

/** The policy, resolved to an immutable artifact or endpoint. */
export interface PolicySummary {
  spec: string;
  kind: PolicyKind;
  /** artifact reference of the policy's snapshot: a script, or an endpoint with its sampling options */
  ref: string;
  version: string;
}

/** A started container and the host whose queue runs every later activity on it. */
export interface SandboxHandle {
  hostId: string;
  containerId: string;
  containerName: string;
  volumes: string[];
}

export interface EpisodeCounters {
  turns: number;
  toolCalls: number;
  toolErrors: number;
  truncatedOutputs: number;
  toolTimeouts: number;
  tokens: number;
  turnLimitHits: number;
  tokenLimitHits: number;
  deadlineHits: number;
  /** chat policies: training samples started anew where the chat template broke the exact-prefix property (absent in older results) */
  contextSplits?: number;
}

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
export const TurnStatuses = ['ok', 'tool_error', 'submitted', 'agent_crash', 'sandbox_crash', 'policy_error', 'token_limit'] as const;
export type TurnStatus = (typeof TurnStatuses)[number];

/** What the workflow learns of a turn: a small summary; the texts are in the artifact store. */
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
});
export type TurnSummary = z.infer<typeof TurnSummary>;

/** Basis of `trueSuccess`: the oracle tests when the task has them, else the hidden tests alone. */
/**
 * What true success rests on: the isolated oracle calls (sound by construction), the fallback pytest
 * oracle run in the candidate's process (detected, not sound), or the visible and hidden tests only.
 */
export type TrueSuccessBasis = 'visible+hidden+oracle-calls' | 'visible+hidden+oracle-pytest' | 'visible+hidden';

/** Where an episode's time went, measured by the workflow (milliseconds). */
export interface EpisodeTimings {
  /** container start-up */
  acquireMs: number;
  /** all turns: inference and tool calls */
  turnsMs: number;
  /** the checker's test runs */
  scoringMs: number;
  /** stop probes (training only): grading at passed checks, kept off the episode's deadline */
  probeMs?: number;
}

export interface EpisodeResult {
  workflowId: string;
  /** the key of the episode's records: the workflow id with its first run id */
  episodeId: string;
  runId: string;
  taskId: string;
  policyVersion: string;
  checker: CheckerKind;
  outcome: Outcome;
  /** by the chosen checker; null for environment failures */
  reward: number | null;
  /** solution-independent audit; null when no audit ran */
  trueSuccess: boolean | null;
  trueSuccessBasis: TrueSuccessBasis | null;
  tamper: TamperFinding[];
  counters: EpisodeCounters;
  trajectoryUri: string;
  scoringUri: string | null;
  error: string | null;
  timings: EpisodeTimings;
  /** the episode's stop points in turn order (absent in results from before they were recorded) */
  stops?: StopRecord[];
  /** the policy versions its turns sampled, in order of first use (absent in results from before they were recorded) */
  policyVersions?: string[];
  /** how many times it parked (absent: never) */
  parks?: number;
}

/**
 * A stop point: turn `turn` checked a repository that an earlier action of the action language had
 * changed (the agent interface's actionKind), so the next action chose between `submit` and
 * going on. For a constrained token-level policy these are the only states where it may submit.
 */
export interface StopRecord {
  turn: number;
  /** the check exited 0 */
  passed: boolean;
  /** the next action was `submit` */
  submitted: boolean;
  /** the reward of submitting at this point: probed for passed checks when asked, else null */
  probe: number | null;
}

/** What an episode carries across continue-as-new: ids, counters and small summaries only. */
export interface EpisodeState {
  task: TaskSummary;
  policy: PolicySummary;
  sandbox: SandboxHandle;
  counters: EpisodeCounters;
  deadlineAtMs: number;
  /** absent in episodes started before timings were recorded */
  timings?: EpisodeTimings;
  stops?: StopRecord[];
  /** an action of the action language changed the repository */
  changed?: boolean;
  /** the policy versions its turns sampled, in order of first use */
  versions?: string[];
  /** the segment budget in force (absent: never park) */
  segment?: SegmentBudget | null;
  /** the current segment: its number (0 first), and the turns and acting time spent in it */
  segmentState?: { index: number; turns: number; actedMs: number };
  parks?: number;
  /** while parked: the tree's snapshot and the acting time left of the deadline */
  parked?: { snapshot: { ref: string; digest: string; entries: number; bytes: number; root: { mode: number; uid: number; gid: number } }; actingLeftMs: number; atMs: number };
}

/** The name of the episode's progress query (the CLI's progress lines, the UI's Queries tab). */
export const progressQueryName = 'progress';

export interface EpisodeProgress {
  phase: 'preparing' | 'acquiring' | 'running' | 'parking' | 'parked' | 'resuming' | 'scoring' | 'releasing';
  taskId: string | null;
  counters: EpisodeCounters;
  /** whether a segment budget is in force (without one the episode never parks), and how often it parked */
  segmented?: boolean;
  parks?: number;
}

/** What starts an episode: its input, with budgets, timeouts and sampling; and what resumes a parked one. */
import { z } from 'zod';
import { defaultChatSystemPrompt } from '../chat/tool-format';
import { durationMs } from '../math/duration';
import { CheckerKinds, EpisodeState, SegmentBudget } from './episode';
import { ObservationModes } from './model-context';

/** The bundled example that `rolloutEpisode` runs when started with `{}`. */
export const defaultExample = {
  task: 'tasks/wrong-comparison',
  policy: 'scripted:examples/policies/wrong-comparison/fix.jsonl',
} as const;

/** Limits used when neither the episode input nor the task sets one. */
export const defaultLimits = { maxTurns: 50, maxTokens: 262_144 } as const;

/** Budgets of one episode; each limit ends the episode with its own outcome. */
export const EpisodeBudgets = z.object({
  /** @default the task's budget, else {@link defaultLimits}.maxTurns */
  maxTurns: z.number().int().positive().optional(),
  /**
   * prompt + actions + observations, counted by the tokenizer; @default the task's budget, else {@link
   * defaultLimits}.maxTokens
   */
  maxTokens: z.number().int().positive().optional(),
  /** wall-clock deadline of the whole episode, from its first turn */
  deadlineMs: durationMs.default(600_000),
  /** per tool call; the whole process group is killed when it runs out */
  toolTimeoutMs: durationMs.default(60_000),
  /** an observation longer than this is cut, and the cut is stated */
  maxObservationBytes: z.number().int().min(256).default(16_384),
  /** the test run of the checker; a timeout scores 0 */
  testTimeoutMs: durationMs.default(300_000),
  /**
   * a harness that neither calls the model nor exits for this long is stopped: `harness_failed` (it hung); before its
   * first request it has at least 2 minutes to start
   */
  harnessIdleMs: durationMs.default(300_000),
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
    /**
     * a family of shared/chat/families.json (smollm2-135m-instruct, qwen3) or a directory with tokenizer.json and
     * tokenizer_config.json
     */
    tokenizer: z.string().min(1).default('smollm2-135m-instruct'),
    /** the most tokens one turn may generate; a turn cut there is a tool error that says so */
    maxActionTokens: z.number().int().min(1).default(512),
    systemPrompt: z.string().default(defaultChatSystemPrompt),
    /**
     * tokens: policies: the context window; @default the tokenizer's model_max_length (a served model states its own)
     */
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

/** Input of `rolloutEpisode`: every field has a default, so `{}` runs a bundled example. */
export const EpisodeInput = z
  .object({
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
    /**
     * an agent harness (shared/harnesses.json) run unmodified in the sandbox, calling the policy through the model
     * gateway; absent: the policy's own agent interface takes the turns
     */
    harness: z.string().min(1).optional(),
    /** the workflow id of a training run told when this episode parks, resumes and finishes */
    reportTo: z.string().min(1).optional(),
    /** state carried across continue-as-new; never set by callers */
    resume: z.lazy(() => EpisodeState).optional(),
  })
  .strict();
export type EpisodeInput = z.infer<typeof EpisodeInput>;

/**
 * Every message a workflow takes: the signals, queries and updates of `rolloutEpisode` and `trainingRun`,
 * each defined once with its payload schema. Senders (the CLI, the training run, tests, benches)
 * and handlers use these objects, never a name: a name appears only here, and it is part of the
 * workflows' history (renaming one breaks the replay of running workflows).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { describeIssues } from '../shared/names/errors';
import { EpisodeResult, type EpisodeProgress } from '../shared/contracts/episode';
import { type ResumeRequest } from '../shared/contracts/episode-input';
import type { TrainingProgress } from '../shared/contracts/run/progress';

/** Where an episode is: answered from workflow state (the CLI's progress lines, the UI's Queries tab). */
export const episodeProgressQuery = defineQuery<EpisodeProgress>('progress');

/**
 * Resumes a parked episode (kept when it comes before the park); the UI sends it with a JSON
 * {@link ResumeRequest}. Its payload is validated by the handler: a malformed one is logged and ignored.
 */
export const resumeSignal = defineSignal<[z.input<typeof ResumeRequest>]>('resume');

/** The payload of {@link usePolicyVersionSignal}. */
export const UsePolicyVersion = z.object({ version: z.string().min(1) }).strict();
/** From the next turn on, a completions policy samples this version (a run's `versionSwitch: "turn"`). */
export const usePolicyVersionSignal = defineSignal<[z.input<typeof UsePolicyVersion>]>('usePolicyVersion');

/** The payload of {@link releaseSignal}. */
export const Release = z.object({ reason: z.string() }).strict();
/** Ends a parked episode as `abandoned` (at once, or at its next park). */
export const releaseSignal = defineSignal<[z.input<typeof Release>]>('release');

/**
 * What an episode tells the run that started it (`reportTo`): that it parked, resumed or finished (with its result).
 */
export const EpisodeEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('parked'), workflowId: z.string(), version: z.string(), turns: z.number().int().min(0) }),
  z.object({ kind: z.literal('resumed'), workflowId: z.string(), version: z.string() }),
  z.object({ kind: z.literal('finished'), workflowId: z.string(), result: EpisodeResult }),
]);
export type EpisodeEvent = z.infer<typeof EpisodeEvent>;
/** The signal a training run takes from its episodes. */
export const episodeEventSignal = defineSignal<[EpisodeEvent]>('episodeEvent');

/**
 * The payload of {@link modelCallUpdate}: the session (`<episode id>#<launch>`), the stored request (the one request
 * form of shared/contracts/gateway.ts) and its digest, which replay compares.
 */
export const ModelCall = z.object({
  session: z.string().min(1),
  requestRef: z.string().min(1),
  digest: z.string().min(1),
});
export type ModelCall = z.infer<typeof ModelCall>;

/** What the episode answers a model call: the call's record, or a refusal in the gateway's error terms. */
export type ModelCallAnswer =
  { callRef: string; replayed: boolean } | { refused: { status: number; type: string; message: string } };

/**
 * One model call of a harness, sent by the model gateway (serving/gateway/server.ts) with the update id
 * `<session>:<request number>`, so a request the gateway sends twice is answered once. The validator refuses a call of
 * a session that is not the episode's live one (an old launch, another episode, an episode that has ended).
 */
export const modelCallUpdate = defineUpdate<ModelCallAnswer, [ModelCall]>('modelCall');

/** Where a training run is: phase, iteration, episodes done, the last iteration's metrics. */
export const trainingProgressQuery = defineQuery<TrainingProgress>('trainingProgress');

/**
 * Parses a signal's payload; a malformed one yields null and the reason (the handler logs it and
 * ignores the signal, since a signal has no caller to answer).
 */
export function parsePayload<T extends z.ZodType>(
  schema: T,
  raw: unknown,
): { ok: true; value: z.infer<T> } | { ok: false; error: string } {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  // the one formatting of zod issues (shared/names/errors.ts), as every bad input is described
  return { ok: false, error: describeIssues('payload', parsed.error) };
}

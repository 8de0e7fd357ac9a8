import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PolicyMemory } from '../../shared/compact-actions/action-space';
import { TamperFinding, TurnStatuses } from '../../shared/contracts/episode';
import { ModelContext } from '../../shared/contracts/model-context';
import { type ArtifactStore } from './artifact-store';
import { parseJson } from './files';

/**
 * The episode records in the artifact store, and their one owner: every record of an episode is
 * named, written, read and parsed here.
 *
 *   episodes/<key>/turns/<turn>.json      a turn: the action, the observation, the model's context (TurnRecord)
 *   episodes/<key>/probes/<turn>.json     the grade of a stop point's state (ScoringRecord)
 *   episodes/<key>/scoring.json           the checker's and the audit's runs (ScoringRecord)
 *   episodes/<key>/trajectory.jsonl       the turns as text, one line each (TrajectoryLine)
 *
 * Texts, token ids, log-probs and contexts are content-addressed blobs the records reference.
 */

/** The folder key of an episode: workflow ids may hold characters a path cannot. */
export function episodeKey(episodeId: string): string {
  const readable = episodeId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  return `${readable}-${createHash('sha256').update(episodeId).digest('hex').slice(0, 12)}`;
}

const turnFile = (turn: number) => `${String(turn).padStart(6, '0')}.json`;
const folder = (episodeId: string) => `episodes/${episodeKey(episodeId)}`;

/** A token-level policy's state after a turn: its whole context (ids, masks, log-probs) and memory. */
export const ModelRecord = z.object({
  /** the ModelContext after the turn's observation */
  contextRef: z.string(),
  memory: PolicyMemory,
  tokens: z.number().int(),
  /** time spent sampling the action (0 when a retry found it in the journal) */
  inferenceMs: z.number(),
  /**
   * chat policies: the conversation so far, and the training samples closed where the chat
   * template broke the exact-prefix property (each a ModelContext reference; the current sample
   * is `contextRef`)
   */
  chat: z.object({ messagesRef: z.string(), samples: z.array(z.string()) }).optional(),
});
export type ModelRecord = z.infer<typeof ModelRecord>;

export const TurnRecord = z.object({
  turn: z.number().int().min(0),
  policyVersion: z.string(),
  status: z.enum(TurnStatuses),
  action: z.object({
    ref: z.string(),
    tool: z.string().nullable(),
    tokenIdsRef: z.string(),
    logprobsRef: z.string(),
    tokens: z.number().int(),
  }),
  observation: z.object({
    ref: z.string(),
    tokens: z.number().int(),
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
    truncated: z.boolean(),
  }),
  durationMs: z.number(),
  model: ModelRecord.optional(),
});
export type TurnRecord = z.infer<typeof TurnRecord>;

/** What the checker recorded: its runs' reports are kept as the harness wrote them. */
export const ScoringRecord = z.object({
  checker: z.enum(['strict', 'weak']).optional(),
  /** a probe: the turn whose state was graded */
  probeTurn: z.number().int().optional(),
  reward: z.number().optional(),
  trueSuccess: z.boolean().nullable().optional(),
  tamper: z.array(TamperFinding).optional(),
  changes: z
    .array(z.object({ path: z.string(), status: z.string(), protected: z.boolean(), symlink: z.boolean() }))
    .optional(),
  strict: z.unknown().optional(),
  audit: z.unknown().optional(),
  weak: z.unknown().optional(),
  dropped: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
  /** a verifier's other figures: reward.json's numeric keys besides `reward` */
  metrics: z.record(z.string(), z.number()).optional(),
  /**
   * the canary twins of this grading (how many, the plan's survival bound, those that did not fail); the map itself is
   * not kept
   */
  twins: z
    .object({
      total: z.number().int(),
      survival: z.number(),
      /** the bound over the tests that decide the task, with this grading's twins (null: not recorded for the task) */
      bound: z.number().nullable().optional(),
      uncovered: z.array(z.string()),
      notFailed: z.array(z.object({ id: z.string(), outcome: z.string() })),
    })
    .nullable()
    .optional(),
  /** the agent's tree could not be read (e.g. larger than its volume) */
  error: z.string().optional(),
});
export type ScoringRecord = z.infer<typeof ScoringRecord>;

/** One line of trajectory.jsonl. */
export interface TrajectoryLine {
  turn: number;
  policyVersion: string;
  status: string;
  action: string;
  observation: string;
  actionTokens: number;
  observationTokens: number;
  actionTokenIdsRef: string;
  logprobsRef: string;
}

/** Reads and writes the records of episodes in a store. */
export function createEpisodeRecords(store: ArtifactStore) {
  const records = {
    /** Writes a turn's record (a retry of the turn replaces it). */
    async writeTurn(episodeId: string, record: TurnRecord): Promise<string> {
      return store.writeNamed(
        `${folder(episodeId)}/turns/${turnFile(record.turn)}`,
        JSON.stringify(TurnRecord.parse(record)),
      );
    },

    async readTurn(episodeId: string, turn: number): Promise<TurnRecord | null> {
      const name = `${folder(episodeId)}/turns/${turnFile(turn)}`;
      const raw = await store.readNamed(name);
      return raw ? parseJson(TurnRecord, raw.toString('utf8'), name) : null;
    },

    /** Every recorded turn of an episode, in turn order. */
    async readTurns(episodeId: string): Promise<TurnRecord[]> {
      const prefix = `${folder(episodeId)}/turns`;
      const turns: TurnRecord[] = [];
      for (const name of await store.listNamed(prefix)) {
        turns.push(
          parseJson(TurnRecord, (await store.readNamed(`${prefix}/${name}`))!.toString('utf8'), `${prefix}/${name}`),
        );
      }
      return turns;
    },

    async putContext(context: ModelContext): Promise<string> {
      return store.putJson(context);
    },

    async readContext(ref: string): Promise<ModelContext> {
      return store.getJson(ref, ModelContext);
    },

    /**
     * The context of an episode's last turn that has one, the inference time of all its turns, and
     * (chat policies) the training samples closed before it; null when no turn has one.
     */
    async lastContext(
      episodeId: string,
    ): Promise<{ context: ModelContext; inferenceMs: number; closedSamples: string[] } | null> {
      let last: ModelRecord | null = null;
      let inferenceMs = 0;
      for (const turn of await records.readTurns(episodeId)) {
        if (!turn.model) continue;
        last = turn.model;
        inferenceMs += turn.model.inferenceMs;
      }
      return last
        ? { context: await records.readContext(last.contextRef), inferenceMs, closedSamples: last.chat?.samples ?? [] }
        : null;
    },

    /** Writes the checker's record of a submission, or of a probe at `probeTurn`; returns its path. */
    async writeScoring(episodeId: string, record: ScoringRecord): Promise<string> {
      const name =
        record.probeTurn === undefined
          ? `${folder(episodeId)}/scoring.json`
          : `${folder(episodeId)}/probes/${turnFile(record.probeTurn)}`;
      return store.writeNamed(name, JSON.stringify(ScoringRecord.parse(record), null, 1));
    },

    /** Writes the trajectory as JSONL, one line per turn with the action and observation texts; returns its path. */
    async writeTrajectory(episodeId: string): Promise<string> {
      const lines: string[] = [];
      for (const record of await records.readTurns(episodeId)) {
        const line: TrajectoryLine = {
          turn: record.turn,
          policyVersion: record.policyVersion,
          status: record.status,
          action: (await store.getBlob(record.action.ref)).toString('utf8'),
          observation: (await store.getBlob(record.observation.ref)).toString('utf8'),
          actionTokens: record.action.tokens,
          observationTokens: record.observation.tokens,
          actionTokenIdsRef: record.action.tokenIdsRef,
          logprobsRef: record.action.logprobsRef,
        };
        lines.push(JSON.stringify(line));
      }
      return store.writeNamed(`${folder(episodeId)}/trajectory.jsonl`, lines.length ? `${lines.join('\n')}\n` : '');
    },
  };
  return records;
}

/** The activity that needs no sandbox: the trajectory file. */
export function createEpisodeRecordActivities(deps: { store: ArtifactStore }) {
  const records = createEpisodeRecords(deps.store);
  return {
    /** Writes the trajectory as JSONL, one line per turn with the action and observation texts. */
    /** `outcome`: the episode's, for the worker's metrics (workers/metrics.ts); absent on a cancelled one */
    async writeTrajectory(input: { episodeId: string; outcome?: string }): Promise<string> {
      return records.writeTrajectory(input.episodeId);
    },
  };
}

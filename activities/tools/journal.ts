import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TurnSummary } from '../../shared/contracts/episode';
import { PolicyAction } from '../policies/policy-action';
import { atomicWrite, parseJson } from '../store/files';
import { episodeKey } from '../store/episode-records';

/**
 * A journal entry on the worker's host, outside every container: what a retried turn must not redo.
 * `started` is written before a tool call reaches the sandbox; an action with no side effect
 * (submit, a malformed call) goes straight to `done`.
 */
export const JournalEntry = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('started'), action: PolicyAction, nonce: z.string() }),
  z.object({ phase: z.literal('done'), summary: TurnSummary, nonce: z.string().optional() }),
]);
export type JournalEntry = z.infer<typeof JournalEntry>;

/** The tool-call journal of one host: a folder per episode, a file per turn. */
export function createJournal(journalDir: string) {
  const path = (episodeId: string, turn: number) =>
    join(journalDir, episodeKey(episodeId), `${String(turn).padStart(6, '0')}.json`);
  const journal = {
    /** The folder of an episode's entries (removed with its sandbox). */
    folder: (episodeId: string) => join(journalDir, episodeKey(episodeId)),

    async read(episodeId: string, turn: number): Promise<JournalEntry | null> {
      let text: string;
      try {
        text = await readFile(path(episodeId, turn), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      return parseJson(JournalEntry, text, path(episodeId, turn));
    },

    async write(episodeId: string, turn: number, entry: JournalEntry): Promise<void> {
      await atomicWrite(path(episodeId, turn), JSON.stringify(JournalEntry.parse(entry)));
    },

    /** Nonces of the latest earlier call whose result is journaled: its spool files can go. */
    async previousNonces(episodeId: string, turn: number): Promise<string[]> {
      for (let earlier = turn - 1; earlier >= Math.max(0, turn - 16); earlier--) {
        const entry = await journal.read(episodeId, earlier);
        if (entry?.phase === 'done' && entry.nonce) return [entry.nonce];
      }
      return [];
    },
  };
  return journal;
}

/** The settings only an asynchronous training run takes (`mode: "async"`, workflows/async-training.ts). */
import { z } from 'zod';
import { defaultMaxParked, defaultMaxStaleness } from '../../math/async-pool';
import { SegmentBudget } from '../episode';

export const AsyncSettings = z
  .object({
    /**
     * η, the staleness bound (in versions) of every trained token: admission pauses while the sampler is η steps
     * ahead of the trainer, and a group holding a token staler than η when its batch is cut is dropped (counted
     * as stale)
     */
    maxStaleness: z.number().int().min(0).default(defaultMaxStaleness),
    /** groups per trainer step; @default the run's tasksPerIteration */
    groupsPerStep: z.number().int().min(1).optional(),
    /**
     * `turn`: an episode in flight samples the newest published version from its next turn on; `episode`: it stays
     * on its first
     */
    versionSwitch: z.enum(['turn', 'episode']).default('turn'),
    /**
     * park training episodes after each segment of this budget; they resume on a newer version or when nothing else
     * can run
     */
    segment: SegmentBudget.optional(),
    /** at most this many parked episodes; beyond it the longest parked resumes at once */
    maxParked: z.number().int().min(1).default(defaultMaxParked),
  })
  .strict()
  .superRefine((settings, context) => {
    if (settings.segment && settings.maxStaleness === 0) {
      context.addIssue({
        code: 'custom',
        path: ['segment'],
        message:
          'segments with maxStaleness 0 are refused: a parked episode resumes on a newer version, whose ' +
          'tokens would be stale',
      });
    }
  });
export type AsyncSettings = z.infer<typeof AsyncSettings>;

/** What the async block's rules read of the rest of a run's input. */
interface AsyncRun {
  mode: 'sync' | 'async';
  async?: AsyncSettings | undefined;
  tasksPerIteration: number;
}

/**
 * The async block's rules across the input: a synchronous run takes no async block (it waits for every episode),
 * and a real model (`hfModel`: its name) runs synchronously.
 */
export function refineAsyncRun(input: AsyncRun, hfModel: string | null, context: z.RefinementCtx): void {
  if (input.mode === 'sync' && input.async !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['async'],
      message: 'only for mode "async" (a synchronous iteration waits for every episode)',
    });
  }
  if (input.mode === 'async' && hfModel) {
    // its embedded server (like vLLM and SGLang) serves one version: an episode pinned to one fails after a publish
    context.addIssue({
      code: 'custom',
      path: ['mode'],
      message:
        `mode "async" runs the toy model only; ${hfModel} trains with mode "sync" (its server serves ` +
        `one weight version at a time)`,
    });
  }
}

/** An asynchronous run's settings with every default applied (`groupsPerStep` defaults to `tasksPerIteration`). */
export function asyncSettingsOf(input: AsyncRun): AsyncSettings & { groupsPerStep: number } {
  const settings = input.async ?? AsyncSettings.parse({});
  return { ...settings, groupsPerStep: settings.groupsPerStep ?? input.tasksPerIteration };
}

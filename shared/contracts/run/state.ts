/** What a training run carries between iterations, across continue-as-new, and keeps in its folder's state.json. */
import { z } from 'zod';
import { AsyncPool } from '../../math/async-pool';
import { StoreRef } from '../../paths/store-refs';
import { readingRenamed } from '../renamed-fields';
import { IterationMetrics, RunTiming } from '../run-metrics';

/** A published policy: the trainer's step that made it (0: the initial weights). */
export const PublishedPolicy = readingRenamed(
  { onnxPath: 'policyRef', policyPath: 'policyRef' },
  z.object({ step: z.number().int().min(0), version: z.string(), policyRef: StoreRef }),
);
export type PublishedPolicy = z.infer<typeof PublishedPolicy>;

/** The run's state: ids and small summaries only. */
export const TrainingRunState = readingRenamed(
  { runDir: 'runRef' },
  z.object({
    /** the run's prefix in the artifact store (activities/training/run-records.ts) */
    runRef: StoreRef,
    trainTasks: z.array(z.string()),
    evalTasks: z.array(z.string()),
    /** the next iteration to run (0-based) */
    iteration: z.number().int().min(0),
    policy: PublishedPolicy,
    /** every published version with its step, so batches can number the versions of their tokens */
    versions: z.record(z.string(), z.number().int()),
    warmStarted: z.boolean(),
    /** the warm start's step, which `loss.klCoef` pulls toward (absent: no warm start, or a run from before it) */
    referenceStep: z.number().int().nullable().optional(),
    /** increases on every resumption, so re-run episodes get fresh workflow ids */
    epoch: z.number().int().min(0),
    /** workflow time when the run started (the time budget counts from it) */
    startedAtMs: z.number(),
    /** the metrics of the last completed iteration (the progress query shows them after continue-as-new) */
    last: IterationMetrics.nullable(),
    timing: RunTiming.optional(),
    /** an asynchronous run's episodes in flight and parked, carried across continue-as-new (never in state.json) */
    pool: AsyncPool.optional(),
  }),
);
export type TrainingRunState = z.infer<typeof TrainingRunState>;

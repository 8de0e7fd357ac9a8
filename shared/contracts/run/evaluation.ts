/** When and on what a training run evaluates its policy (never trained on). */
import { z } from 'zod';

export const EvaluationSettings = z
  .object({
    /**
     * a folder of task folders, relative to the project root, evaluated every `every` iterations and after the last
     * step; '' for none
     */
    tasks: z.string().default('tasks/suite/heldout'),
    /** samples per evaluation task */
    samples: z.number().int().min(1).default(1),
    /** evaluate before the steps of every Nth iteration (0: only after the last step) */
    every: z.number().int().min(0).default(0),
    /**
     * with a time budget, also evaluate before each of the last `tail − 1` iterations (estimated from the mean time
     * of the iterations so far), so that with the final evaluation the run ends with `tail` evaluations in a row;
     * 0 or 1: none
     */
    tail: z.number().int().min(0).default(0),
    /** at most this many evaluation tasks (the first ones by name); 0 for all */
    limit: z.number().int().min(0).default(4),
    /** also evaluate before the warm start (the warm start's line of metrics.jsonl, iteration -1, carries it) */
    beforeWarmStart: z.boolean().default(false),
  })
  .strict();
export type EvaluationSettings = z.infer<typeof EvaluationSettings>;

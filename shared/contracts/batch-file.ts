/**
 * The batch file: a safetensors file the batch writer (activities/training/batch-writer.ts) writes
 * and the trainer reads (trainer/agentrl_trainer/train_step.py `load_batch`). Its header, described
 * as `{ tensors: { NAME: { dtype, shape } }, metadata: { NAME: value } }` (metadata values are JSON
 * text in the file), is this schema; `npm run contracts` writes it to
 * shared/contracts/batch.schema.json, against which the trainer validates every batch it loads.
 * B is the number of rows (episodes), T the padded length, V the vocabulary, P the allowed patterns.
 */
import { z } from 'zod';
import { jsonSchemaOf } from './json-schema';

const tensor = (dtypes: readonly [string, ...string[]], rank: number, about: string) =>
  z
    .object({ dtype: z.enum(dtypes), shape: z.array(z.number().int().min(0)).length(rank) })
    .strict()
    .describe(about);

/** The tensors of a batch file: the trainer needs the first four. */
export const BatchFileTensors = z
  .object({
    input_ids: tensor(['I64'], 2, '(B, T) token ids, padded'),
    loss_mask: tensor(
      ['F32', 'U8', 'BOOL', 'I64'],
      2,
      '(B, T) 1 where the token is trained on (the policy wrote it), else 0; the writer writes F32',
    ),
    advantages: tensor(['F32'], 1, "(B,) each row's episode advantage"),
    behaviour_logprobs: tensor(['F32'], 2, '(B, T) the log-probs of the sampling policy at mask-1 tokens'),
    token_advantages: tensor(
      ['F32'],
      2,
      "(B, T) the advantage of each token: the episode's plus the stop credit",
    ).optional(),
    policy_versions: tensor(
      ['I64'],
      2,
      '(B, T) the step whose weights generated each token (-1: not generated)',
    ).optional(),
    rewards: tensor(['F32'], 1, "(B,) each row's reward (0 for a truncated episode): the critic's return").optional(),
    bootstrap: tensor(
      ['F32', 'U8', 'BOOL'],
      1,
      "(B,) 1 where a truncated episode's last state's value stands for the rest of its return (truncation bootstrap)",
    ).optional(),
    turn_ids: tensor(
      ['I64'],
      2,
      "(B, T) the turn of each action token, -1 elsewhere: the critic's turn boundaries",
    ).optional(),
    privileged: tensor(
      ['F32'],
      3,
      "(B, T, 2) a privileged critic's input at each token: [the latest stop point's grade is known, that grade]",
    ).optional(),
    environment_mask: tensor(
      ['F32', 'U8', 'BOOL'],
      2,
      '(B, T) the loss-mask ablation: 1 where a trained token is an observation ' +
        '(no behaviour log-prob: the trainer uses its own)',
    ).optional(),
    allowed_patterns: tensor(['BOOL'], 2, '(P, V) the distinct allowed-id masks; row 0 allows everything').optional(),
    allowed_index: tensor(['I64', 'I32'], 2, "(B, T) each token's row of allowed_patterns").optional(),
  })
  // other tensors are the sampler side's bookkeeping: any dtype, any rank
  .catchall(z.object({ dtype: z.string(), shape: z.array(z.number().int().min(0)) }).strict());

/** The metadata of a batch file (each value is JSON text in the file); the trainer needs none of it. */
export const BatchFileMetadata = z
  .object({
    episodeIds: z.array(z.string()).describe('the episode of each row'),
    groupIds: z.array(z.string()).describe("each row's advantage group"),
    rewards: z.array(z.number().nullable()).describe("each row's reward"),
    counts: z.record(z.string(), z.number().int().min(0)).describe('what the batch builder kept and dropped'),
    estimator: z.string(),
    truncation: z.string(),
    baseStep: z.number().int().min(0).describe('the step whose weights the trainer starts from'),
  })
  .partial()
  .catchall(z.unknown());

/** The header of a batch file. */
export const BatchFileHeader = z.object({ tensors: BatchFileTensors, metadata: BatchFileMetadata }).strict();
export type BatchFileHeader = z.infer<typeof BatchFileHeader>;

/** The JSON Schema of shared/contracts/batch.schema.json. */
export function batchFileSchemaDocument(): Record<string, unknown> {
  return {
    $comment: 'Generated from shared/contracts/batch-file.ts by `npm run contracts`; do not edit.',
    ...(jsonSchemaOf(BatchFileHeader) as Record<string, unknown>),
  };
}

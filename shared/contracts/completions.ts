import { z } from 'zod';

/**
 * The subset of vLLM's `/v1/completions` request that agentrl uses, with vLLM's names: prompts are
 * token ids (token in, token out: nothing is re-encoded), and the response carries the generated ids
 * and their log-probs. Any vLLM-compatible server answers the same request.
 */
export const CompletionRequest = z.object({
  model: z.string().optional(),
  prompt: z.union([z.array(z.number().int().min(0)).min(1), z.array(z.array(z.number().int().min(0)).min(1)).min(1)], {
    error: 'prompt must be token ids (an array of integers, or an array of such arrays); text prompts are not accepted',
  }),
  max_tokens: z.number().int().min(1).default(16),
  /** 0 means greedy decoding */
  temperature: z.number().min(0).default(1),
  top_p: z
    .literal(1, { error: 'only top_p = 1 is supported: a truncated distribution would have to reach the trainer' })
    .default(1),
  n: z.number().int().min(1).max(64).default(1),
  seed: z.number().int().optional(),
  stop_token_ids: z.array(z.number().int().min(0)).default([]),
  /** vLLM: the number of top log-probs per token; any value returns the sampled tokens' log-probs */
  logprobs: z.number().int().min(0).nullable().optional(),
  return_token_ids: z.boolean().default(true),
  allowed_token_ids: z.array(z.number().int().min(0)).optional(),
});
export type CompletionRequest = z.infer<typeof CompletionRequest>;

/** One choice of a completion, as the embedded server writes it and as vLLM answers (with `return_token_ids`). */
export const CompletionChoice = z.object({
  index: z.number().int(),
  text: z.string(),
  logprobs: z
    .object({
      tokens: z.array(z.string()),
      token_logprobs: z.array(z.number()),
      top_logprobs: z.unknown(),
      text_offset: z.array(z.number()),
    })
    .nullable(),
  finish_reason: z.string().nullable(),
  stop_reason: z.union([z.number(), z.string()]).nullable(),
  token_ids: z.array(z.number().int()).nullable().optional(),
  prompt_token_ids: z.array(z.number().int()).nullable().optional(),
});
export type CompletionChoice = z.infer<typeof CompletionChoice>;

export const CompletionResponse = z.object({
  id: z.string(),
  object: z.literal('text_completion'),
  created: z.number(),
  /** the model (policy version) that generated the choices */
  model: z.string(),
  choices: z.array(CompletionChoice),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
});
export type CompletionResponse = z.infer<typeof CompletionResponse>;

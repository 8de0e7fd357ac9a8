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
  top_p: z.literal(1, { error: 'only top_p = 1 is supported: a truncated distribution would have to reach the trainer' }).default(1),
  n: z.number().int().min(1).max(64).default(1),
  seed: z.number().int().optional(),
  stop_token_ids: z.array(z.number().int().min(0)).default([]),
  /** vLLM: the number of top log-probs per token; any value returns the sampled tokens' log-probs */
  logprobs: z.number().int().min(0).nullable().optional(),
  return_token_ids: z.boolean().default(true),
  allowed_token_ids: z.array(z.number().int().min(0)).optional(),
});
export type CompletionRequest = z.infer<typeof CompletionRequest>;

export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: { tokens: string[]; token_logprobs: number[]; top_logprobs: null; text_offset: number[] } | null;
  finish_reason: 'stop' | 'length';
  stop_reason: number | null;
  token_ids: number[] | null;
  prompt_token_ids: number[] | null;
}

export interface CompletionResponse {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

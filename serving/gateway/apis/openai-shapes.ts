/** The parts the OpenAI APIs (Chat Completions, Responses, completions) share. */
import type { GatewayError, GatewayReply } from '../../../shared/contracts/gateway';

/** OpenAI's error body; `param` and `code` are not filled. */
export function openAiError(error: GatewayError): unknown {
  return { error: { message: error.message, type: error.type, param: null, code: null } };
}

/** Chat Completions' and completions' usage object. */
export function openAiUsage(reply: GatewayReply) {
  return {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: reply.promptTokens + reply.completionTokens,
  };
}

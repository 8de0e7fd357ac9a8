/**
 * The APIs the model gateway speaks, by URL path: each parses its requests into the one {@link GatewayRequest} form
 * and answers from a {@link GatewayReply}. Paths come with and without `/v1`, as harnesses are given base URLs both
 * ways (Codex and litellm append `/responses` and `/chat/completions` to theirs).
 */
import type { GatewayApi, GatewayApiAdapter, GatewayError } from '../../../shared/contracts/gateway';
import { chatCompletionsAdapter } from './chat-completions';
import { completionsAdapter } from './completions';
import { messagesAdapter } from './messages';
import { responsesAdapter } from './responses';

export { countTokensResponse, parseCountTokens } from './messages';

export const gatewayApiAdapters: Readonly<Record<GatewayApi, GatewayApiAdapter>> = {
  'chat-completions': chatCompletionsAdapter,
  responses: responsesAdapter,
  messages: messagesAdapter,
  completions: completionsAdapter,
};

const apiPaths: Readonly<Record<string, GatewayApi>> = {
  '/chat/completions': 'chat-completions',
  '/responses': 'responses',
  '/messages': 'messages',
  '/completions': 'completions',
};

/** The path without its query, trailing slash and leading `/v1`. */
function apiPath(path: string): string {
  const bare = path.split('?')[0]?.replace(/\/+$/, '') ?? '';
  return bare.startsWith('/v1/') ? bare.slice(3) : bare;
}

/** The adapter that answers POSTs to this path; undefined for a path no API has. */
export function gatewayAdapterForPath(path: string): GatewayApiAdapter | undefined {
  const api = apiPaths[apiPath(path)];
  return api === undefined ? undefined : gatewayApiAdapters[api];
}

/** Whether this path is Anthropic's token counter (POST, answered by {@link parseCountTokens}). */
export function isCountTokensPath(path: string): boolean {
  return apiPath(path) === '/messages/count_tokens';
}

/** Whether this path is the model list (GET) that harnesses probe before their first request. */
export function isModelListPath(path: string): boolean {
  return apiPath(path) === '/models';
}

/** An error body in the API's own shape. */
export function gatewayError(api: GatewayApi, error: GatewayError): unknown {
  return gatewayApiAdapters[api].error(error);
}

/** The answer to GET /v1/models, in OpenAI's shape: the one model the gateway serves. */
export function modelList(model: string, created: number): unknown {
  return { object: 'list', data: [{ id: model, object: 'model', created, owned_by: 'agentrl' }] };
}

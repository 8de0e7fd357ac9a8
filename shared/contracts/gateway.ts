/**
 * The model gateway's one request form. Every API the gateway speaks (OpenAI Chat Completions, OpenAI Responses,
 * Anthropic Messages, OpenAI completions) is parsed into a {@link GatewayRequest} and answered from a
 * {@link GatewayReply}: the APIs differ in their shapes only (serving/gateway/apis/), never in what is recorded or
 * how a request becomes token ids (activities/gateway/).
 */

export const GatewayApis = ['chat-completions', 'responses', 'messages', 'completions'] as const;
export type GatewayApi = (typeof GatewayApis)[number];

/** A tool call the model made, or one a harness echoes back in its history. */
export interface GatewayToolCall {
  /** the call's id as the API carries it (`call_…`, `toolu_…`); the gateway makes ids for the calls it returns */
  id: string;
  name: string;
  /** the arguments as JSON text (Chat Completions and Responses carry text; Messages' object is stringified) */
  arguments: string;
}

export interface GatewayMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** the message's text: an API's text parts joined in order; images and other parts are refused, never dropped */
  content: string;
  /** assistant: the tool calls it made */
  toolCalls?: GatewayToolCall[];
  /** tool: the id of the call this message answers */
  toolCallId?: string;
}

/** A function tool the harness offers (the JSON schema of its parameters as given). */
export interface GatewayTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface GatewayRequest {
  api: GatewayApi;
  /** the model name the harness asked for (echoed back; the run's policy answers whatever it is) */
  model: string;
  /** the conversation; empty for `completions` */
  messages: GatewayMessage[];
  /** `completions` only: the prompt text */
  prompt?: string;
  tools: GatewayTool[];
  /** the most tokens to generate; null: the policy's own limit */
  maxTokens: number | null;
  temperature: number | null;
  /** stop strings (the generation is cut before the first) */
  stop: string[];
  stream: boolean;
  /** a streamed Chat Completions or completions answer ends with a usage chunk (`stream_options.include_usage`) */
  streamUsage?: boolean;
}

/** What the model produced for one call, read in the family's tool-call format. */
export interface GatewayReply {
  /** the response's id (`chatcmpl-…`, `resp_…`, `msg_…`, `cmpl-…` are made from it by each API) */
  id: string;
  model: string;
  /** unix seconds */
  created: number;
  /** the text outside tool calls (and outside reasoning) */
  text: string;
  /** reasoning the model wrote between <think> tags, where it did */
  reasoning: string;
  toolCalls: GatewayToolCall[];
  /** `length`: cut by the token limit; `tool_calls`: it called tools; `stop`: it ended its turn */
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** the stop string that ended the generation, where one did (Messages answers `stop_reason: 'stop_sequence'`) */
  stopSequence?: string;
  promptTokens: number;
  completionTokens: number;
}

/** A request refused before anything was recorded: the HTTP status and the message, in each API's error shape. */
export interface GatewayError {
  status: number;
  /** the API's error type (`invalid_request_error`, `authentication_error`, `not_found_error`, `rate_limit_error`…) */
  type: string;
  message: string;
}

/** How each API's module parses requests and writes replies and errors. */
export interface GatewayApiAdapter {
  readonly api: GatewayApi;
  /** the request body (already JSON-parsed) as the one form, or the error that refuses it */
  parse(body: unknown): { ok: true; request: GatewayRequest } | { ok: false; error: GatewayError };
  /** the non-streaming response body */
  respond(reply: GatewayReply, request: GatewayRequest): unknown;
  /** the streamed response: server-sent event frames, each a complete `event:`/`data:` block ending in a blank line */
  stream(reply: GatewayReply, request: GatewayRequest): string[];
  /** the error body in the API's own shape */
  error(error: GatewayError): unknown;
}

/**
 * OpenAI completions (POST /v1/completions): a prompt text in, the generated text out. No chat template and no tool
 * calls: the server fills `reply.text` with the whole generation, read as nothing else. `max_tokens` defaults to 16,
 * as OpenAI's does. `logprobs`, `top_p`, `seed` and the other sampling options are not honoured: the run's policy
 * samples with the run's settings.
 */
import type { GatewayApiAdapter, GatewayReply, GatewayRequest } from '../../../shared/contracts/gateway';
import {
  array,
  describe,
  type Fields,
  modelName,
  oneChoice,
  optionalBoolean,
  optionalNumber,
  optionalObject,
  optionalTokenCount,
  parseRequest,
  refuse,
  stopStrings,
  string,
} from './fields';
import { openAiError, openAiUsage } from './openai-shapes';
import { dataFrame, doneFrame, textPieces } from './sse';

/** OpenAI's default `max_tokens` for completions. */
export const defaultCompletionTokens = 16;

function promptText(value: unknown): string {
  if (typeof value === 'string') return value;
  const prompts = array(value, 'prompt');
  if (prompts.length === 1 && typeof prompts[0] === 'string') return prompts[0];
  if (prompts.length > 0 && prompts.every((entry) => typeof entry === 'number' || Array.isArray(entry)))
    refuse('prompt: token-id prompts are not accepted; send the prompt as text (the gateway tokenizes it)');
  return refuse(`prompt: expected a string or an array of one string, got an array of ${prompts.length} entries`);
}

function parseBody(body: Fields): GatewayRequest {
  const model = modelName(body);
  if (body.prompt === undefined || body.prompt === null)
    refuse(`prompt: expected a string, got ${describe(body.prompt)}`);
  const prompt = promptText(body.prompt);
  oneChoice(body.n);
  const bestOf = optionalNumber(body.best_of, 'best_of', 1);
  if (bestOf !== undefined && bestOf !== 1)
    refuse(`best_of: only one completion is generated per request, got ${bestOf}`);
  if (optionalBoolean(body.echo, 'echo') === true)
    refuse('echo: the prompt is not echoed back; the text is the generation only');
  if (body.suffix !== undefined && body.suffix !== null && string(body.suffix, 'suffix') !== '')
    refuse('suffix: fill-in-the-middle (a text after the completion) is not supported');
  const stream = optionalBoolean(body.stream, 'stream') ?? false;
  const options = optionalObject(body.stream_options, 'stream_options') ?? {};
  const includeUsage = optionalBoolean(options.include_usage, 'stream_options.include_usage') ?? false;
  return {
    api: 'completions',
    model,
    messages: [],
    prompt,
    tools: [],
    maxTokens: optionalTokenCount(body.max_tokens, 'max_tokens') ?? defaultCompletionTokens,
    temperature: optionalNumber(body.temperature, 'temperature', 0, 2) ?? null,
    stop: stopStrings(body.stop, 'stop'),
    stream,
    streamUsage: stream && includeUsage,
  };
}

/** Completions know no tool call: a reply that ended in one ended its text. */
const finishReason = (reply: GatewayReply) => (reply.finishReason === 'length' ? 'length' : 'stop');

function respond(reply: GatewayReply): unknown {
  return {
    id: `cmpl-${reply.id}`,
    object: 'text_completion',
    created: reply.created,
    model: reply.model,
    choices: [{ text: reply.text, index: 0, logprobs: null, finish_reason: finishReason(reply) }],
    usage: openAiUsage(reply),
  };
}

function stream(reply: GatewayReply, request: GatewayRequest): string[] {
  const chunk = (choices: unknown[], extra: Fields = {}) =>
    dataFrame({
      id: `cmpl-${reply.id}`,
      object: 'text_completion',
      created: reply.created,
      model: reply.model,
      choices,
      ...extra,
    });
  const choice = (text: string, finish: string | null) => ({ text, index: 0, logprobs: null, finish_reason: finish });
  const frames = textPieces(reply.text).map((piece) => chunk([choice(piece, null)]));
  frames.push(chunk([choice('', finishReason(reply))]));
  if (request.streamUsage) frames.push(chunk([], { usage: openAiUsage(reply) }));
  frames.push(doneFrame);
  return frames;
}

export const completionsAdapter: GatewayApiAdapter = {
  api: 'completions',
  parse: (body) => parseRequest(body, parseBody),
  respond,
  stream,
  error: openAiError,
};

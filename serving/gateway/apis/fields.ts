/**
 * Reading request bodies field by field. Each reader refuses a wrong value by throwing a {@link RequestFieldError}
 * whose message names the field (`messages[2].content: expected …`); {@link parseRequest} turns it into the
 * adapter's 400 answer, so no bad input escapes a parse as a throw.
 */
import type { GatewayError, GatewayRequest, GatewayTool } from '../../../shared/contracts/gateway';

export type Fields = Record<string, unknown>;

/** A request field that is wrong; the message names it. */
export class RequestFieldError extends Error {}

export function refuse(message: string): never {
  throw new RequestFieldError(message);
}

/** The 400 answer to a request that is not of its API's form. */
export function invalidRequest(message: string): GatewayError {
  return { status: 400, type: 'invalid_request_error', message };
}

export type ParseResult = { ok: true; request: GatewayRequest } | { ok: false; error: GatewayError };

/** Runs a parse whose readers throw {@link RequestFieldError}, as the result the adapters return. */
export function parseRequest(body: unknown, parse: (body: Fields) => GatewayRequest): ParseResult {
  try {
    return { ok: true, request: parse(object(body, 'request body')) };
  } catch (error) {
    if (error instanceof RequestFieldError) return { ok: false, error: invalidRequest(error.message) };
    throw error;
  }
}

/** What a JSON value is, for messages: `a string`, `an array`, `null`… */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function object(value: unknown, path: string): Fields {
  if (!isObject(value)) refuse(`${path}: expected an object, got ${describe(value)}`);
  return value;
}

/** An object field that may be absent or null. */
export function optionalObject(value: unknown, path: string): Fields | undefined {
  return value === undefined || value === null ? undefined : object(value, path);
}

export function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) refuse(`${path}: expected an array, got ${describe(value)}`);
  return value;
}

export function string(value: unknown, path: string): string {
  if (typeof value !== 'string') refuse(`${path}: expected a string, got ${describe(value)}`);
  return value;
}

/** A string field that may be absent or null. */
export function optionalString(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : string(value, path);
}

export function optionalBoolean(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') refuse(`${path}: expected true or false, got ${describe(value)}`);
  return value;
}

/** A number field that may be absent or null, within [min, max]. */
export function optionalNumber(value: unknown, path: string, min: number, max = Infinity): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    refuse(`${path}: expected a number, got ${describe(value)}`);
  if (value < min || value > max)
    refuse(`${path}: expected a number from ${min}${max === Infinity ? '' : ` to ${max}`}, got ${value}`);
  return value;
}

/** A token count: a whole number of at least 1, absent or null for none. */
export function optionalTokenCount(value: unknown, path: string): number | undefined {
  const count = optionalNumber(value, path, 1);
  if (count !== undefined && !Number.isInteger(count)) refuse(`${path}: expected a whole number, got ${count}`);
  return count;
}

/** The model name every API requires. */
export function modelName(body: Fields): string {
  const model = string(body.model, 'model');
  if (model === '') refuse('model: expected a model name, got an empty string');
  return model;
}

/** Stop strings: one string, an array of strings, or absent. */
export function stopStrings(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  return array(value, path).map((entry, index) => string(entry, `${path}[${index}]`));
}

/**
 * Text parts are joined with a newline, as vLLM's OpenAI server joins them, so a harness that splits one message into
 * parts (Claude Code's reminders beside the prompt) reads to the model as separate lines, not one run-on line.
 */
export const partSeparator = '\n';

/** A message's text: a string, or an array of text parts of the given types (others are refused, never dropped). */
export function textContent(value: unknown, path: string, textTypes: readonly string[]): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) refuse(`${path}: expected a string or an array of text parts, got ${describe(value)}`);
  return value
    .map((entry, index) => {
      const part = object(entry, `${path}[${index}]`);
      const type = part.type;
      if (typeof type !== 'string' || !textTypes.includes(type)) {
        const expected = textTypes.map((name) => `"${name}"`).join(' or ');
        const got = typeof type === 'string' ? `"${type}"` : describe(type);
        refuse(`${path}[${index}]: only text parts are accepted (type ${expected}), got ${got}`);
      }
      return string(part.text, `${path}[${index}].text`);
    })
    .join(partSeparator);
}

/** A function tool's parts as the APIs carry them (parameters: a JSON schema object, `{}` when absent). */
export function functionTool(name: unknown, description: unknown, parameters: unknown, path: string): GatewayTool {
  return {
    name: string(name, `${path}.name`),
    description: optionalString(description, `${path}.description`) ?? '',
    parameters: parameters === undefined || parameters === null ? {} : object(parameters, `${path}.parameters`),
  };
}

/** Refuses an output format other than text (`response_format`, `text.format`): sampling cannot enforce a schema. */
export function textFormatOnly(value: unknown, path: string): void {
  const format = optionalObject(value, path);
  if (format !== undefined && format.type !== 'text')
    refuse(
      `${path}: structured output is not supported (only {"type": "text"}), got type ${JSON.stringify(format.type)}`,
    );
}

/** Refuses n > 1: the gateway generates one choice per request. */
export function oneChoice(value: unknown): void {
  const n = optionalNumber(value, 'n', 1);
  if (n !== undefined && n !== 1) refuse(`n: only one choice is generated per request (n = 1), got ${n}`);
}

import type { ParseArgsConfig } from 'node:util';
import { parseDurationMs } from '../shared/math/duration';

/**
 * One command of `npx agentrl`: its help and its run. A bad flag value throws an Error naming the flag (exit code 1).
 */
export interface Command {
  /** one line for `npx agentrl --help` */
  summary: string;
  /** the whole `--help` text; it names every option with its default */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: boolean;
  /** returns the exit code */
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

/** Progress and notes go to stderr, so stdout holds only results (tables, JSON). */
export const log = (line: string): void => console.error(`agentrl: ${line}`);

export function positiveInt(flag: string, value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number) || number <= 0)
    throw new Error(`${flag}: expected a positive integer, got ${JSON.stringify(value)}`);
  return number;
}

export function nonNegativeInt(flag: string, value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number) || number < 0)
    throw new Error(`${flag}: expected a non-negative integer, got ${JSON.stringify(value)}`);
  return number;
}

/** A duration flag in milliseconds; it must carry its unit (a bare number would be ambiguous). */
export function durationFlag(flag: string, value: string): number {
  if (/^\s*\d+(\.\d+)?\s*$/.test(value))
    throw new Error(
      `${flag}: give a unit, e.g. ${value.trim()}s or ${value.trim()}m (ms, s, m or h), got ${JSON.stringify(value)}`,
    );
  const ms = parseDurationMs(value);
  if (ms === null || ms <= 0)
    throw new Error(`${flag}: expected a duration such as 60s or 10m, got ${JSON.stringify(value)}`);
  return ms;
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`${flag}: expected ${allowed.join(' or ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

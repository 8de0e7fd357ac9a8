import { z } from 'zod';

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "500ms", "60s", "10m", "1h" or a number of milliseconds; returns milliseconds or null. */
export function parseDurationMs(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!match) return null;
  return Math.round(Number(match[1]) * (units[match[2] ?? 'ms'] ?? 1));
}

/** A zod field accepting "60s"-style strings or milliseconds, producing milliseconds. */
export const durationMs = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDurationMs(value);
  if (ms === null) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a duration such as "500ms", "60s", "10m" or milliseconds, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return ms;
});

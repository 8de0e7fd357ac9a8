import { z } from 'zod';

/** The JSON Schema (draft 2020-12) of a zod schema's input, as the generated contracts in shared/contracts/ hold it. */
export function jsonSchemaOf(type: z.ZodType): unknown {
  return stripImplicitBounds(z.toJSONSchema(type, { io: 'input', target: 'draft-2020-12' }));
}

/** zod writes JSON's safe-integer range as bounds of every integer; they are no constraint of ours. */
function stripImplicitBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripImplicitBounds);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).filter(
    ([key, field]) =>
      !(
        (key === 'maximum' && field === Number.MAX_SAFE_INTEGER) ||
        (key === 'minimum' && field === Number.MIN_SAFE_INTEGER)
      ),
  );
  return Object.fromEntries(entries.map(([key, field]) => [key, stripImplicitBounds(field)]));
}

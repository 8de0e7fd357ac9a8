import { z } from 'zod';

/**
 * A schema that also reads records written before a field was renamed: each old name present
 * (and its new name absent) is read as the new name, then the record is checked as today's.
 * Records are always written with the new names; the generated contracts describe those
 * (`jsonSchemaOf` describes `.out`, the record as checked).
 */
export function readingRenamed<T extends z.ZodType>(renames: Readonly<Record<string, string>>, schema: T) {
  return z.preprocess((value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const record = { ...(value as Record<string, unknown>) };
    for (const [old, now] of Object.entries(renames)) {
      if (old in record && !(now in record)) record[now] = record[old];
      delete record[old];
    }
    return record;
  }, schema);
}

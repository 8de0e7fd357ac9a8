import { z } from 'zod';

/**
 * A schema that also reads records written before a field was renamed or moved: each old name
 * present is read as its new name ({@link withNewNames}), then the record is checked as today's. An
 * old name given together with its new name is refused (the two would say different things of one
 * field). Records are always written with the new names; the generated contracts describe those
 * (`jsonSchemaOf` describes `.out`, the record as checked).
 */
export function readingRenamed<T extends z.ZodType>(renames: Readonly<Record<string, string>>, schema: T) {
  return z.preprocess((value, context) => {
    const { record, conflicts } = withNewNames(value, renames);
    for (const [old, now] of conflicts) context.addIssue({ code: 'custom', path: [old], message: bothNames(old, now) });
    return conflicts.length ? z.NEVER : record;
  }, schema);
}

/**
 * A record under today's names, nothing else changed: each old name present is moved to its new
 * name; a dotted new name (`evaluation.limit`) moves the value into that object, which is created
 * where absent and keeps what it holds. Of two old names of one field the first listed wins; an old
 * name whose new name the record gives too stays out, and is returned in `conflicts` as [old, new].
 * The caller's value is never changed.
 */
export function withNewNames(
  value: unknown,
  renames: Readonly<Record<string, string>>,
): { record: unknown; conflicts: [string, string][] } {
  if (!isPlainObject(value)) return { record: value, conflicts: [] };
  const record: Record<string, unknown> = { ...value };
  const moved = new Set<string>();
  const conflicts: [string, string][] = [];
  for (const [old, now] of Object.entries(renames)) {
    if (!(old in record)) continue;
    const given = record[old];
    delete record[old];
    if (moved.has(now)) continue;
    const path = now.split('.');
    const parent = ownedObjectAt(record, path.slice(0, -1));
    // a non-object where the new name's object belongs: the schema names that field
    if (!parent) continue;
    const key = path.at(-1)!;
    if (key in parent) {
      conflicts.push([old, now]);
      continue;
    }
    parent[key] = given;
    moved.add(now);
  }
  return { record, conflicts };
}

/** What is wrong with a record that gives a field under its old and its new name. */
export function bothNames(old: string, now: string): string {
  return `${old} is the former name of ${now}, which is given too: give only ${now}`;
}

/**
 * The object at `path` under `record`, copied on the way (the caller's value is never changed) and
 * created where absent; null where something other than an object is in the way.
 */
function ownedObjectAt(record: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | null {
  let current = record;
  for (const key of path) {
    const next = current[key] ?? {};
    if (!isPlainObject(next)) return null;
    current = current[key] = { ...next };
  }
  return current;
}

/** A JSON object (not an array, not null). */
export function isPlainObject(item: unknown): item is Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item);
}

import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { z } from 'zod';

// The file primitives of everything that keeps state on local disk: the artifact store, the
// journals, run records, and the CLI's service records and server state.

/** Writes to a temporary file in the same folder, then renames over the target; the folder is made when missing. */
export async function atomicWrite(path: string, data: Buffer | string): Promise<void> {
  const folder = dirname(path);
  const temporary = join(folder, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temporary, data);
  } catch (error) {
    // the folder's first file: made here rather than checked before every write
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(folder, { recursive: true });
    await writeFile(temporary, data);
  }
  await rename(temporary, path);
}

/** Parses JSON text with a schema; the error names where the text came from and the first bad field. */
export function parseJson<S extends z.ZodType>(schema: S, text: string, source: string): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${source}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './config';

const sourceDirs = ['shared', 'workflows', 'activities', 'workers', 'serving', 'sandbox', 'cli'];

/** A hash of the code a worker runs; a worker whose hash differs from the checkout's is replaced. */
export function codeVersion(root: string = projectRoot): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '__pycache__' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|py|json|recipe)$/.test(entry.name)) files.push(path);
    }
  };
  for (const dir of sourceDirs) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of ['package-lock.json', 'temporal.yaml'])
    if (existsSync(join(root, file))) files.push(join(root, file));
  for (const file of files.sort())
    hash.update(file.slice(root.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

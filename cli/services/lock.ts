import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive, sleep } from './processes';

/**
 * An exclusive lock file holding its owner's pid, created whole (a hard link of a file that already
 * holds the pid, so no reader sees it empty); a lock whose owner died is taken over. Held while one CLI
 * decides whether to start a service (two would each start one).
 */
export async function takeLock(path: string): Promise<() => void> {
  mkdirSync(dirname(path), { recursive: true });
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  const deadline = Date.now() + 300_000;
  try {
    for (;;) {
      try {
        linkSync(mine, path);
        return () => {
          if (readOwner(path) === process.pid) rmSync(path, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(path);
        // removed only while it still names the dead owner: a lock taken meanwhile stays
        if (owner !== null && !isAlive(owner) && readOwner(path) === owner) rmSync(path, { force: true });
        else if (owner !== null && Date.now() > deadline) throw new Error(`${path} is held by process ${owner}`);
        else await sleep(200);
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

function readOwner(path: string): number | null {
  try {
    const owner = Number(readFileSync(path, 'utf8'));
    return Number.isInteger(owner) && owner > 0 ? owner : null;
  } catch {
    return null;
  }
}

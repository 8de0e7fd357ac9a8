import { createHash, type Hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { z } from 'zod';
import { TamperFinding } from '../../shared/contracts/episode';
import { checkerPythonFiles, checkerScript, sharedDir } from './scripts';
import { type ArtifactStore } from '../store/artifact-store';
import { parseJson } from '../store/files';
import type { FileChange } from './changes';
import type { OracleCall } from '../../shared/contracts/task-spec';
import { HarnessResult } from './grading';
import { OracleAuditResult } from './oracle-audit';

/**
 * Results of the checker's test runs and of the tamper detector, keyed by everything they depend on:
 * the exact files of the graded tree, the image's id, the checker's Python as a whole, the role and
 * the timeout. A training run grades the same tree many times (a group that makes the same edit, a
 * submission without changes); a hit returns the result of the earlier run in a fresh container
 * instead of starting another. Only completed runs are kept (no timeout, a report), so a flaky
 * failure of the infrastructure is never replayed. Sound for deterministic tests; turn it off
 * (`grading.cacheResults: false`) for task sets whose tests are not.
 */
export function createGradingCache(store: ArtifactStore, docker: Dockerode, enabled: boolean) {
  const code = hashFiles([
    ...checkerPythonFiles().map(checkerScript),
    join(sharedDir, 'tamper-kinds.json'),
    join(sharedDir, 'checker-paths.json'),
  ]);
  const imageIds = new Map<string, Promise<string>>();
  const imageId = (image: string) => {
    let id = imageIds.get(image);
    if (!id) {
      id = docker
        .getImage(image)
        .inspect()
        .then((info) => info.Id);
      // a failed lookup is not remembered: the next call asks again
      id.catch(() => imageIds.delete(image));
      imageIds.set(image, id);
    }
    return id;
  };
  const read = async <S extends z.ZodType>(key: string, schema: S): Promise<z.infer<S> | null> => {
    const raw = await store.readNamed(`grading-cache/${key}.json`);
    return raw ? parseJson(schema, raw.toString('utf8'), `grading-cache/${key}.json`) : null;
  };
  const write = (key: string, value: unknown) => store.writeNamed(`grading-cache/${key}.json`, JSON.stringify(value));

  return {
    /** The cached result of a test run of `files`, or the result of `run` (kept when it completed). */
    async grade(
      options: {
        image: string;
        role: string;
        timeoutMs: number;
        files: Record<string, Buffer>;
        /** a verifier's tests at /tests */
        tests?: Record<string, Buffer>;
        env?: Record<string, string>;
        testPaths?: readonly string[];
      },
      run: () => Promise<HarnessResult>,
    ): Promise<HarnessResult & { cached?: boolean }> {
      if (!enabled) return run();
      const hash = createHash('sha256').update(
        `grade\0${code}\0${await imageId(options.image)}\0${options.role}\0${options.timeoutMs}\0` +
          `${JSON.stringify(options.testPaths ?? null)}\0${JSON.stringify(options.env ?? null)}\0`,
      );
      hashTree(hash, options.files);
      if (options.tests) hashTree(hash.update('tests\0'), options.tests);
      const key = hash.digest('hex');
      const cached = await read(key, HarnessResult);
      if (cached) return { ...cached, cached: true };
      const result = await run();
      if (!result.timedOut && result.report) await write(key, result);
      return result;
    },

    /** The cached outcome of an oracle audit of `files` (only the outcome is kept, no expected value), or `run`'s. */
    async audit(
      options: { image: string; timeoutMs: number; files: Record<string, Buffer>; calls: readonly OracleCall[] },
      run: () => Promise<OracleAuditResult>,
    ): Promise<OracleAuditResult & { cached?: boolean }> {
      if (!enabled) return run();
      const hash = createHash('sha256')
        .update(`audit\0${code}\0${await imageId(options.image)}\0${options.timeoutMs}\0`)
        .update(JSON.stringify(options.calls))
        .update('\0');
      hashTree(hash, options.files);
      const key = hash.digest('hex');
      const cached = await read(key, OracleAuditResult);
      if (cached) return { ...cached, cached: true };
      const result = await run();
      if (!result.timedOut) await write(key, result);
      return result;
    },

    /** The detector's findings for these changes (a pure function of them). */
    async tamper(changes: readonly FileChange[], detect: () => Promise<TamperFinding[]>): Promise<TamperFinding[]> {
      if (!enabled) return detect();
      const hash = createHash('sha256').update(`tamper\0${code}\0`);
      // field by field: the changes together may be far larger than one string can hold
      for (const change of changes) hashChange(hash, change);
      const key = hash.digest('hex');
      const cached = await read(key, z.array(TamperFinding));
      if (cached) return cached;
      const findings = await detect();
      await write(key, findings);
      return findings;
    },
  };
}

/** A tree of files into a hash: each path and its content's digest, in path order. */
function hashTree(hash: Hash, files: Record<string, Buffer>): void {
  for (const path of Object.keys(files).sort())
    hash.update(path).update('\0').update(createHash('sha256').update(files[path]!).digest()).update('\0');
}

/** The cache of one worker's gradings. */
export type GradingCache = ReturnType<typeof createGradingCache>;

function hashFiles(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) hash.update(path).update('\0').update(readFileSync(path)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** Adds a change to a hash, each field length-prefixed, so no two changes hash alike. */
function hashChange(hash: Hash, change: FileChange): void {
  const fields = [
    change.path,
    change.key,
    change.status,
    change.before,
    change.after,
    change.afterBase64 ?? null,
    String(change.protected),
    String(change.symlink),
  ];
  for (const field of fields) {
    if (field === null) hash.update('n');
    else hash.update(`s${Buffer.byteLength(field)}:`).update(field);
  }
}

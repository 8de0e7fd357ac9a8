// The agent's changes never become one string on the way to the detector or the cache key, and a
// tree beyond the grader's bounds is the agent's doing (over_limits), never a grader failure.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type Dockerode from 'dockerode';
import { graderLimits, limitFindings, type FileChange } from '../../activities/checker/changes';
import { createGradingCache } from '../../activities/checker/grading-cache';
import { detectTamper } from '../../activities/checker/tamper';
import { createArtifactStore } from '../../activities/store/artifact-store';
import type { ArchiveEntry } from '../../activities/sandbox/docker';

/** A changed data file of `bytes` bytes of \x01 (JSON escapes each as six characters). */
const control = (path: string, bytes: number): FileChange => ({
  path,
  key: path,
  status: 'added',
  before: null,
  after: '\x01'.repeat(bytes),
  protected: false,
  symlink: false,
});

describe('grading bounds', () => {
  test('twelve files of 8 MiB of \\x01 (576 MiB as one JSON string) hash into a cache key, hit and miss', async () => {
    const changes = Array.from({ length: 12 }, (_, index) => control(`data/blob-${index}.bin`, graderLimits.fileBytes));
    const maxStringLength = 2 ** 29 - 24; // V8's, on 64-bit
    assert.ok(12 * 6 * graderLimits.fileBytes > maxStringLength, 'the old key, one JSON string, could not be built');
    const cache = createGradingCache(
      createArtifactStore(mkdtempSync(join(tmpdir(), 'agentrl-cache-'))),
      {} as Dockerode,
      true,
    );
    let runs = 0;
    const detect = () => Promise.resolve((runs++, []));
    assert.deepEqual(await cache.tamper(changes, detect), []);
    assert.deepEqual(await cache.tamper(changes, detect), []);
    assert.equal(runs, 1, 'the same changes hit the cache');
    const other = [...changes.slice(0, 11), { ...changes[11]!, after: `${changes[11]!.after!.slice(1)}\x02` }];
    await cache.tamper(other, detect);
    assert.equal(runs, 2, 'one changed byte misses');
  });

  test('the detector reads the changes as lines, one per change: a file of 8 MiB of \\x01 and a source file', async () => {
    const source = {
      ...control('pkg/mod.py', 0),
      after: 'import importlib\n\ndef load(name):\n    return importlib.import_module(name)\n',
    };
    const findings = await detectTamper([control('data/blob.bin', graderLimits.fileBytes), source]);
    assert.ok(
      findings.every((finding) => finding.path === 'pkg/mod.py'),
      JSON.stringify(findings),
    );
  });

  test('changed files over the total bound are over_limits; the same bytes in pristine files are not', () => {
    const file = (path: string, bytes: number): ArchiveEntry => ({
      path,
      type: 'file',
      content: Buffer.alloc(bytes, 1),
      mode: 0o644,
    });
    const count = Math.ceil(graderLimits.totalBytes / graderLimits.fileBytes) + 1;
    const entries = Array.from({ length: count }, (_, index) => file(`data/${index}.bin`, graderLimits.fileBytes));
    const findings = limitFindings(entries, {});
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.equal(findings[0]!.kind, 'over_limits');
    assert.match(findings[0]!.detail, /in all, over the grader's limit/);
    const pristine = Object.fromEntries(entries.map((entry) => [entry.path, entry.content]));
    assert.deepEqual(limitFindings(entries, pristine), [], 'unchanged files do not count');
  });
});

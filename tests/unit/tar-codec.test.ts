// The byte-exact tar codec of tree snapshots: names and link targets as bytes, long names, every entry type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readRawTar, writeRawTar, type RawTarEntry } from '../../activities/sandbox/archive/tar-codec';
import { treeDigest } from '../../activities/sandbox/archive/tree-snapshot';

const entries: RawTarEntry[] = [
  { path: Buffer.from('src'), type: 'directory', mode: 0o700, uid: 1000, gid: 1000, mtime: 981173106 },
  {
    path: Buffer.from('src/a.py'),
    type: 'file',
    mode: 0o4755,
    uid: 1000,
    gid: 1000,
    mtime: 981173107,
    content: Buffer.from('print(1)\n'),
  },
  {
    path: Buffer.concat([Buffer.from('src/'), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]),
    type: 'file',
    mode: 0o600,
    uid: 1000,
    gid: 1000,
    mtime: 1,
    content: Buffer.from([0, 1, 2, 255]),
  },
  {
    path: Buffer.from(`${'d'.repeat(120)}/${'f'.repeat(150)}`),
    type: 'file',
    mode: 0o644,
    uid: 1000,
    gid: 1000,
    mtime: 2,
    content: Buffer.alloc(1500, 7),
  },
  {
    path: Buffer.from('link'),
    type: 'symlink',
    mode: 0o777,
    uid: 1000,
    gid: 1000,
    mtime: 3,
    link: Buffer.concat([Buffer.from('../'), Buffer.from([0xe9])]),
  },
  {
    path: Buffer.from('hard'),
    type: 'hardlink',
    mode: 0o4755,
    uid: 1000,
    gid: 1000,
    mtime: 981173107,
    link: Buffer.from('src/a.py'),
  },
  { path: Buffer.from('pipe'), type: 'fifo', mode: 0o644, uid: 1000, gid: 1000, mtime: 4 },
  { path: Buffer.from('empty'), type: 'directory', mode: 0o755, uid: 0, gid: 0, mtime: 5 },
];

test('entries written and read back are the same, byte for byte', () => {
  const archive = writeRawTar(entries);
  assert.equal(archive.length % 512, 0);
  const read = readRawTar(archive);
  assert.equal(read.length, entries.length);
  read.forEach((entry, index) => {
    const expected = entries[index]!;
    assert.ok(entry.path.equals(expected.path), `path ${index}`);
    assert.deepEqual(
      [entry.type, entry.mode, entry.uid, entry.gid, entry.mtime],
      [expected.type, expected.mode, expected.uid, expected.gid, expected.mtime],
    );
    assert.equal(entry.link?.toString('hex'), expected.link?.toString('hex'));
    if (expected.type === 'file') assert.ok(entry.content!.equals(expected.content!));
  });
  const root = { mode: 0o755, uid: 1000, gid: 1000 };
  assert.equal(treeDigest(root, read), treeDigest(root, entries));
  // the digest sees a bit, an owner, a byte of a name and the root's own bits
  assert.notEqual(
    treeDigest(
      root,
      read.map((entry, index) => (index === 1 ? { ...entry, mode: 0o755 } : entry)),
    ),
    treeDigest(root, entries),
  );
  assert.notEqual(
    treeDigest(
      root,
      read.map((entry, index) => (index === 2 ? { ...entry, path: Buffer.from('src/\u00ff\u00fe.bin') } : entry)),
    ),
    treeDigest(root, entries),
  );
  assert.notEqual(treeDigest({ ...root, mode: 0o700 }, read), treeDigest(root, entries));
});

test('a damaged archive is refused, naming where', () => {
  const archive = writeRawTar(entries.slice(0, 2));
  archive[1030] = archive[1030]! ^ 0xff;
  assert.throws(() => readRawTar(archive), /header at byte 1024 has a bad checksum/);
  assert.throws(() => readRawTar(writeRawTar(entries.slice(1, 2)), { maxBytes: 4 }), /more than 4 bytes/);
  const cut = writeRawTar([entries[3]!]).subarray(0, 1536);
  assert.throws(() => readRawTar(cut), /cut short/);
});

test('modification times before 1970 and past what 11 octal digits hold come back exact', () => {
  const times = [-86_400 * 365 * 30, -1, 0, 2 ** 33 + 17, 253_402_300_799];
  const archive = writeRawTar(
    times.map((mtime, index) => ({
      path: Buffer.from(`f${index}`),
      type: 'file' as const,
      mode: 0o644,
      uid: 1000,
      gid: 1000,
      mtime,
      content: Buffer.from('x'),
    })),
  );
  assert.deepEqual(
    readRawTar(archive).map((entry) => entry.mtime),
    times,
  );
});

/**
 * A tar reader and writer that keep names and link targets as bytes: Docker's archive API (Go's
 * archive/tar) writes a name that is not UTF-8 as raw bytes in a PAX `path` record, and a reader that
 * decodes it as text (tar-stream does) changes it. Reads ustar, GNU long names and PAX records;
 * writes ustar headers preceded by a PAX header that carries the exact path, link target and owner.
 */

/** The entry types a repository tree can hold (sockets are not archived; devices need a capability the agent lacks). */
export const RawEntryTypes = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  char: '3',
  block: '4',
  directory: '5',
  fifo: '6',
} as const;
export type RawEntryType = keyof typeof RawEntryTypes;

export interface RawTarEntry {
  /** the path as bytes, relative, without a trailing slash */
  path: Buffer;
  type: RawEntryType;
  /** permission and set-id bits (12 bits) */
  mode: number;
  uid: number;
  gid: number;
  /** whole seconds since the epoch (Docker's archive API truncates modification times to the second) */
  mtime: number;
  /** symlink target, or the path of the entry a hard link shares its data with */
  link?: Buffer;
  content?: Buffer;
  devmajor?: number;
  devminor?: number;
}

const block = 512;

/** Reads every entry of a tar archive; `maxBytes` bounds the content held in memory. */
export function readRawTar(archive: Buffer, options: { maxBytes?: number } = {}): RawTarEntry[] {
  const entries: RawTarEntry[] = [];
  let offset = 0;
  let pax: Map<string, Buffer> = new Map();
  let globalPax: Map<string, Buffer> = new Map();
  let longName: Buffer | null = null;
  let longLink: Buffer | null = null;
  let held = 0;
  while (offset + block <= archive.length) {
    const header = archive.subarray(offset, offset + block);
    if (header.every((byte) => byte === 0)) break;
    checkChecksum(header, offset);
    const typeflag = String.fromCharCode(header[156]!) || '0';
    const size = readNumber(header, 124, 12);
    const dataStart = offset + block;
    const data = archive.subarray(dataStart, dataStart + size);
    if (data.length < size)
      throw new Error(`tar: entry at byte ${offset} is cut short (${data.length} of ${size} bytes)`);
    offset = dataStart + Math.ceil(size / block) * block;
    if (typeflag === 'x') {
      pax = parsePax(data);
      continue;
    }
    if (typeflag === 'g') {
      globalPax = parsePax(data);
      continue;
    }
    if (typeflag === 'L') {
      longName = trimNul(data);
      continue;
    }
    if (typeflag === 'K') {
      longLink = trimNul(data);
      continue;
    }
    const records = new Map([...globalPax, ...pax]);
    const ustar = header.subarray(257, 262).toString('latin1') === 'ustar';
    const prefix = ustar ? trimNul(header.subarray(345, 500)) : Buffer.alloc(0);
    const shortName = trimNul(header.subarray(0, 100));
    let path =
      records.get('path') ??
      longName ??
      (prefix.length ? Buffer.concat([prefix, Buffer.from('/'), shortName]) : shortName);
    const link = records.get('linkpath') ?? longLink ?? trimNul(header.subarray(157, 257));
    pax = new Map();
    longName = null;
    longLink = null;
    while (path.length && path[path.length - 1] === 0x2f) path = path.subarray(0, path.length - 1);
    const type = typeOf(typeflag);
    if (!type)
      throw new Error(
        `tar: entry ${JSON.stringify(path.toString('latin1'))} has type ${JSON.stringify(typeflag)}, which a ` +
          `repository tree cannot hold`,
      );
    const paxNumber = (key: string) =>
      records.has(key) ? Number.parseInt(records.get(key)!.toString('latin1'), 10) : null;
    const mtimeText = records.get('mtime')?.toString('latin1');
    const entry: RawTarEntry = {
      path: Buffer.from(path),
      type,
      mode: readNumber(header, 100, 8) & 0o7777,
      uid: paxNumber('uid') ?? readNumber(header, 108, 8),
      gid: paxNumber('gid') ?? readNumber(header, 116, 8),
      mtime: mtimeText ? Math.floor(Number(mtimeText)) : readNumber(header, 136, 12),
    };
    if (type === 'symlink' || type === 'hardlink') entry.link = Buffer.from(link);
    if (type === 'file') {
      held += size;
      if (options.maxBytes !== undefined && held > options.maxBytes)
        throw new Error(`tar: the archive holds more than ${options.maxBytes} bytes`);
      entry.content = Buffer.from(data);
    }
    if (type === 'char' || type === 'block') {
      entry.devmajor = readNumber(header, 329, 8);
      entry.devminor = readNumber(header, 337, 8);
    }
    entries.push(entry);
  }
  return entries;
}

/** Writes entries as a tar archive (in order: a folder before what it holds). */
export function writeRawTar(entries: readonly RawTarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.type === 'file' ? (entry.content ?? Buffer.alloc(0)) : Buffer.alloc(0);
    const name = entry.type === 'directory' ? Buffer.concat([entry.path, Buffer.from('/')]) : entry.path;
    const records: [string, Buffer][] = [
      ['path', name],
      ['uid', Buffer.from(String(entry.uid))],
      ['gid', Buffer.from(String(entry.gid))],
      // exact, whatever the header's 11 octal digits can hold: before 1970 or past 2242
      ['mtime', Buffer.from(String(entry.mtime))],
    ];
    if (entry.link) records.push(['linkpath', entry.link]);
    const paxData = encodePax(records);
    parts.push(
      header({
        name: Buffer.from('././@PaxHeader'),
        typeflag: 'x',
        size: paxData.length,
        mode: 0o644,
        uid: 0,
        gid: 0,
        mtime: entry.mtime,
      }),
      pad(paxData),
    );
    parts.push(
      header({
        name: name.subarray(0, 99),
        typeflag: RawEntryTypes[entry.type],
        size: content.length,
        mode: entry.mode,
        uid: entry.uid,
        gid: entry.gid,
        mtime: entry.mtime,
        link: entry.link?.subarray(0, 99),
        devmajor: entry.devmajor,
        devminor: entry.devminor,
      }),
      pad(content),
    );
  }
  parts.push(Buffer.alloc(block * 2));
  return Buffer.concat(parts);
}

function typeOf(typeflag: string): RawEntryType | null {
  if (typeflag === '0' || typeflag === '\0' || typeflag === '7') return 'file';
  const found = Object.entries(RawEntryTypes).find(([, flag]) => flag === typeflag);
  return found ? (found[0] as RawEntryType) : null;
}

function header(fields: {
  name: Buffer;
  typeflag: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  link?: Buffer;
  devmajor?: number;
  devminor?: number;
}): Buffer {
  const buffer = Buffer.alloc(block);
  fields.name.copy(buffer, 0);
  writeOctal(buffer, 100, 8, fields.mode);
  writeOctal(buffer, 108, 8, Math.min(fields.uid, 0o7777777));
  writeOctal(buffer, 116, 8, Math.min(fields.gid, 0o7777777));
  writeOctal(buffer, 124, 12, fields.size);
  writeOctal(buffer, 136, 12, Math.min(Math.max(0, fields.mtime), 0o77777777777)); // the PAX record is exact
  buffer.write(fields.typeflag, 156, 'latin1');
  fields.link?.copy(buffer, 157);
  buffer.write('ustar\u000000', 257, 'latin1');
  if (fields.devmajor !== undefined) writeOctal(buffer, 329, 8, fields.devmajor);
  if (fields.devminor !== undefined) writeOctal(buffer, 337, 8, fields.devminor);
  buffer.fill(0x20, 148, 156);
  const sum = buffer.reduce((total, byte) => total + byte, 0);
  buffer.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return buffer;
}

function writeOctal(buffer: Buffer, offset: number, length: number, value: number): void {
  buffer.write(
    `${Math.floor(value)
      .toString(8)
      .padStart(length - 1, '0')}\u0000`,
    offset,
    length,
    'latin1',
  );
}

/** An octal field, or a base-256 one (first byte with its high bit set), as GNU and Go write large values. */
function readNumber(header: Buffer, offset: number, length: number): number {
  const field = header.subarray(offset, offset + length);
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text ? Number.parseInt(text, 8) : 0;
}

function checkChecksum(header: Buffer, offset: number): void {
  const stored = readNumber(header, 148, 8);
  let sum = 0;
  for (let index = 0; index < block; index++) sum += index >= 148 && index < 156 ? 0x20 : header[index]!;
  if (sum !== stored) throw new Error(`tar: the header at byte ${offset} has a bad checksum`);
}

function trimNul(data: Buffer): Buffer {
  const end = data.indexOf(0);
  return end === -1 ? data : data.subarray(0, end);
}

function pad(data: Buffer): Buffer {
  const rest = data.length % block;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(block - rest)]);
}

/** PAX records `LEN key=value\n`, values as bytes. */
function parsePax(data: Buffer): Map<string, Buffer> {
  const records = new Map<string, Buffer>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number.parseInt(data.subarray(offset, space).toString('latin1'), 10);
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, offset + length - 1);
    const equals = record.indexOf(0x3d);
    if (equals > 0)
      records.set(record.subarray(0, equals).toString('latin1'), Buffer.from(record.subarray(equals + 1)));
    offset += length;
  }
  return records;
}

function encodePax(records: readonly [string, Buffer][]): Buffer {
  return Buffer.concat(
    records.map(([key, value]) => {
      const body = Buffer.concat([Buffer.from(` ${key}=`, 'latin1'), value, Buffer.from('\n')]);
      let length = body.length + 1;
      while (String(length).length + body.length !== length) length = String(length).length + body.length;
      return Buffer.concat([Buffer.from(String(length), 'latin1'), body]);
    }),
  );
}

import type { IterationMetrics } from '../../shared/contracts/run-metrics';

/**
 * A run's figures as a TensorBoard event file, so `tensorboard --logdir` opens one run's curves or
 * compares several. Written by hand (TensorFlow is not needed): TFRecord framing (length, masked
 * CRC-32C of the length, the record, masked CRC-32C of the record) around `Event` protocol buffers,
 * the first naming the file version, then one per iteration with a scalar summary of every number of
 * that iteration's metrics line, tagged by its path (`train/meanReward`, `training/loss`,
 * `train/outcomes/sandbox_crash`, `time/inferenceS`, `async/staleness/mean`, ...).
 *
 * The event's step is the iteration + 1 (the warm start, iteration -1, is step 0); its wall time is the
 * run's start plus the wall time of the iterations up to it, so the file is the same bytes each time it
 * is written again, and a reader following it sees only records appended.
 */
export function tensorboardEvents(metrics: readonly IterationMetrics[], startedAtS: number): Buffer {
  const records: Buffer[] = [record(event(startedAtS, 0, { fileVersion: 'brain.Event:2' }))];
  let wall = startedAtS;
  for (const line of [...metrics].sort((a, b) => a.iteration - b.iteration)) {
    wall += line.time.wallS;
    const scalars = numbersOf(line).filter(([tag]) => tag !== 'iteration');
    records.push(record(event(wall, line.iteration + 1, { scalars })));
  }
  return Buffer.concat(records);
}

/** The name TensorBoard recognises (it reads files whose name holds `tfevents`). */
export const tensorboardFile = 'events.out.tfevents.0.agentrl';

/** Every finite number of a metrics line with its path; arrays (histograms) and text are left out. */
function numbersOf(value: unknown, path = ''): [string, number][] {
  if (typeof value === 'number') return Number.isFinite(value) && path ? [[path, value]] : [];
  if (typeof value === 'boolean') return path ? [[path, value ? 1 : 0]] : [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    numbersOf(inner, path ? `${path}/${key}` : key),
  );
}

// ---- protocol buffers (tensorflow/core/util/event.proto, summary.proto): only what a scalar needs

function varint(value: number | bigint): Buffer {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest) byte |= 0x80;
    bytes.push(byte);
  } while (rest);
  return Buffer.from(bytes);
}

const key = (field: number, wire: number) => varint((field << 3) | wire);
const bytesField = (field: number, data: Buffer) => Buffer.concat([key(field, 2), varint(data.length), data]);

function event(wallTime: number, step: number, body: { fileVersion?: string; scalars?: [string, number][] }): Buffer {
  const wall = Buffer.alloc(8);
  wall.writeDoubleLE(wallTime);
  const parts = [key(1, 1), wall, key(2, 0), varint(step)];
  if (body.fileVersion) parts.push(bytesField(3, Buffer.from(body.fileVersion, 'utf8')));
  if (body.scalars) {
    const values = body.scalars.map(([tag, value]) => {
      const simple = Buffer.alloc(4);
      simple.writeFloatLE(value);
      return bytesField(1, Buffer.concat([bytesField(1, Buffer.from(tag, 'utf8')), key(2, 5), simple]));
    });
    parts.push(bytesField(5, Buffer.concat(values)));
  }
  return Buffer.concat(parts);
}

// ---- TFRecord framing

function record(data: Buffer): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(data.length));
  const lengthCrc = Buffer.alloc(4);
  lengthCrc.writeUInt32LE(maskedCrc(length));
  const dataCrc = Buffer.alloc(4);
  dataCrc.writeUInt32LE(maskedCrc(data));
  return Buffer.concat([length, lengthCrc, data, dataCrc]);
}

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli), as TFRecord uses it. */
export function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function maskedCrc(data: Uint8Array): number {
  const crc = crc32c(data);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

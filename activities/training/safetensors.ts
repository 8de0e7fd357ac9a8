import { atomicWrite } from '../store/files';

/** dtypes this writer knows, with their byte sizes */
const dtypes = { F32: 4, I64: 8, U8: 1, BOOL: 1 } as const;
export type SafetensorsDtype = keyof typeof dtypes;

export interface Tensor {
  dtype: SafetensorsDtype;
  shape: number[];
  /** row-major values; U8 and BOOL tensors may pass their bytes directly */
  data: readonly number[] | readonly bigint[] | Uint8Array;
}

/**
 * Serialises tensors in the safetensors format: an 8-byte little-endian header length, a JSON header
 * (dtype, shape, data offsets; `__metadata__` holds string values), then the raw little-endian data.
 */
export function encodeSafetensors(tensors: Record<string, Tensor>, metadata: Record<string, string> = {}): Buffer {
  const header: Record<string, unknown> = { __metadata__: metadata };
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const name of Object.keys(tensors).sort()) {
    const tensor = tensors[name]!;
    const count = tensor.shape.reduce((product, size) => product * size, 1);
    if (count !== tensor.data.length)
      throw new Error(
        `tensor ${name}: shape ${JSON.stringify(tensor.shape)} holds ${count} values, got ${tensor.data.length}`,
      );
    if (tensor.data instanceof Uint8Array && tensor.dtype !== 'U8' && tensor.dtype !== 'BOOL')
      throw new Error(`tensor ${name}: raw bytes are only for U8 and BOOL, not ${tensor.dtype}`);
    const bytes =
      tensor.data instanceof Uint8Array
        ? Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength)
        : Buffer.alloc(count * dtypes[tensor.dtype]);
    if (!(tensor.data instanceof Uint8Array))
      (tensor.data as readonly (number | bigint)[]).forEach((value, index) => {
        if (tensor.dtype === 'F32') bytes.writeFloatLE(Number(value), index * 4);
        else if (tensor.dtype === 'I64') bytes.writeBigInt64LE(BigInt(value), index * 8);
        else bytes.writeUInt8(Number(value) ? (tensor.dtype === 'BOOL' ? 1 : Number(value)) : 0, index);
      });
    header[name] = { dtype: tensor.dtype, shape: tensor.shape, data_offsets: [offset, offset + bytes.length] };
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  // the data section starts 8-byte aligned, as the reference implementation writes it
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json, 'utf8'), ...chunks]);
}

/** Writes a safetensors file atomically. */
export async function writeSafetensors(
  path: string,
  tensors: Record<string, Tensor>,
  metadata: Record<string, string> = {},
): Promise<void> {
  await atomicWrite(path, encodeSafetensors(tensors, metadata));
}

/** A decoded tensor: its dtype, shape and row-major values as numbers (I64 within the safe integer range). */
export interface DecodedTensor {
  dtype: SafetensorsDtype;
  shape: number[];
  values: number[];
}

/** Reads what encodeSafetensors writes (the dtypes it knows): the tensors by name and the metadata. */
export function decodeSafetensors(file: Buffer): {
  tensors: Record<string, DecodedTensor>;
  metadata: Record<string, string>;
} {
  if (file.length < 8) throw new Error('safetensors: shorter than its 8-byte header length');
  const headerLength = Number(file.readBigUInt64LE(0));
  if (8 + headerLength > file.length)
    throw new Error(`safetensors: a header of ${headerLength} bytes does not fit in ${file.length}`);
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  > & { __metadata__?: Record<string, string> };
  const data = file.subarray(8 + headerLength);
  const tensors: Record<string, DecodedTensor> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const {
      dtype,
      shape,
      data_offsets: [start, end],
    } = entry as { dtype: string; shape: number[]; data_offsets: [number, number] };
    if (!(dtype in dtypes))
      throw new Error(`safetensors: tensor ${name} has dtype ${dtype}, which this reader does not know`);
    const size = dtypes[dtype as SafetensorsDtype];
    const bytes = data.subarray(start, end);
    const values = Array.from({ length: bytes.length / size }, (_, index) =>
      dtype === 'F32'
        ? bytes.readFloatLE(index * 4)
        : dtype === 'I64'
          ? Number(bytes.readBigInt64LE(index * 8))
          : bytes.readUInt8(index),
    );
    tensors[name] = { dtype: dtype as SafetensorsDtype, shape, values };
  }
  return { tensors, metadata: header.__metadata__ ?? {} };
}

import { atomicWrite } from '../store/artifact-store';

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
    if (count !== tensor.data.length) throw new Error(`tensor ${name}: shape ${JSON.stringify(tensor.shape)} holds ${count} values, got ${tensor.data.length}`);
    if (tensor.data instanceof Uint8Array && tensor.dtype !== 'U8' && tensor.dtype !== 'BOOL') throw new Error(`tensor ${name}: raw bytes are only for U8 and BOOL, not ${tensor.dtype}`);
    const bytes = tensor.data instanceof Uint8Array ? Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength) : Buffer.alloc(count * dtypes[tensor.dtype]);
    if (!(tensor.data instanceof Uint8Array)) (tensor.data as readonly (number | bigint)[]).forEach((value, index) => {
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
export async function writeSafetensors(path: string, tensors: Record<string, Tensor>, metadata: Record<string, string> = {}): Promise<void> {
  await atomicWrite(path, encodeSafetensors(tensors, metadata));
}

/** Turns text into token ids and back; the learning loop brings the model's own tokenizer. */
export interface Tokenizer {
  readonly name: string;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** One token per UTF-8 byte: ids 0..255. */
export const byteTokenizer: Tokenizer = {
  name: 'bytes',
  encode: (text) => Array.from(new TextEncoder().encode(text)),
  decode: (ids) => new TextDecoder().decode(Uint8Array.from(ids)),
};

/** Number of tokens of a text without materialising the ids (byte tokenizer only). */
export function countByteTokens(text: string): number {
  return new TextEncoder().encode(text).length;
}

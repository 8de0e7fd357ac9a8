import definition from '../tokenizer.json';

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

/**
 * The policy's tokenizer, defined once in shared/tokenizer.json and implemented identically in
 * trainer/agentrl_trainer/tokenizer.py: ids 0-255 are raw bytes, then the special tokens, then
 * multi-byte words. Encoding is greedy longest match of the words over the bytes, else one byte;
 * special tokens are never produced from text. Golden ids: shared/golden/tokenizer.json.
 */
export class WordTokenizer implements Tokenizer {
  readonly name: string;
  readonly vocabSize: number;
  readonly specialIds: Readonly<Record<string, number>>;
  private readonly byFirst = new Map<number, { bytes: Uint8Array; id: number }[]>();
  private readonly idBytes = new Map<number, Uint8Array>();

  constructor(spec: { name: string; byteTokens: number; specials: readonly string[]; words: readonly string[] }) {
    this.name = spec.name;
    this.specialIds = Object.fromEntries(spec.specials.map((special, index) => [special, spec.byteTokens + index]));
    const firstWord = spec.byteTokens + spec.specials.length;
    const encoder = new TextEncoder();
    const words = spec.words.map((word, index) => ({ bytes: encoder.encode(word), id: firstWord + index }));
    this.vocabSize = firstWord + words.length;
    // candidates by first byte, longest first (a stable sort keeps the list order among equals, as Python's does)
    for (const word of [...words].sort((a, b) => b.bytes.length - a.bytes.length)) {
      const list = this.byFirst.get(word.bytes[0]!) ?? [];
      list.push(word);
      this.byFirst.set(word.bytes[0]!, list);
      this.idBytes.set(word.id, word.bytes);
    }
  }

  /** Token ids of a text or byte string; never a special id. */
  encode(data: string | Uint8Array): number[] {
    const raw = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const ids: number[] = [];
    let position = 0;
    outer: while (position < raw.length) {
      for (const word of this.byFirst.get(raw[position]!) ?? []) {
        if (startsWith(raw, word.bytes, position)) {
          ids.push(word.id);
          position += word.bytes.length;
          continue outer;
        }
      }
      ids.push(raw[position]!);
      position++;
    }
    return ids;
  }

  /** The exact bytes of non-special ids; a special id throws. */
  decodeBytes(ids: readonly number[]): Uint8Array {
    const parts: number[] = [];
    for (const id of ids) {
      if (id < 256) parts.push(id);
      else {
        const bytes = this.idBytes.get(id);
        if (!bytes) throw new Error(`token ${id} is a special token or outside the vocabulary of ${this.vocabSize}`);
        parts.push(...bytes);
      }
    }
    return Uint8Array.from(parts);
  }

  decode(ids: readonly number[]): string {
    return new TextDecoder().decode(this.decodeBytes(ids));
  }
}

function startsWith(data: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (at + prefix.length > data.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[at + i] !== prefix[i]) return false;
  return true;
}

/** The tokenizer of the embedded policy. */
export const policyTokenizer = new WordTokenizer(definition);

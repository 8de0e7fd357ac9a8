// The policy tokenizer agrees with the Python implementation on a golden corpus both test suites read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { byteTokenizer, policyTokenizer } from '../../shared/math/tokenizer';
import { projectRoot } from '../../workers/config';

const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'tokenizer.json'), 'utf8')) as {
  tokenizer: string;
  vocabSize: number;
  specialIds: Record<string, number>;
  cases: { name: string; bytesBase64: string; ids: number[] }[];
};

describe('policy tokenizer', () => {
  test('has the golden definition', () => {
    assert.equal(policyTokenizer.name, golden.tokenizer);
    assert.equal(policyTokenizer.vocabSize, golden.vocabSize);
    assert.deepEqual(policyTokenizer.specialIds, golden.specialIds);
  });
  for (const goldenCase of golden.cases) {
    test(`golden ids and an exact round trip: ${goldenCase.name}`, () => {
      const bytes = Buffer.from(goldenCase.bytesBase64, 'base64');
      const ids = policyTokenizer.encode(bytes);
      assert.deepEqual(ids, goldenCase.ids);
      assert.deepEqual(Buffer.from(policyTokenizer.decodeBytes(ids)), bytes);
    });
  }
  test('text that spells a special marker never produces its id', () => {
    const specials = new Set(Object.values(golden.specialIds));
    for (const name of Object.keys(golden.specialIds))
      assert.ok(
        policyTokenizer.encode(`x${name}y`).every((id) => !specials.has(id)),
        name,
      );
    assert.throws(() => policyTokenizer.decodeBytes([golden.specialIds['<act>']!]), /special token/);
  });
  test('words shorten what the policy reads and writes', () => {
    const call = '{"tool": "bash", "command": "python3 -m pytest -q"}';
    assert.ok(policyTokenizer.encode(call).length < call.length / 4);
  });
});

describe('byte tokenizer', () => {
  test('round-trips text, one id per UTF-8 byte', () => {
    const ids = byteTokenizer.encode('héllo');
    assert.deepEqual(ids, [104, 195, 169, 108, 108, 111]);
    assert.equal(byteTokenizer.decode(ids), 'héllo');
  });
});

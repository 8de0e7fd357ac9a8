// Chat model families' tokenizers and templates agree with the Python side (tokenizers, transformers)
// on a golden corpus both suites read: Unicode, CJK, emoji, control characters, spelled special
// tokens, invalid UTF-8 in tool output; rendered conversations with and without tools.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chatFamilyNames, loadChatTokenizer, modelCacheDir } from '../../activities/policies/chat/chat-tokenizer';
import type { ChatMessage, ChatTool } from '../../shared/chat/tool-format';
import { projectRoot } from '../../workers/config';

interface GoldenFamily {
  texts: { name: string; text?: string; bytesBase64?: string; ids: number[] }[];
  markup: { name: string; text: string; ids: number[] }[];
  generated: { name: string; text: string; ids: number[]; reencoded: number[] }[];
  conversations: {
    name: string;
    messages: ChatMessage[];
    tools: boolean;
    addGenerationPrompt: boolean;
    rendered: string;
    ids: number[];
  }[];
}
const golden = JSON.parse(readFileSync(join(projectRoot, 'shared', 'golden', 'chat-tokenizers.json'), 'utf8')) as {
  tool: ChatTool;
  families: Record<string, GoldenFamily>;
};

/** Tool output bytes become the observation's text as the sandbox runner decodes them (replacement characters). */
const corpusText = (entry: { text?: string; bytesBase64?: string }) =>
  entry.text ?? Buffer.from(entry.bytesBase64!, 'base64').toString('utf8');

describe('chat tokenizers: golden corpus shared with Python', () => {
  test('the corpus covers both families and the cases the contract names', () => {
    assert.deepEqual(Object.keys(golden.families).sort(), [...chatFamilyNames].sort());
    for (const family of Object.values(golden.families)) {
      for (const name of ['cjk', 'emoji', 'control', 'spelled-specials', 'invalid-utf8'])
        assert.ok(
          family.texts.some((entry) => entry.name === name),
          name,
        );
    }
  });
  for (const [name, family] of Object.entries(golden.families)) {
    const tokenizer = loadChatTokenizer(name);
    for (const entry of family.texts) {
      test(`${name}: text ids of ${entry.name}`, () => {
        const text = corpusText(entry);
        assert.deepEqual(tokenizer.encodeText(text), entry.ids);
        // decoding gives the text back, as the tokenizer's normalizer reads it
        assert.equal(tokenizer.decode(entry.ids), tokenizer.normalize(text));
      });
    }
    test(`${name}: spelled special and structural tokens stay text; markup makes them tokens`, () => {
      const spelled = family.texts.find((entry) => entry.name === 'spelled-specials')!;
      const added = new Set(
        (
          JSON.parse(readFileSync(join(modelCacheDir(), name, 'tokenizer.json'), 'utf8')) as {
            added_tokens: { id: number }[];
          }
        ).added_tokens.map((token) => token.id),
      );
      for (const entry of family.texts)
        assert.deepEqual(
          entry.ids.filter((id) => added.has(id)),
          [],
          `${entry.name}: text produced an added token`,
        );
      assert.ok(
        tokenizer.encodeMarkup('<tool_call>').length === 1 || name !== 'qwen3',
        'Qwen3 markup keeps its structural tokens',
      );
      for (const id of tokenizer.stopIds)
        assert.ok(!spelled.ids.includes(id), `a spelled end-of-turn must not become id ${id}`);
      assert.ok(
        tokenizer.encodeMarkup(tokenizer.endOfTurn).length === 1 &&
          tokenizer.stopIds.includes(tokenizer.encodeMarkup(tokenizer.endOfTurn)[0]!),
      );
    });
    test(`${name}: invalid UTF-8 arrives as replacement characters with the same ids`, () => {
      const invalid = family.texts.find((entry) => entry.name === 'invalid-utf8')!;
      assert.ok(corpusText(invalid).includes('\uFFFD'));
    });
    for (const entry of family.generated) {
      test(`${name}: generated ids of ${entry.name} decode to the text, and re-encoding gives other ids`, () => {
        assert.equal(tokenizer.decode(entry.ids), entry.text);
        assert.deepEqual(tokenizer.encodeText(entry.text), entry.reencoded);
        assert.notDeepEqual(entry.reencoded, entry.ids);
      });
    }
    for (const entry of family.markup) {
      test(`${name}: markup ids of ${entry.name}`, () =>
        assert.deepEqual(tokenizer.encodeMarkup(entry.text), entry.ids));
    }
    for (const entry of family.conversations) {
      test(`${name}: the template renders ${entry.name} as transformers does, piece by piece`, () => {
        const options = {
          tools: entry.tools ? [golden.tool] : undefined,
          addGenerationPrompt: entry.addGenerationPrompt,
        };
        assert.equal(tokenizer.render(entry.messages, options), entry.rendered);
        assert.deepEqual(tokenizer.renderIds(entry.messages, options), entry.ids);
      });
    }
  }
  test('an unknown family is refused with the known ones', () => {
    assert.throws(
      () => loadChatTokenizer('llama-9000'),
      /unknown chat tokenizer "llama-9000"; known: smollm2-135m-instruct, qwen3/,
    );
  });
  test('a directory without the files says which file is missing', () => {
    assert.throws(
      () => loadChatTokenizer('/nonexistent-agentrl-dir'),
      /\/nonexistent-agentrl-dir\/tokenizer\.json is missing/,
    );
  });
});

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import families from '../../../shared/chat/families.json';
import type { ChatMessage, ChatTool } from '../../../shared/chat/tool-format';

/**
 * A chat model family's tokenizer and chat template, loaded in process from a Hugging Face
 * `tokenizer.json` and `tokenizer_config.json` (@huggingface/tokenizers, @huggingface/jinja). The
 * same contract as trainer/agentrl_trainer/chat_tokenizers.py, checked by both suites against
 * shared/golden/chat-tokenizers.json:
 *
 * - text (a message's content, a tool's output) never produces an added token (a special one such
 *   as <|im_end|>, or a structural one such as Qwen3's </tool_response>), even where it spells one;
 *   template markup does;
 * - a rendered conversation is tokenized piece by piece: the template rendered with every content
 *   replaced by a sentinel, the markup between sentinels encoded as markup, each content as text.
 */

export const chatFamilyNames = Object.keys(families.families);
export type ToolFormat = 'template' | 'hermes-system';

export interface ChatTokenizer {
  /** the family name, or the directory it was loaded from */
  readonly name: string;
  /**
   * sha256 (16 hex) of tokenizer.json and tokenizer_config.json: a policy is prepared with it, and every host must load
   * the same
   */
  readonly fingerprint: string;
  readonly toolFormat: ToolFormat;
  readonly vocabSize: number;
  /** the id rows of a batch are padded with (the pad token, else the end of a turn) */
  readonly padId: number;
  /** the ids that end an assistant turn (the template's end of message, the eos token) */
  readonly stopIds: readonly number[];
  /** the text of the end-of-turn token the template writes after each message */
  readonly endOfTurn: string;
  /** the model's window as the tokenizer states it (model_max_length), null when it states none */
  readonly window: number | null;
  encodeText(text: string): number[];
  encodeMarkup(text: string): number[];
  /** every id's text, special tokens included */
  decode(ids: readonly number[]): string;
  /** a text as the tokenizer's normalizer reads it (Qwen3 folds to NFC; SmolLM2 keeps it) */
  normalize(text: string): string;
  render(
    messages: readonly ChatMessage[],
    options?: { tools?: readonly ChatTool[]; addGenerationPrompt?: boolean },
  ): string;
  renderIds(
    messages: readonly ChatMessage[],
    options?: { tools?: readonly ChatTool[]; addGenerationPrompt?: boolean },
  ): number[];
}

/**
 * The model cache: AGENTRL_MODEL_CACHE, else agentrl/models in the user's cache folder (XDG_CACHE_HOME, else
 * ~/.cache), shared by every checkout on the machine (trainer/agentrl_trainer/chat_tokenizers.py agrees).
 */
export function modelCacheDir(): string {
  if (process.env.AGENTRL_MODEL_CACHE) return process.env.AGENTRL_MODEL_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agentrl', 'models');
}

interface AddedTokenJson {
  id: number;
  content: string;
  special?: boolean;
}

const loaded = new Map<string, ChatTokenizer>();

/**
 * A family's tokenizer by name (shared/chat/families.json, read from the model cache) or from a
 * directory holding tokenizer.json and tokenizer_config.json. Missing files throw with what to run.
 */
export function loadChatTokenizer(nameOrDir: string): ChatTokenizer {
  const cached = loaded.get(nameOrDir);
  if (cached) return cached;
  const known = (families.families as Record<string, { toolFormat: string } | undefined>)[nameOrDir];
  const isDir = !known && (isAbsolute(nameOrDir) || nameOrDir.startsWith('.'));
  if (!known && !isDir)
    throw new Error(
      `unknown chat tokenizer ${JSON.stringify(nameOrDir)}; known: ${chatFamilyNames.join(', ')}, or a ` +
        `directory with tokenizer.json and tokenizer_config.json`,
    );
  const dir = known ? join(modelCacheDir(), nameOrDir) : resolve(nameOrDir);
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    if (!existsSync(join(dir, file))) {
      throw new Error(
        `${join(dir, file)} is missing` +
          (known
            ? ' (run bash scripts/setup.sh, or ' +
              '.venv/bin/python -m agentrl_trainer.chat_tokenizers prepare from trainer/)'
            : ''),
      );
    }
  }
  const files = ['tokenizer.json', 'tokenizer_config.json'].map((file) => readFileSync(join(dir, file)));
  const fingerprint = createHash('sha256').update(files[0]!).update('\0').update(files[1]!).digest('hex').slice(0, 16);
  const definition = JSON.parse(files[0]!.toString('utf8')) as {
    added_tokens?: AddedTokenJson[];
    model: { vocab: Record<string, number> | unknown[] };
  };
  const config = JSON.parse(files[1]!.toString('utf8')) as Record<string, unknown>;
  const tokenizer = createChatTokenizer(
    nameOrDir,
    fingerprint,
    definition,
    config,
    (known?.toolFormat as ToolFormat | undefined) ??
      (typeof config.chat_template === 'string' && config.chat_template.includes('tools')
        ? 'template'
        : 'hermes-system'),
  );
  loaded.set(nameOrDir, tokenizer);
  return tokenizer;
}

function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return null;
}

function createChatTokenizer(
  name: string,
  fingerprint: string,
  definition: { added_tokens?: AddedTokenJson[]; model: { vocab: Record<string, number> | unknown[] } },
  config: Record<string, unknown>,
  toolFormat: ToolFormat,
): ChatTokenizer {
  const template = typeof config.chat_template === 'string' ? config.chat_template : null;
  if (!template) throw new Error(`chat tokenizer ${name}: tokenizer_config.json has no chat_template`);
  const tokenizerConfig = { ...config, clean_up_tokenization_spaces: false };
  const markup = new Tokenizer(definition, tokenizerConfig);
  // the text encoder: the same definition without its added tokens, so text that spells one (a special
  // token, or a structural one such as Qwen3's </tool_response>) stays text
  const text = new Tokenizer({ ...definition, added_tokens: [] }, tokenizerConfig);
  const compiled = new Template(template);
  const specialTokens = Object.fromEntries(
    ['bos_token', 'eos_token', 'pad_token', 'unk_token']
      .map((key): [string, string | null] => [key, tokenText(config[key])])
      .filter((entry): entry is [string, string] => entry[1] !== null),
  );
  const eos = tokenText(config.eos_token);
  const render: ChatTokenizer['render'] = (messages, options = {}) =>
    compiled.render({
      ...specialTokens,
      messages: messages.map((message) => ({ ...message })),
      ...(options.tools && options.tools.length > 0 ? { tools: options.tools } : {}),
      add_generation_prompt: options.addGenerationPrompt ?? false,
    });
  // the end-of-turn token is the one the template writes right after a message's content (ChatML's <|im_end|>)
  const probe = 'agentrl-probe';
  const probed = render([
    { role: 'system', content: probe },
    { role: 'user', content: probe },
  ]);
  const after = probed.slice(probed.lastIndexOf(probe) + probe.length);
  const endOfTurn = (definition.added_tokens ?? [])
    .map((token) => token.content)
    .filter((content) => after.startsWith(content))
    .sort((a, b) => b.length - a.length)[0];
  if (!endOfTurn)
    throw new Error(
      `chat tokenizer ${name}: its template writes no added token after a message ` +
        `(${JSON.stringify(after.slice(0, 20))}); the end of a turn must be a token`,
    );
  const stopIds = [
    ...new Set(
      [endOfTurn, eos]
        .filter((token): token is string => token !== null)
        .map((token) => markup.token_to_id(token))
        .filter((id): id is number => id !== undefined),
    ),
  ];
  const vocabSize = Math.max(
    Array.isArray(definition.model.vocab)
      ? definition.model.vocab.length
      : Object.values(definition.model.vocab).reduce((a, b) => Math.max(a, b + 1), 0),
    ...(definition.added_tokens ?? []).map((token) => token.id + 1),
  );
  const maxLength =
    typeof config.model_max_length === 'number' && config.model_max_length < 1e12 ? config.model_max_length : null;
  const encodeText = (value: string) => (value === '' ? [] : text.encode(value, { add_special_tokens: false }).ids);
  const encodeMarkup = (value: string) => (value === '' ? [] : markup.encode(value, { add_special_tokens: false }).ids);
  const pad = tokenText(config.pad_token);
  const padId = (pad === null ? undefined : markup.token_to_id(pad)) ?? stopIds[0]!;
  return {
    name,
    fingerprint,
    padId,
    toolFormat,
    vocabSize,
    stopIds,
    endOfTurn,
    window: maxLength,
    encodeText,
    encodeMarkup,
    decode: (ids) =>
      ids.length === 0
        ? ''
        : markup.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    normalize: (value) => (markup.normalizer ? markup.normalizer.normalize(value) : value),
    render,
    renderIds(messages, options = {}) {
      const contents = messages.map((message) => message.content ?? '');
      const sentinel = contentSentinel(contents);
      const rendered = render(messages, options);
      // every content as a sentinel; else, where the template looks into what the model wrote (Qwen3
      // reformats reasoning), every content but the assistant's, whose rendering is then markup
      for (const replaced of [() => true, (message: ChatMessage) => message.role !== 'assistant']) {
        const parts = render(
          messages.map((message, index) =>
            replaced(message) ? { ...message, content: `${sentinel}${index}${sentinel}` } : message,
          ),
          options,
        ).split(sentinel);
        if (parts.map((part, position) => (position % 2 === 0 ? part : contents[Number(part)]!)).join('') !== rendered)
          continue;
        const ids: number[] = [];
        parts.forEach((part, position) =>
          ids.push(...(position % 2 === 0 ? encodeMarkup(part) : encodeText(contents[Number(part)]!))),
        );
        return ids;
      }
      // a template that looks into every content: each content found in order in the rendering is text, the rest markup
      const ids: number[] = [];
      let cursor = 0;
      for (const content of contents) {
        const at = content === '' ? -1 : rendered.indexOf(content, cursor);
        if (at < 0) continue;
        ids.push(...encodeMarkup(rendered.slice(cursor, at)), ...encodeText(content));
        cursor = at + content.length;
      }
      ids.push(...encodeMarkup(rendered.slice(cursor)));
      return ids;
    },
  };
}

/** A marker no content holds (the same choice as the Python side). */
export function contentSentinel(contents: readonly string[]): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const sentinel = `\u0000agentrl-content-${attempt}\u0000`;
    if (!contents.some((content) => content.includes(sentinel))) return sentinel;
  }
  throw new Error('no sentinel free of the contents');
}

/**
 * The policy spec: one string that names a policy wherever one is chosen (an episode's input, a
 * training run's episodes, `npx agentrl eval --policy`). This module is its only parser and formatter.
 *
 *   scripted:FILE.jsonl         replays one action per line
 *   completions:URL[#VERSION]   samples from a vLLM-compatible server; #VERSION pins the model it must serve
 *   vllm:URL[#VERSION]          a chat model served by vLLM (token ids in and out, its weight version checked)
 *   sglang:URL[#VERSION]        a chat model served by SGLang (/generate with input_ids)
 *   tokens:FILE.jsonl           a chat test policy: fixed token ids per turn, one JSON array (or {ids, logprobs}) a
 * line
 *   replies:FILE.jsonl          a chat test backend: the assistant's text per model call (or turn), one JSON string a
 * line, encoded by the model family's tokenizer and closed by its end-of-turn id
 *   demo:format                 the format demonstrator over the constrained action space
 *   demo:tools                  the chat format demonstrator: well-formed native tool calls, then submit
 *   demo:solve                  the solved chat demonstrator: reads the files the task's reference fix changes, writes
 * them fixed, runs the tests, submits (a task with a solution.patch)
 *   random:                     uniform over the constrained action space
 *   FILE.onnx                   an exported policy version, served by an embedded policy server (the CLI's eval)
 */
export type PolicySpec =
  | { kind: 'scripted'; file: string }
  | { kind: 'completions'; url: string; version?: string }
  | { kind: 'vllm'; url: string; version?: string }
  | { kind: 'sglang'; url: string; version?: string }
  | { kind: 'tokens'; file: string }
  | { kind: 'replies'; file: string }
  | { kind: 'demo'; name: DemoName }
  | { kind: 'random' }
  | { kind: 'onnx'; file: string };

export type PolicySpecKind = PolicySpec['kind'];

/**
 * The demonstrators: `format` speaks the compact action language; `tools` (the call format, no fix) and `solve` (the
 * task's reference fix) the chat-tools interface.
 */
export const demoNames = ['format', 'tools', 'solve'] as const;
export type DemoName = (typeof demoNames)[number];

/** The forms a spec may take, for error messages. */
export const policySpecForms =
  'scripted:FILE.jsonl, completions:URL[#VERSION], vllm:URL[#VERSION], sglang:URL[#VERSION], tokens:FILE.jsonl, ' +
  'replies:FILE.jsonl, ' +
  'demo:format, demo:tools, demo:solve, random:, FILE.onnx';

/**
 * The kinds whose server serves versions by name: an episode may switch between them (a resume, an asynchronous run).
 */
export const servedPolicyKinds: readonly string[] = ['completions', 'vllm', 'sglang'];

export type ParsedPolicySpec = { ok: true; spec: PolicySpec } | { ok: false; error: string };

/** Reads a policy spec; an error names what is wrong and lists the known forms. */
export function parsePolicySpec(text: string): ParsedPolicySpec {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const target = colon < 0 ? '' : text.slice(colon + 1);
  const fail = (error: string): ParsedPolicySpec => ({ ok: false, error: `${error}; known: ${policySpecForms}` });
  switch (kind) {
    case 'scripted':
      return target ? { ok: true, spec: { kind: 'scripted', file: target } } : fail('scripted: needs a file');
    case 'tokens':
      return target ? { ok: true, spec: { kind: 'tokens', file: target } } : fail('tokens: needs a file');
    case 'replies':
      return target ? { ok: true, spec: { kind: 'replies', file: target } } : fail('replies: needs a file');
    case 'vllm':
    case 'sglang':
    case 'completions': {
      const hash = target.indexOf('#');
      const address = (hash < 0 ? target : target.slice(0, hash)).replace(/\/+$/, '');
      const version = hash < 0 ? '' : target.slice(hash + 1);
      if (!/^https?:\/\/[^\s/]+/.test(address))
        return fail(`${kind}: needs an http(s) URL, got ${JSON.stringify(target)}`);
      if (hash >= 0 && !version) return fail(`${kind}: the version after # must not be empty`);
      return { ok: true, spec: { kind, url: address, ...(version ? { version } : {}) } };
    }
    case 'demo':
      return (demoNames as readonly string[]).includes(target)
        ? { ok: true, spec: { kind: 'demo', name: target as DemoName } }
        : fail(
            `demo: knows only ${demoNames.map((name) => `demo:${name}`).join(', ')}, got ${JSON.stringify(text)}`,
          );
    case 'random':
      return target === ''
        ? { ok: true, spec: { kind: 'random' } }
        : fail(`random: takes nothing after the colon, got ${JSON.stringify(text)}`);
    default:
      if (text.endsWith('.onnx') && !/^[a-z]+:\/\//.test(text)) return { ok: true, spec: { kind: 'onnx', file: text } };
      return fail(`unknown policy ${JSON.stringify(text)}`);
  }
}

/** The text of a spec; parsePolicySpec(formatPolicySpec(s)) gives s back. */
export function formatPolicySpec(spec: PolicySpec): string {
  switch (spec.kind) {
    case 'scripted':
      return `scripted:${spec.file}`;
    case 'completions':
    case 'vllm':
    case 'sglang':
      return `${spec.kind}:${spec.url}${spec.version ? `#${spec.version}` : ''}`;
    case 'tokens':
      return `tokens:${spec.file}`;
    case 'replies':
      return `replies:${spec.file}`;
    case 'demo':
      return `demo:${spec.name}`;
    case 'random':
      return 'random:';
    case 'onnx':
      return spec.file;
  }
}

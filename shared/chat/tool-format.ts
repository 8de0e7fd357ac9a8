import { checkRelativePath, type ParsedToolCall, ToolCall, toolNames } from '../contracts/tool-call';

/**
 * Native tool calls of chat models. The tools `bash`, `write_file` and `submit` are offered as
 * OpenAI-style function schemas: through the chat template's own `tools` where it has them (Qwen3),
 * else described in the system prompt (SmolLM2: {@link hermesToolPrompt}). Either way the model
 * writes a call as Hermes-style JSON between tags, one call per turn:
 *
 *   <tool_call>
 *   {"name": "bash", "arguments": {"command": "pytest -q"}}
 *   </tool_call>
 *
 * Text before the call (reasoning) is allowed; a malformed call is a tool error whose message says
 * what was wrong, never a crash.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** An OpenAI-style function tool, as chat templates take them. */
export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, { type: string; description: string }>;
      required: string[];
    };
  };
}

export const chatTools: readonly ChatTool[] = [
  {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run a shell command in the repository root; the answer is its output and exit code.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'the command line' } },
        required: ['command'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file (created or replaced), its path relative to the repository root.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'relative path' },
          content: { type: 'string', description: 'the whole new content' },
        },
        required: ['path', 'content'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'submit',
      description: 'End the episode: the repository as it is now is graded.',
      parameters: { type: 'object', properties: {}, required: [] },
    },
  },
];

export const toolCallOpen = '<tool_call>';
export const toolCallClose = '</tool_call>';

/** The instructions for a template without `tools`: the schemas and the call format, in the system prompt. */
export function hermesToolPrompt(tools: readonly ChatTool[] = chatTools): string {
  return [
    'You can call tools. Their signatures, one JSON object per line:',
    ...tools.map((tool) => JSON.stringify(tool.function)),
    'To call a tool, write exactly one call in this form and stop:',
    `${toolCallOpen}\n{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}\n${toolCallClose}`,
  ].join('\n');
}

/** The default system prompt of a chat agent. */
export const defaultChatSystemPrompt =
  'You are a software engineer fixing a bug in a repository. Work with the tools, one tool call per turn; call ' +
  'submit when the tests pass.';

/**
 * The tool call in a model's turn. `cutByLength`: generation stopped at the length limit, so an
 * unclosed call says so rather than reading as malformed.
 */
export function parseChatToolCall(full: string, options: { cutByLength?: boolean } = {}): ParsedToolCall {
  // a call mentioned while reasoning is not the call: only the text after the reasoning counts
  const thought = full.lastIndexOf('</think>');
  const text = thought >= 0 ? full.slice(thought + '</think>'.length) : full;
  const open = text.indexOf(toolCallOpen);
  if (open < 0) {
    if (options.cutByLength)
      return { ok: false, error: 'the turn was cut by the length limit before any tool call; write a shorter turn' };
    return {
      ok: false,
      error:
        `no tool call: write one as ${toolCallOpen}{"name": ..., "arguments": {...}}${toolCallClose}; ` +
        `tools: ${toolNames.join(', ')}`,
    };
  }
  let close = text.indexOf(toolCallClose, open);
  if (close < 0) {
    if (options.cutByLength)
      return {
        ok: false,
        error: `the tool call was cut by the length limit before ${toolCallClose}; write a shorter call`,
      };
    return { ok: false, error: `the tool call is not closed with ${toolCallClose}` };
  }
  // a written file may hold </tool_call> itself: the call ends at the first closing tag after valid JSON
  let body = text.slice(open + toolCallOpen.length, close).trim();
  let value: unknown;
  let parseError: Error | null = null;
  for (let candidate = close; candidate >= 0; candidate = text.indexOf(toolCallClose, candidate + 1)) {
    try {
      value = JSON.parse(text.slice(open + toolCallOpen.length, candidate).trim());
      close = candidate;
      body = text.slice(open + toolCallOpen.length, close).trim();
      parseError = null;
      break;
    } catch (error) {
      parseError ??= error as Error;
    }
  }
  if (parseError)
    return {
      ok: false,
      error: `the tool call is not valid JSON (${parseError.message}): ${JSON.stringify(body.slice(0, 80))}`,
    };
  if (text.indexOf(toolCallOpen, close) >= 0)
    return { ok: false, error: 'more than one tool call in a turn; make one call and read its result' };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'the tool call must be a JSON object {"name": ..., "arguments": {...}}' };
  const { name, arguments: rawArguments, ...rest } = value as { name?: unknown; arguments?: unknown };
  if (Object.keys(rest).length > 0)
    return {
      ok: false,
      error: `the tool call has unknown fields ${Object.keys(rest)
        .map((key) => JSON.stringify(key))
        .join(', ')}; it takes "name" and "arguments"`,
    };
  if (typeof name !== 'string')
    return { ok: false, error: `the tool call's "name" must be a string naming a tool: ${toolNames.join(', ')}` };
  if (!(toolNames as readonly string[]).includes(name))
    return { ok: false, error: `unknown tool ${JSON.stringify(name)}; known tools: ${toolNames.join(', ')}` };
  // some models write the arguments as a JSON string
  let args: unknown = rawArguments ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { ok: false, error: `${name}: "arguments" must be a JSON object` };
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { ok: false, error: `${name}: "arguments" must be a JSON object` };
  const schema = chatTools.find((tool) => tool.function.name === name)!.function.parameters;
  for (const [field, spec] of Object.entries(schema.properties)) {
    const given = (args as Record<string, unknown>)[field];
    if (given === undefined) {
      if (schema.required.includes(field))
        return { ok: false, error: `${name}: missing argument "${field}" (${spec.type})` };
    } else if (typeof given !== spec.type) {
      return {
        ok: false,
        error:
          `${name}: argument "${field}" must be a ${spec.type}, got ` +
          `${Array.isArray(given) ? 'an array' : given === null ? 'null' : `a ${typeof given}`}`,
      };
    }
  }
  const unknown = Object.keys(args).filter((field) => !(field in schema.properties));
  if (unknown.length > 0)
    return {
      ok: false,
      error:
        `${name}: unknown argument${unknown.length > 1 ? 's' : ''} ` +
        (`${unknown.map((field) => JSON.stringify(field)).join(', ')}; it takes ` +
          `${Object.keys(schema.properties).join(', ') || 'none'}`),
    };
  const parsed = ToolCall.safeParse({ tool: name, ...args });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${name}: ${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}` };
  }
  if (parsed.data.tool === 'write_file') {
    const pathError = checkRelativePath(parsed.data.path);
    if (pathError) return { ok: false, error: `write_file: path: ${pathError}` };
  }
  return { ok: true, call: parsed.data };
}

/** `change` (write_file), `check` (a bash call that runs pytest) or null: stop points, as in the compact language. */
export function chatActionKind(text: string): 'change' | 'check' | null {
  const parsed = parseChatToolCall(text);
  if (!parsed.ok) return null;
  if (parsed.call.tool === 'write_file') return 'change';
  if (parsed.call.tool === 'bash' && /\bpytest\b/.test(parsed.call.command)) return 'check';
  return null;
}

import { z } from 'zod';

/**
 * The tools an agent can call; `bash` runs its command as `/bin/bash -c COMMAND` in the sandbox (sandbox/run-tool.py).
 */
export const ToolCall = z.discriminatedUnion('tool', [
  z
    .object({
      tool: z.literal('bash'),
      // a shell command cannot hold a NUL byte: the kernel would cut it there
      command: z
        .string()
        .min(1, 'command must not be empty')
        .refine((command) => !command.includes('\0'), 'must not contain NUL bytes (a shell command cannot hold them)'),
    })
    .strict(),
  z
    .object({ tool: z.literal('write_file'), path: z.string().min(1, 'path must not be empty'), content: z.string() })
    .strict(),
  z.object({ tool: z.literal('submit') }).strict(),
]);
export type ToolCall = z.infer<typeof ToolCall>;
export const toolNames = ['bash', 'write_file', 'submit'] as const;

export type ParsedToolCall = { ok: true; call: ToolCall } | { ok: false; error: string };

/** Whether a policy's text is meant as a JSON tool call (it starts with `{` or `[`). */
export function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

/**
 * Parses a JSON tool call (`{"tool": "bash", "command": "..."}`). A malformed call is an error for
 * the agent to read, never a crash. How other text becomes a tool call is the agent interface's
 * business (shared/contracts/agent-interface.ts).
 */
export function parseJsonToolCall(text: string): ParsedToolCall {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `tool call is not valid JSON: ${JSON.stringify(text.slice(0, 80))}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'tool call must be a JSON object with a "tool" field' };
  }
  const tool = (value as { tool?: unknown }).tool;
  if (typeof tool !== 'string' || !(toolNames as readonly string[]).includes(tool)) {
    return { ok: false, error: `unknown tool ${JSON.stringify(tool)}; known tools: ${toolNames.join(', ')}` };
  }
  const parsed = ToolCall.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'tool call';
    return { ok: false, error: `invalid ${tool} call: ${field}: ${issue?.message ?? 'invalid'}` };
  }
  const call = parsed.data;
  if (call.tool === 'write_file') {
    const pathError = checkRelativePath(call.path);
    if (pathError) return { ok: false, error: `invalid write_file call: path: ${pathError}` };
  }
  return { ok: true, call };
}

/** A repository-relative path that cannot leave the repository. */
export function checkRelativePath(path: string): string | null {
  if (path.startsWith('/')) return 'must be relative to the repository root';
  if (path.includes('\0')) return 'must not contain NUL';
  const parts = path.split('/');
  if (parts.some((part) => part === '..')) return 'must not contain ".."';
  if (parts.every((part) => part === '' || part === '.')) return 'must name a file';
  return null;
}

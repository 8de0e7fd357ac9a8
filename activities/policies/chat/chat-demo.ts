import { z } from 'zod';
import { toolCallClose, toolCallOpen, type ChatMessage } from '../../../shared/chat/tool-format';
import { seededRandom } from '../../../shared/math/random';

/** A tool call in the family's format, spaced as the system prompt's example writes one. */
function call(name: string, args: Record<string, string>): string {
  const fields = Object.entries(args)
    .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
    .join(', ');
  return `${toolCallOpen}\n{"name": ${JSON.stringify(name)}, "arguments": {${fields}}}\n${toolCallClose}`;
}

/** A file as the task's reference fix leaves it: its path from the repository root and its whole new content. */
export const SolvedFile = z.object({ path: z.string(), content: z.string() });
export type SolvedFile = z.infer<typeof SolvedFile>;

/**
 * The solved demonstrator (`demo:solve`): it reads each file the task's reference fix changes, writes it fixed, runs
 * the tests and submits: a whole episode that fixes the task, in the model's own tool-call format, to imitate. With
 * fewer turns than that, it skips the reads first, then the test run; the last turn of the budget always submits.
 */
export function solvedToolCall(files: readonly SolvedFile[], turn: number, maxTurns: number): string {
  const reads = files.map((file) => call('bash', { command: `cat ${file.path}` }));
  const writes = files.map((file) => call('write_file', { path: file.path, content: file.content }));
  const check = call('bash', { command: 'python3 -m pytest -q' });
  const room = maxTurns - 1;
  const plan =
    room >= reads.length + writes.length + 1
      ? [...reads, ...writes, check]
      : room >= writes.length + 1
        ? [...writes, check]
        : writes.slice(0, Math.max(0, room));
  return turn < plan.length && turn < room ? plan[turn]! : call('submit', {});
}

/**
 * The chat format demonstrator (`demo:tools`): well-formed native tool calls that look around and
 * run the tests, then `submit` at the last turn of the budget. It teaches the call format and the
 * turn structure, never a fix: it writes no file, so a warm start's imitation of it cannot pay for
 * an edit it did not earn. `cat` reads a Python file named in an earlier observation, so the
 * arguments follow what the episode showed.
 */
export function demoToolCall(messages: readonly ChatMessage[], turn: number, maxTurns: number, seed: number): string {
  if (turn >= maxTurns - 1) return call('submit', {});
  const random = seededRandom(seed);
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') for (const file of pythonFiles(message.content)) seen.add(file);
  }
  const files = [...seen].sort();
  const commands =
    turn === 0
      ? ['ls', 'ls -R', 'python3 -m pytest -q']
      : ['ls -R', 'python3 -m pytest -q', 'grep -rn "def " --include=*.py .', ...files.map((file) => `cat ${file}`)];
  return call('bash', { command: commands[Math.floor(random() * commands.length)]! });
}

/**
 * The Python files an observation names, as paths from the repository root: `ls -R` sections
 * (`./pkg:` then its entries) give their folder; a path written out (`pkg/mod.py`, a traceback's
 * `File "pkg/mod.py"`) is taken as it is.
 */
export function pythonFiles(observation: string): string[] {
  const files = new Set<string>();
  let folder: string | null = null;
  for (const line of observation.split('\n')) {
    const header = /^(\.(?:\/[\w.-]+)*):$/.exec(line.trim());
    if (header) {
      folder = header[1] === '.' ? '' : header[1]!.slice(2);
      continue;
    }
    const entry = line.trim();
    if (folder !== null && /^[\w-]+\.py$/.test(entry)) {
      files.add(folder ? `${folder}/${entry}` : entry);
      continue;
    }
    for (const match of line.matchAll(/(?:^|[\s'"(])((?:[\w.-]+\/)+[\w-]+\.py)\b/g)) {
      if (!match[1]!.startsWith('/') && !match[1]!.split('/').includes('..')) files.add(match[1]!.replace(/^\.\//, ''));
    }
  }
  return [...files].sort();
}

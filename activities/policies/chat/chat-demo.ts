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

/**
 * A file as the task's reference fix leaves it: its path from the repository root, its whole new content and its
 * content before the fix (null: the fix creates it).
 */
export const SolvedFile = z.object({
  path: z.string(),
  content: z.string(),
  before: z.string().nullable().default(null),
});
export type SolvedFile = z.infer<typeof SolvedFile>;

/** Lines a line edit may remove or add at most: a larger change is written whole. */
const maxEditLines = 8;

/**
 * The fix of one file as a command: a `sed` line edit when the fix replaces, deletes or inserts one run of at most
 * {@link maxEditLines} lines (a short action a small model can copy from a numbered listing: `sed -i '8c\...'`), else
 * `write_file` with the whole new content.
 */
export function fixCall(file: SolvedFile): string {
  // sed edits no line of an empty file
  const edit = file.before ? lineEdit(file.before, file.content) : null;
  if (edit === null) return call('write_file', { path: file.path, content: file.content });
  return call('bash', { command: `sed -i ${shellQuoted(edit)} ${shellQuoted(file.path)}` });
}

/** The sed script that turns `before` into `after` when they differ in one run of lines, else null. */
function lineEdit(before: string, after: string): string | null {
  const old = before.split('\n');
  const next = after.split('\n');
  // a file whose last line ends without a newline, or a change of that, is written whole
  if (old.at(-1) !== '' || next.at(-1) !== '') return null;
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < next.length - head &&
    old[old.length - 1 - tail] === next[next.length - 1 - tail]
  )
    tail++;
  const removed = old.slice(head, old.length - tail);
  const added = next.slice(head, next.length - tail);
  if (removed.length > maxEditLines || added.length > maxEditLines || removed.length + added.length === 0) return null;
  // sed's text: a backslash is doubled; lines are joined by backslash-newline
  const text = added.map((line) => line.replace(/\\/g, '\\\\')).join('\\\n');
  // an insertion goes after the unchanged line before it (before the first line of the file: `1i`)
  if (removed.length === 0) return head === 0 ? `1i\\${text}` : `${head}a\\${text}`;
  const range = removed.length === 1 ? `${head + 1}` : `${head + 1},${head + removed.length}`;
  return added.length === 0 ? `${range}d` : `${range}c\\${text}`;
}

/** A word for a POSIX shell, in single quotes when it needs them. */
function shellQuoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The solved demonstrator (`demo:solve`): it reads each file the task's reference fix changes with line numbers,
 * fixes it ({@link fixCall}), runs the tests and submits: a whole episode that fixes the task, in the model's own
 * tool-call format, to imitate. With fewer turns than that, it skips the test run first, then the reads; the last
 * turn of the budget always submits.
 */
export function solvedToolCall(files: readonly SolvedFile[], turn: number, maxTurns: number): string {
  const reads = files
    .filter((file) => file.before !== null)
    .map((file) => call('bash', { command: `cat -n ${shellQuoted(file.path)}` }));
  const writes = files.map(fixCall);
  const check = call('bash', { command: 'python3 -m pytest -q' });
  const room = maxTurns - 1;
  // a short budget drops the test run first (reading is what finds the line to fix), then the reads
  const plan =
    room >= reads.length + writes.length + 1
      ? [...reads, ...writes, check]
      : room >= reads.length + writes.length
        ? [...reads, ...writes]
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

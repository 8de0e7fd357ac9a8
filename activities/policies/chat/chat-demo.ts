import { toolCallClose, toolCallOpen, type ChatMessage } from '../../../shared/chat/tool-format';
import { seededRandom } from '../../../shared/math/random';

/**
 * The chat format demonstrator (`demo:tools`): well-formed native tool calls that look around and
 * run the tests, then `submit` at the last turn of the budget. It teaches the call format and the
 * turn structure, never a fix: it writes no file, so a warm start's imitation of it cannot pay for
 * an edit it did not earn. `cat` reads a Python file named in an earlier observation, so the
 * arguments follow what the episode showed.
 */
export function demoToolCall(messages: readonly ChatMessage[], turn: number, maxTurns: number, seed: number): string {
  // spaced as the system prompt's example writes a call
  const call = (name: string, args: Record<string, string>) => {
    const fields = Object.entries(args)
      .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join(', ');
    return `${toolCallOpen}\n{"name": ${JSON.stringify(name)}, "arguments": {${fields}}}\n${toolCallClose}`;
  };
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

// What the project's Markdown points at: relative links (a file, and a heading's anchor in it) and the
// repository paths it names in backticks. Read by tests/unit/doc-links.test.ts, which fails on any that
// is gone, so a file moved or a heading renamed cannot leave the docs pointing at nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** a reference the docs make that leads nowhere, with where it is made */
export interface BrokenReference {
  file: string;
  line: number;
  kind: 'link' | 'anchor' | 'path';
  target: string;
  reason: string;
}

/** what one scan looked at, so a test can tell a clean result from a scan that found nothing to check */
export interface ScanResult {
  files: string[];
  links: number;
  anchors: number;
  paths: number;
  broken: BrokenReference[];
}

// a task's repository and the agent's prompt name paths of that repository, not of ours
const notOurs = [/^node_modules\//, /^tasks\/real\//, /(^|\/)repo\//, /(^|\/)instruction\.md$/];

// paths a command makes when it runs, named as its default (`task import swebench --out`): no checkout holds them
const madeByCommands = new Set(['tasks/imported/']);

/** the project's files under root: tracked ones where root is a git checkout, else every one found */
function projectFiles(root: string): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter(Boolean);
  } catch {
    return walk(root, '');
  }
}

/** the Markdown files of the project under root, without those of a task's repository or prompt */
export function markdownFiles(root: string): string[] {
  return projectFiles(root)
    .filter((file) => file.endsWith('.md') && !notOurs.some((pattern) => pattern.test(file)))
    .sort();
}

function walk(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'node_modules' ? [] : walk(root, path);
    return [path];
  });
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lower-cased, every character that is not a
 * letter, digit, mark, `_`, `-` or space dropped, each space a hyphen; a repeated slug gets `-1`, `-2`, ….
 */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slugOf(renderedText(heading[1]!));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  // explicit anchors (<a id="…"> or name="…") are link targets too
  for (const match of markdown.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) slugs.add(match[1]!);
  return slugs;
}

export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** a heading's text as GitHub renders it: code spans, links and emphasis reduced to their text */
function renderedText(source: string): string {
  return source
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2');
}

/** the text with every fenced code block's lines blanked (kept as empty lines, so offsets keep their line) */
function withoutFences(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === null && marker) {
        fence = marker;
        return '';
      }
      if (fence !== null) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
        return '';
      }
      return line;
    })
    .join('\n');
}

/**
 * The path a word in backticks names, if it names one of ours: no space, none of the characters of a
 * placeholder, glob, URL or option (`<>{}*$:~=…`), and either a folder of the repository's top level (or, in a
 * README inside a folder, of that folder) followed by `/` (`shared/contracts/`,
 * `tests/integration/foo.test.ts`), a top-level file by its full name (`package.json`), or a TypeScript file
 * by its name or its last folders (`twins.ts`, `graders/harbor-verifier.ts`: TypeScript is only ever ours). Other
 * bare file names (`conftest.py`, `task.yaml`, `report.md`) name a kind of file in a task or a run's folder as
 * often as one of ours, so they are not checked; nor is a path of a container (`/tests`) or of the user's
 * machine (`~/.cache/…`, `.agentrl/…`, which setup and the runs make).
 */
export function pathReference(word: string, starts: ReadonlySet<string>): { path: string; rooted: boolean } | null {
  const path = word.replace(/^[("'[]+/, '').replace(/[)"',.;\]]+$/, '');
  if (!/^[\w@+-][\w@+./-]*$/.test(path) || path.includes('//') || path.includes('...')) return null;
  const first = path.split('/')[0]!;
  if (starts.has(first) && (path.includes('/') || first.includes('.'))) return { path, rooted: true };
  if (/^[\w./-]+\.(ts|mts|mjs)$/.test(path) && !path.endsWith('.d.ts')) return { path, rooted: false };
  return null;
}

/** the entries of a folder (none when it is not one), the names a path written relative to it starts with */
function entriesOf(folder: string): Set<string> {
  try {
    return new Set(readdirSync(folder).filter((name) => !name.startsWith('.')));
  } catch {
    return new Set();
  }
}

/** the folders a task's base.yaml names as its trees (relative to the root), none without one */
function namedTrees(root: string, task: string): string[] {
  const basePath = join(root, task, 'base.yaml');
  if (!existsSync(basePath)) return [];
  const { trees } = parseYaml(readFileSync(basePath, 'utf8')) as { trees?: Record<string, string> };
  return Object.values(trees ?? {})
    .map((base) => normalize(join(task, base)))
    .filter((folder) => existsSync(join(root, folder)) && statSync(join(root, folder)).isDirectory());
}

/** every relative link, anchor and backticked repository path in the project's Markdown, and which lead nowhere */
export function scanDocs(root: string, docs = markdownFiles(root)): ScanResult {
  const files = projectFiles(root);
  const topLevel = new Set(readdirSync(root).filter((name) => !name.startsWith('.') || name === '.ci'));
  topLevel.delete('node_modules');
  // the docs describe task folders too (a Harbor folder's `tests/test.sh`, a project's `tests/test_pwd.py`): a
  // path that a bundled task's folder or its repository holds (or a folder its base.yaml names) is as real as
  // one of the checkout's root
  const taskFolders = files
    .filter((file) => /(^|\/)task\.(yaml|toml)$/.test(file))
    .flatMap((file) => [dirname(file), join(dirname(file), 'repo'), ...namedTrees(root, dirname(file))]);
  const exists = (path: string, docFolder: string) =>
    madeByCommands.has(path) ||
    [root, join(root, docFolder), ...taskFolders.map((folder) => join(root, folder))].some((base) =>
      existsSync(join(base, path)),
    );
  const result: ScanResult = { files: docs, links: 0, anchors: 0, paths: 0, broken: [] };
  const slugCache = new Map<string, Set<string>>();
  const slugsOf = (file: string) => {
    let slugs = slugCache.get(file);
    if (!slugs) slugCache.set(file, (slugs = headingSlugs(readFileSync(join(root, file), 'utf8'))));
    return slugs;
  };
  for (const file of docs) {
    const source = withoutFences(readFileSync(join(root, file), 'utf8'));
    // a README inside a folder names that folder's files from there (trainer/README.md: `agentrl_trainer/…`)
    const docFolder = dirname(file);
    const pathStarts = docFolder === '.' ? topLevel : new Set([...topLevel, ...entriesOf(join(root, docFolder))]);
    const lineAt = (offset: number) => source.slice(0, offset).split('\n').length;
    const report = (offset: number, kind: BrokenReference['kind'], target: string, reason: string) =>
      result.broken.push({ file, line: lineAt(offset), kind, target, reason });

    // code spans first: what they hold is never a link, and the words in them may be paths
    const codeSpans = /(`+)([\s\S]*?[^`])\1(?!`)/g;
    for (const span of source.matchAll(codeSpans)) {
      for (const word of span[2]!.split(/[\s|]+/)) {
        const reference = pathReference(word, pathStarts);
        if (!reference) continue;
        result.paths++;
        const found = reference.rooted
          ? exists(reference.path, docFolder)
          : files.some((known) => known === reference.path || known.endsWith(`/${reference.path}`));
        if (!found) {
          const offset = span.index + span[1]!.length + span[2]!.indexOf(word);
          report(offset, 'path', reference.path, reference.rooted ? 'no such file or folder' : 'no file of that name');
        }
      }
    }
    const prose = source.replace(codeSpans, (span) => span.replace(/[^\n]/g, ' '));
    const links = [
      ...[...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map(
        (m) => [m.index + m[0].lastIndexOf(']('), m[1]!] as const,
      ),
      ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => [m.index, m[1]!] as const),
    ];
    for (const [offset, target] of links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target === '') continue;
      result.links++;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart ? normalize(join(dirname(file), pathPart)) : file;
      if (resolved.startsWith('..') || !existsSync(join(root, resolved))) {
        report(offset, 'link', target, `${resolved} does not exist`);
        continue;
      }
      if (anchor === null) continue;
      if (!resolved.endsWith('.md') || statSync(join(root, resolved)).isDirectory()) continue;
      result.anchors++;
      if (!slugsOf(resolved).has(anchor)) report(offset, 'anchor', target, `${resolved} has no heading #${anchor}`);
    }
  }
  result.broken.sort((a, b) => docs.indexOf(a.file) - docs.indexOf(b.file) || a.line - b.line);
  return result;
}

/** one line per broken reference, as an editor's jump list reads it */
export function describeBroken(broken: BrokenReference[]): string {
  return broken
    .map((entry) => `${entry.file}:${entry.line}: ${entry.kind} ${entry.target}: ${entry.reason}`)
    .join('\n');
}

import { canFormatArgument, formatAction, parseAction } from './language';

/**
 * The edits a small policy may choose from: what `show` printed, parsed back into lines, and for
 * each line the canonical `edit`/`swap` actions of a few bug families (operator swaps, off-by-one,
 * swapped operands). Pure: imported by workflow code and activities alike.
 */

/** One code line as `show` prints it: the file, its real line number, the code without surrounding whitespace. */
export interface SourceLine {
  path: string;
  line: number;
  code: string;
}

/** The text the sandbox's `show` script prints for these files (given in `find | sort` order). */
export function renderShow(files: readonly { path: string; text: string }[]): string {
  const out: string[] = [];
  for (const file of files) {
    out.push(`# ${file.path.replace(/^\.\//, '')}`);
    let closing = '';
    // Python reads text with universal newlines, then the script splits on \n
    file.text
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .forEach((text, index) => {
        const code = text.trim();
        const opening = code.slice(0, 3);
        if (closing) closing = code.includes(closing) ? '' : closing;
        else if (opening === '"""' || opening === "'''") closing = code.slice(3).includes(opening) ? '' : opening;
        else if (code) out.push(`${index + 1}: ${code}`);
      });
  }
  return out.map((row) => `${row}\n`).join('');
}

/** The source lines of a `show` observation; anything else in it (the exit-code note) is skipped. */
export function parseShownSource(observation: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let path: string | null = null;
  for (const row of observation.split('\n')) {
    const header = /^# (.+)$/.exec(row);
    const code = /^(\d+): (.*)$/.exec(row);
    if (header) path = header[1]!;
    else if (code && path !== null) lines.push({ path, line: Number(code[1]), code: code[2]!.trim() });
  }
  return lines;
}

/** The line a successful edit or swap printed (`path:line:new text`, first row); null for anything else. */
export function parseEditResult(observation: string): SourceLine | null {
  const changed = /^(?:\.\/)?([^:\n]+):(\d+):(.*)$/.exec(observation.split('\n')[0] ?? '');
  return changed ? { path: changed[1]!, line: Number(changed[2]), code: changed[3]!.trim() } : null;
}

/** An edit or swap applied to one line's text as the sandbox scripts do it; null if it does not apply. */
export function applyCandidate(code: string, action: string): string | null {
  const parsed = parseAction(action);
  if (!parsed.ok || (parsed.command !== 'edit' && parsed.command !== 'swap')) return null;
  const [, a, b] = parsed.args as [string, string, string];
  const i = code.indexOf(a);
  if (a === '' || i < 0) return null;
  if (parsed.command === 'edit') return code.slice(0, i) + b + code.slice(i + a.length);
  const j = b === '' ? -1 : code.indexOf(b, i + a.length);
  return j < 0 ? null : code.slice(0, i) + b + code.slice(i + a.length, j) + a + code.slice(j + b.length);
}

/**
 * The candidates of every line, line after line. An action names a line number, not a file, and the
 * sandbox edits the first file (in `show` order) where it applies, so a repeated action is kept once.
 */
export function allCandidates(lines: readonly SourceLine[]): string[] {
  return [...new Set(lines.flatMap(editCandidates))];
}

/**
 * The canonical edit/swap actions on one line, deduplicated by their result, in a fixed order:
 * comparison operators, arithmetic operators, augmented assignment, integer literals, off-by-one,
 * then swaps (call arguments, returned pair, operands, f-string fields, comparison operators).
 * Each OLD is lengthened until its first occurrence on the line is the intended one.
 */
export function editCandidates(line: SourceLine): string[] {
  const { code } = line;
  const tokens = tokenize(code);
  if (tokens.length === 0 || headerWords.has(tokens[0]!.text) || tokens[0]!.text === '@') return [];
  const seen = new Set<string>([code]);
  const actions: string[] = [];
  for (const change of proposeChanges(code, tokens)) {
    const result = changedCode(code, change);
    if (seen.has(result)) continue;
    seen.add(result);
    const action = resolveAction(line.line, code, tokens, change, result);
    if (action) actions.push(action);
  }
  return actions;
}

interface Token {
  kind: 'name' | 'number' | 'string' | 'op';
  text: string;
  start: number;
  end: number;
  depth: number; // brackets open before this token
}

type Span = { start: number; end: number };
type Change = { kind: 'replace'; span: Span; text: string } | { kind: 'swap'; a: Span; b: Span };

const comparisons = ['<', '<=', '>', '>=', '==', '!='];
const arithmetic = ['+', '-', '*', '//', '%'];
const headerWords = new Set(['def', 'class', 'import', 'from', 'async']);
const keywords = new Set([
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
  'None',
  'True',
  'False',
]);
// calls whose sole argument is a collection: `len(values + 1)` is never a fix
const collectionCalls = new Set([
  'len',
  'sum',
  'sorted',
  'list',
  'set',
  'tuple',
  'min',
  'max',
  'reversed',
  'enumerate',
  'zip',
  'iter',
  'any',
  'all',
  'str',
  'repr',
  'dict',
]);
const longOperators = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '**',
  '//',
  '<=',
  '>=',
  '==',
  '!=',
  '<<',
  '>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
];
const opening: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Python tokens of one line (a comment ends it); strings are single tokens. */
function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let position = 0;
  const push = (kind: Token['kind'], end: number) => {
    const text = code.slice(position, end);
    if (text === ')' || text === ']' || text === '}') depth = Math.max(0, depth - 1);
    tokens.push({ kind, text, start: position, end, depth });
    if (opening[text]) depth += 1;
    position = end;
  };
  while (position < code.length) {
    const rest = code.slice(position);
    const name = /^[A-Za-z_]\w*/.exec(rest)?.[0];
    if (/^\s/.test(rest)) position += 1;
    else if (rest.startsWith('#')) break;
    else if (name && /^(?:[rbuf]|rb|br|fr|rf)$/i.test(name) && /^["']/.test(rest.slice(name.length)))
      push('string', stringEnd(code, position + name.length));
    else if (name) push('name', position + name.length);
    else if (/^["']/.test(rest)) push('string', stringEnd(code, position));
    else if (/^\.?\d/.test(rest)) push('number', position + /^\.?\d[\w.]*/.exec(rest)![0].length);
    else push('op', position + (longOperators.find((op) => rest.startsWith(op)) ?? rest[0]!).length);
  }
  return tokens;
}

/** End of the string literal whose quote starts at `quote` (the line's end if it is not closed there). */
function stringEnd(code: string, quote: number): number {
  const delimiter = code.startsWith(code[quote]!.repeat(3), quote) ? code[quote]!.repeat(3) : code[quote]!;
  for (let i = quote + delimiter.length; i < code.length; i++) {
    if (code[i] === '\\') i += 1;
    else if (code.startsWith(delimiter, i)) return i + delimiter.length;
  }
  return code.length;
}

const isValue = (token: Token | undefined) =>
  !!token &&
  ((token.kind === 'name' && !keywords.has(token.text)) ||
    token.kind === 'number' ||
    token.kind === 'string' ||
    [')', ']', '}'].includes(token.text) ||
    ['None', 'True', 'False'].includes(token.text));
const isBinary = (tokens: Token[], index: number) => isValue(tokens[index - 1]);

/** Index of the bracket matching the one at `index` (scanning forward from an opener, back from a closer). */
function matching(tokens: Token[], index: number): number {
  const step = opening[tokens[index]!.text] ? 1 : -1;
  for (let i = index + step; i >= 0 && i < tokens.length; i += step) {
    if (
      tokens[i]!.depth === tokens[index]!.depth &&
      (opening[tokens[i]!.text] || [')', ']', '}'].includes(tokens[i]!.text))
    )
      return i;
  }
  return -1;
}

/** Depth of the tokens right after `open`: one more after a bracket, the same after a word such as `return`. */
const innerDepth = (tokens: Token[], open: number) => tokens[open]!.depth + (opening[tokens[open]!.text] ? 1 : 0);

/** Token ranges of the comma-separated parts between tokens `open` and `close` (both exclusive). */
function splitParts(tokens: Token[], open: number, close: number): [number, number][] {
  const parts: [number, number][] = [];
  let first = open + 1;
  const depth = innerDepth(tokens, open);
  for (let i = open + 1; i <= close; i++) {
    if (i === close || (tokens[i]!.text === ',' && tokens[i]!.depth === depth)) {
      parts.push([first, i - 1]);
      first = i + 1;
    }
  }
  return parts;
}

/** Every pair of items, the earlier one first. */
const pairs = <T>(items: readonly T[]): [T, T][] =>
  items.flatMap((a, i) => items.slice(i + 1).map((b): [T, T] => [a, b]));

const spanOf = (tokens: Token[], from: number, to: number): Span => ({
  start: tokens[from]!.start,
  end: tokens[to]!.end,
});

/** Two comma-separated parts, each non-empty, no unpacking, no keyword argument, no generator. */
function pairOf(tokens: Token[], open: number, close: number): [Span, Span] | null {
  const parts = splitParts(tokens, open, close);
  if (parts.length !== 2 || parts.some(([from, to]) => from > to || ['*', '**'].includes(tokens[from]!.text)))
    return null;
  const inside = tokens.slice(open + 1, close).filter((token) => token.depth === innerDepth(tokens, open));
  if (inside.some((token) => ['=', 'for', ':', ':='].includes(token.text))) return null;
  return [spanOf(tokens, ...parts[0]!), spanOf(tokens, ...parts[1]!)];
}

/** Every change of every family, in the order the candidates are listed. */
function proposeChanges(code: string, tokens: Token[]): Change[] {
  const changes: Change[] = [];
  const replace = (span: Span, text: string) => changes.push({ kind: 'replace', span, text });
  const swap = (a: Span, b: Span) => changes.push({ kind: 'swap', a, b });
  const compared = tokens.filter((token) => comparisons.includes(token.text));

  // comparison operators, one at a time, then every occurrence of a repeated one at once
  for (const token of compared) for (const op of comparisons) replace(token, op);
  for (const op of new Set(compared.map((token) => token.text))) {
    const same = compared.filter((token) => token.text === op);
    if (same.length < 2) continue;
    const span = { start: same[0]!.start, end: same.at(-1)!.end };
    const between = same.slice(1).map((token, i) => code.slice(same[i]!.end, token.start));
    for (const other of comparisons) replace(span, between.map((gap) => other + gap).join('') + other);
  }
  // binary arithmetic operators and augmented assignment
  tokens.forEach((token, index) => {
    if (arithmetic.includes(token.text) && isBinary(tokens, index)) for (const op of arithmetic) replace(token, op);
    if (token.text === '+=' || token.text === '-=') replace(token, token.text === '+=' ? '-=' : '+=');
  });
  // integer literals one up and one down (a literal after a unary minus is left alone)
  tokens.forEach((token, index) => {
    const negated = tokens[index - 1]?.text === '-' && !isBinary(tokens, index - 1);
    if (token.kind !== 'number' || !/^(0|[1-9]\d*)$/.test(token.text) || negated) return;
    const value = Number(token.text);
    if (value >= 1) replace(token, String(value - 1));
    replace(token, String(value + 1));
  });
  // off-by-one: drop a trailing `+ 1`/`- 1` of an operand, or add one to a bound or index
  tokens.forEach((token, index) => {
    const next = tokens[index + 2];
    if (
      ['+', '-'].includes(token.text) &&
      isBinary(tokens, index) &&
      tokens[index + 1]?.text === '1' &&
      !['*', '/', '//', '%', '**', '(', '[', '.'].includes(next?.text ?? '')
    ) {
      replace({ start: tokens[index - 1]!.end, end: tokens[index + 1]!.end }, '');
    }
  });
  for (const index of boundEnds(tokens)) {
    const token = tokens[index]!;
    replace(token, `${token.text} + 1`);
    replace(token, `${token.text} - 1`);
  }
  // swaps: the two arguments of a call, the returned pair, the operands of `a - b`, f-string fields, comparison
  // operators
  tokens.forEach((token, index) => {
    const callee = tokens[index - 1];
    if (
      token.text !== '(' ||
      !callee ||
      !((callee.kind === 'name' && !keywords.has(callee.text)) || [')', ']'].includes(callee.text))
    )
      return;
    const pair = pairOf(tokens, index, matching(tokens, index));
    if (pair) swap(...pair);
  });
  if (tokens[0]!.text === 'return' && tokens.length > 1) {
    const wrapped = tokens[1]!.text === '(' && matching(tokens, 1) === tokens.length - 1;
    const pair = wrapped ? pairOf(tokens, 1, tokens.length - 1) : pairOf(tokens, 0, tokens.length);
    if (pair) swap(...pair);
  }
  tokens.forEach((token, index) => {
    const [left, right] = [tokens[index - 1], tokens[index + 1]];
    const simple = (operand: Token | undefined) =>
      !!operand && (operand.kind === 'number' || (operand.kind === 'name' && !keywords.has(operand.text)));
    if (!['-', '//', '%'].includes(token.text) || !simple(left) || !simple(right)) return;
    if (['.', '*', '/', '//', '%', '**', '-', '+', '@'].includes(tokens[index - 2]?.text ?? '')) return;
    if (['.', '*', '/', '//', '%', '**', '(', '[', '@'].includes(tokens[index + 2]?.text ?? '')) return;
    swap(left!, right!);
  });
  for (const token of tokens.filter((candidate) => candidate.kind === 'string' && /^[a-z]*f/i.test(candidate.text))) {
    const fields = [...token.text.matchAll(/(?<!\{)\{\s*([A-Za-z_]\w*)\s*[}!:]/g)].map((found) => {
      const start = token.start + found.index + found[0].indexOf(found[1]!);
      return { name: found[1]!, span: { start, end: start + found[1]!.length } };
    });
    for (const [a, b] of pairs(fields)) if (a.name !== b.name) swap(a.span, b.span);
  }
  for (const [a, b] of pairs(compared)) if (a.text !== b.text) swap(a, b);
  return changes;
}

/**
 * Indices of the last token of each name or call that ends an argument, index or slice bound:
 * followed by `)` or `]`, by `,` inside brackets, or by `:` inside `[`, and started after a bracket,
 * a comma, a colon or a binary `+`/`-`. Loop targets and lambda parameters are not bounds.
 */
function boundEnds(tokens: Token[]): number[] {
  const ends: number[] = [];
  const binding = new Map<number, boolean>(); // per depth: inside `for ... in` or `lambda ... :`
  tokens.forEach((token, index) => {
    if (token.text === 'for' || token.text === 'lambda') binding.set(token.depth, true);
    if (token.text === 'in' || (token.text === ':' && binding.get(token.depth))) binding.set(token.depth, false);
    const next = tokens[index + 1];
    if (!next || binding.get(token.depth)) return;
    const inBrackets = token.depth > 0;
    const innermost = [...tokens.slice(0, index)]
      .reverse()
      .find((before) => opening[before.text] && before.depth === token.depth - 1);
    const closes =
      next.text === ')' ||
      next.text === ']' ||
      (next.text === ',' && inBrackets) ||
      (next.text === ':' && innermost?.text === '[');
    if (!closes) return;
    let first = index;
    if (token.kind === 'name' && !keywords.has(token.text)) {
      while (tokens[first - 1]?.text === '.' && tokens[first - 2]?.kind === 'name') first -= 2;
    } else if (token.text === ')') {
      const open = matching(tokens, index);
      const callee = tokens[open - 1];
      if (open < 0 || !callee || callee.kind !== 'name' || keywords.has(callee.text)) return;
      first = open - 1;
    } else {
      return;
    }
    const before = tokens[first - 1];
    const after =
      ['(', '[', ',', ':'].includes(before?.text ?? '') ||
      (['+', '-'].includes(before?.text ?? '') && isBinary(tokens, first - 1));
    const callOf = tokens[first - 2];
    const soleArgument =
      before?.text === '(' && next.text === ')' && callOf?.kind === 'name' && collectionCalls.has(callOf.text);
    if (after && !soleArgument) ends.push(index);
  });
  return ends;
}

function changedCode(code: string, change: Change): string {
  if (change.kind === 'replace') return code.slice(0, change.span.start) + change.text + code.slice(change.span.end);
  const { a, b } = change;
  return (
    code.slice(0, a.start) +
    code.slice(b.start, b.end) +
    code.slice(a.end, b.start) +
    code.slice(a.start, a.end) +
    code.slice(b.end)
  );
}

/**
 * The shortest canonical action that turns `code` into `result`: `swap A B` for a swap where that
 * picks the intended occurrences, else an edit whose OLD grows a token at a time (left, then right)
 * until its first occurrence on the line is the intended one; null if no action can be written.
 */
function resolveAction(line: number, code: string, tokens: Token[], change: Change, result: string): string | null {
  const works = (command: 'edit' | 'swap', a: string, b: string) => {
    if (!canFormatArgument(a) || !canFormatArgument(b)) return null;
    const action = formatAction(command, [line, a, b]);
    return applyCandidate(code, action) === result ? action : null;
  };
  if (change.kind === 'swap') {
    const action = works('swap', code.slice(change.a.start, change.a.end), code.slice(change.b.start, change.b.end));
    if (action) return action;
  }
  const span = change.kind === 'replace' ? change.span : { start: change.a.start, end: change.b.end };
  const text = result.slice(span.start, result.length - (code.length - span.end));
  let [start, end] = [span.start, span.end];
  for (let grow = 0; ; grow++) {
    const action =
      start < end
        ? works('edit', code.slice(start, end), code.slice(start, span.start) + text + code.slice(span.end, end))
        : null;
    if (action) return action;
    if (start === 0 && end === code.length) return null;
    const left = [...tokens].reverse().find((token) => token.end <= start && token.start < start);
    const right = tokens.find((token) => token.start >= end && token.end > end);
    if ((grow % 2 === 0 && start > 0) || end === code.length) start = left?.start ?? 0;
    else end = right?.end ?? code.length;
  }
}

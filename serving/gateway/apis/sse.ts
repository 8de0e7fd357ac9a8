/** Server-sent event frames, and the pieces a reply's text is streamed in. */

/** A `data:`-only frame (Chat Completions, completions). */
export function dataFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** A named event frame (Responses, Messages); JSON text holds no raw newline, so one `data:` line carries it. */
export function eventFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The end of an OpenAI stream. */
export const doneFrame = 'data: [DONE]\n\n';

/** Code points per streamed text delta. */
export const deltaSize = 32;

/**
 * A text in delta-sized pieces, cut between code points: a piece ending in half a surrogate pair would be JSON with a
 * lone surrogate escape, which strict parsers (serde_json in Codex) refuse. An empty text has no piece.
 */
export function textPieces(text: string, size = deltaSize): string[] {
  const codePoints = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < codePoints.length; start += size)
    pieces.push(codePoints.slice(start, start + size).join(''));
  return pieces;
}

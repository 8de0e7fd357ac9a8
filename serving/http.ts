import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) loses a race with any
 * client whose event loop is held for seconds (an onnxruntime pass in the same process, a test's
 * synchronous child process): the client writes its next request on a socket whose close is already
 * under way, and the request fails as `fetch failed` (nodejs/node#54293). Clients read the value from
 * the `Keep-Alive: timeout=N` header and drop the connection a little before it.
 */
export const keepAliveMs = 65_000;

/**
 * An HTTP server for the JSON APIs of this folder: handler errors answer 500, idle connections stay open `keepAliveMs`.
 */
export function createJsonServer(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Server {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendJson(response, 500, { error: { message: (error as Error).message, type: 'internal_error' } });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = keepAliveMs;
  return server;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The request's JSON body: `{}` when it is empty, undefined when it is not JSON. */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

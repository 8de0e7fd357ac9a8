import { chmodSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { GatewayApiAdapter, GatewayError, GatewayReply, GatewayRequest } from '../../shared/contracts/gateway';
import type { ArtifactStore } from '../../activities/store/artifact-store';
import { gatewayAdapterForPath, isModelListPath, modelList } from './apis';

/**
 * The model gateway: the HTTP server harnesses call as if it were their model provider. One listener per session (an
 * episode's harness launch), on a unix socket in that sandbox's own folder (activities/gateway/mounts.ts): a request
 * can reach only its own episode. Each request is checked (key, size, shape, concurrency), stored as the one request
 * form (shared/contracts/gateway.ts), and sent to its episode's workflow as a `modelCall` update whose id is the
 * session and the request's number: the workflow records the call, or answers it from the record when a relaunched
 * harness repeats it, and the reply is read from the call's record. A refused request gets the API's error shape and
 * leaves nothing in the record.
 */

export interface GatewaySession {
  /** `<episode id>#<launch>` */
  id: string;
  key: string;
  workflowId: string;
  /** the model name /v1/models lists */
  model: string;
  /** the host folder the socket goes in */
  dir: string;
}

export interface GatewayLimits {
  /** a larger request body is refused (413) */
  maxBodyBytes: number;
  /** more requests of one session at once are refused (429) */
  maxConcurrent: number;
  /** a body not received within this time is refused (408): a client that never finishes sending holds nothing */
  bodyTimeoutMs: number;
  /** how long a call may wait for its episode's answer (generation included) */
  callTimeoutMs: number;
}

export const defaultGatewayLimits: GatewayLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxConcurrent: 8,
  bodyTimeoutMs: 30_000,
  callTimeoutMs: 15 * 60_000,
};

interface Open {
  session: GatewaySession;
  server: Server;
  /** requests numbered in arrival order: the update ids */
  next: number;
  inFlight: number;
  lastActivityMs: number;
  requests: number;
  refused: number;
}

class Refusal extends Error {
  constructor(readonly error: GatewayError) {
    super(error.message);
  }
}

const refuse = (status: number, type: string, message: string) => new Refusal({ status, type, message });

/** What the gateway asks of its episodes (workers/gateway.ts sends it as the `modelCall` update). */
export type CallModel = (call: {
  workflowId: string;
  session: string;
  requestRef: string;
  request: GatewayRequest;
  /** the update id: the session and the request's number */
  updateId: string;
}) => Promise<{ reply: GatewayReply } | { refused: GatewayError }>;

/**
 * One request as its client waited for it: from its headers' arrival to the answer's last byte handed to the socket.
 * A call sent to its episode also says how long the gateway waited for the episode's answer, so the rest is the
 * gateway's own work (reading and parsing the body, storing the request, writing the answer).
 */
export interface GatewayRequestTiming {
  session: string;
  path: string;
  status: number;
  totalMs: number;
  /** the call's update id; null for a request refused before it reached its episode, or that was no model call */
  updateId: string | null;
  /** how long the episode took to answer the call (the update, the reply read from its record); null as above */
  episodeMs: number | null;
}

export function createGateway(deps: {
  store: ArtifactStore;
  callModel: CallModel;
  limits?: Partial<GatewayLimits>;
  /** told of every request once its answer is written (a benchmark's or a monitor's clock) */
  onRequest?: (timing: GatewayRequestTiming) => void;
}) {
  const limits = { ...defaultGatewayLimits, ...deps.limits };
  const sessions = new Map<string, Open>();

  async function readBody(request: IncomingMessage): Promise<Buffer> {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limits.maxBodyBytes)
      throw refuse(413, 'invalid_request_error', `the request body is over ${limits.maxBodyBytes} bytes`);
    return new Promise((resolveBody, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const timer = setTimeout(() => {
        reject(
          refuse(408, 'invalid_request_error', `the request body did not arrive within ${limits.bodyTimeoutMs} ms`),
        );
      }, limits.bodyTimeoutMs);
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBodyBytes) {
          clearTimeout(timer);
          reject(refuse(413, 'invalid_request_error', `the request body is over ${limits.maxBodyBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      request.on('end', () => {
        clearTimeout(timer);
        resolveBody(Buffer.concat(chunks));
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  function keyOf(request: IncomingMessage): string | null {
    const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
    if (bearer) return bearer[1]!.trim();
    const header = request.headers['x-api-key'];
    return typeof header === 'string' ? header : null;
  }

  /** One model call: sent to its episode, the reply answered in the API's shape. */
  async function call(
    open: Open,
    adapter: GatewayApiAdapter,
    request: GatewayRequest,
    response: ServerResponse,
    timing: GatewayRequestTiming,
  ) {
    const requestRef = await deps.store.putJson(request);
    const number = open.next++;
    timing.updateId = `${open.session.id}:${number}`;
    const asked = performance.now();
    const answer = await deps.callModel({
      workflowId: open.session.workflowId,
      session: open.session.id,
      requestRef,
      request,
      updateId: timing.updateId,
    });
    timing.episodeMs = performance.now() - asked;
    if ('refused' in answer) throw new Refusal(answer.refused);
    const reply = answer.reply;
    if (request.stream) {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      for (const frame of adapter.stream(reply, request)) response.write(frame);
      response.end();
    } else {
      send(response, 200, adapter.respond(reply, request));
    }
  }

  async function handle(open: Open, request: IncomingMessage, response: ServerResponse): Promise<void> {
    open.requests += 1;
    open.lastActivityMs = Date.now();
    const path = (request.url ?? '/').split('?')[0]!;
    const arrived = performance.now();
    const timing: GatewayRequestTiming = {
      session: open.session.id,
      path,
      status: 0,
      totalMs: 0,
      updateId: null,
      episodeMs: null,
    };
    if (deps.onRequest)
      response.once('finish', () =>
        deps.onRequest!({ ...timing, status: response.statusCode, totalMs: performance.now() - arrived }),
      );
    const adapter = gatewayAdapterForPath(path);
    try {
      if (keyOf(request) !== open.session.key) throw refuse(401, 'authentication_error', 'invalid API key');
      if (request.method === 'GET' && isModelListPath(path)) {
        send(response, 200, modelList(open.session.model, Math.floor(Date.now() / 1000)));
        return;
      }
      if (!adapter) throw refuse(404, 'not_found_error', `no such endpoint: ${request.method} ${path}`);
      if (request.method !== 'POST') throw refuse(405, 'invalid_request_error', `${path} takes POST`);
      if (open.inFlight >= limits.maxConcurrent)
        throw refuse(429, 'rate_limit_error', `more than ${limits.maxConcurrent} requests at once in this session`);
      open.inFlight += 1;
      try {
        const body = await readBody(request);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch (error) {
          throw refuse(400, 'invalid_request_error', `the body is not JSON: ${(error as Error).message}`);
        }
        const parsed = adapter.parse(json);
        if (!parsed.ok) throw new Refusal(parsed.error);
        await call(open, adapter, parsed.request, response, timing);
      } finally {
        open.inFlight -= 1;
        open.lastActivityMs = Date.now();
      }
    } catch (error) {
      open.refused += 1;
      const refusal =
        error instanceof Refusal ? error.error : { status: 500, type: 'api_error', message: (error as Error).message };
      // a body cut short or too large is not read on: the connection closes after the answer
      const close = refusal.status === 408 || refusal.status === 413;
      if (response.headersSent) response.end();
      else if (adapter) send(response, refusal.status, adapter.error(refusal), close);
      else send(response, refusal.status, { error: { message: refusal.message, type: refusal.type } }, close);
      if (close) response.once('finish', () => request.socket.destroy());
    }
  }

  return {
    /** Listens for one session; its socket is `gateway.sock` in the session's folder. */
    async open(session: GatewaySession): Promise<void> {
      await this.close(session.id);
      const socket = join(session.dir, 'gateway.sock');
      rmSync(socket, { force: true });
      const open: Open = {
        session,
        server: createServer(),
        next: 0,
        inFlight: 0,
        lastActivityMs: Date.now(),
        requests: 0,
        refused: 0,
      };
      open.server.on('request', (request, response) => void handle(open, request, response));
      await new Promise<void>((resolveListen, reject) => {
        open.server.once('error', reject);
        open.server.listen(socket, () => resolveListen());
      });
      // the agent's uid connects to it
      chmodSync(socket, 0o666);
      sessions.set(session.id, open);
    },

    /** Stops a session's listener; its socket goes, so a harness left behind reaches nothing. */
    async close(id: string): Promise<void> {
      const open = sessions.get(id);
      if (!open) return;
      sessions.delete(id);
      await new Promise<void>((resolveClose) => {
        open.server.close(() => resolveClose());
        open.server.closeAllConnections();
      });
      rmSync(join(open.session.dir, 'gateway.sock'), { force: true });
    },

    /** When a session last saw a request begin or end (null: not open here). */
    lastActivity(id: string): number | null {
      const open = sessions.get(id);
      if (!open) return null;
      return open.inFlight > 0 ? Date.now() : open.lastActivityMs;
    },

    /** A session's request counts. */
    counts(id: string): { requests: number; refused: number } | null {
      const open = sessions.get(id);
      return open ? { requests: open.requests, refused: open.refused } : null;
    },

    async closeAll(): Promise<void> {
      await Promise.all([...sessions.keys()].map((id) => this.close(id)));
    },
  };
}

export type Gateway = ReturnType<typeof createGateway>;

function send(response: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  response.end(text);
}

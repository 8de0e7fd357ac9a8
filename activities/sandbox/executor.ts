/**
 * The host side of a sandbox's executor: one long-lived process per sandbox (`run-tool.py --serve`,
 * root with only CAP_SETUID and CAP_SETGID) that runs each tool call in a child dropped to the agent's
 * uid, reached on a unix socket in the spool volume's root-only `ctl/` folder. Each call is one
 * connection to that socket: no `docker exec`, no Python start-up, no Docker API round trip.
 *
 * The socket is found through the spool volume's mount point on this host, so the executor needs the
 * worker on the Docker host (as the sweep already does). Where that path is not visible, or the
 * container cannot drop to the agent's uid (created without the two capabilities), calls go through
 * `docker exec` as before (runner.ts): `sandbox.executor: exec` restores that path everywhere.
 *
 * The exactly-once protocol is the runner's own: the child claims `NONCE.started` with O_EXCL before
 * it runs anything and writes `NONCE.json` before it answers, so a connection that breaks, a worker
 * killed with -9 or an executor restarted never runs a call twice.
 */
import { constants } from 'node:fs';
import { lstat, open, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { isNotFound } from './docker';
import { spoolPath } from './container';

/** Where this worker reaches a sandbox's executor and spool. */
export interface ExecutorChannel {
  /** the spool volume's folder on this host */
  spoolDir: string;
  socketPath: string;
}

/** One call as the executor reads it (the runner's request, strings base64). */
export interface ExecutorRequest {
  nonce: string;
  tool: string;
  arg1: string;
  arg2: string;
  timeoutMs: number;
  maxOutput: number;
  cleanup: string[];
}

/** What one connection gave: the result line, or why there is none. */
export type ExecutorReply =
  | { line: string }
  /** nothing listens: the executor is not running */
  | { unreachable: string }
  /** the connection ended before an answer (the call's child died, or the executor went away) */
  | { ended: string };

/** The program the executor runs, inside the container; `warm`: with its warm interpreter (sandbox/warm-python.py). */
export const executorCommand = (uid: number, warm = true) => [
  'python3',
  '-I',
  '-S',
  `${spoolPath}/run-tool.py`,
  '--serve',
  `${uid}`,
  ...(warm ? [] : ['--cold']),
];

const controlFolder = 'ctl';
const socketName = 'exec.sock';
/** A unix socket's path must fit in sun_path (108 bytes with its terminating zero). */
const maxSocketPath = 107;
/** Channels remembered per worker (one per live sandbox; old ones are dropped first). */
const maxChannels = 4096;

export function createExecutorClient(docker: Dockerode, uid: number, options: { warmPython?: boolean } = {}) {
  /** container name → its channel; null: calls to it go through `docker exec` */
  const channels = new Map<string, ExecutorChannel | null>();

  function remember(name: string, channel: ExecutorChannel | null): ExecutorChannel | null {
    channels.delete(name);
    channels.set(name, channel);
    if (channels.size > maxChannels) channels.delete(channels.keys().next().value!);
    return channel;
  }

  /** The spool volume's folder on this host, or null when this worker cannot see it (a remote daemon). */
  async function hostSpoolDir(containerName: string): Promise<string | null> {
    // from the container's mounts: a sandbox claimed from the warm pool (pool.ts) keeps its pool volumes' names
    let mountpoint: string | undefined;
    try {
      const info = await docker.getContainer(containerName).inspect();
      mountpoint = info.Mounts?.find((mount) => mount.Destination === spoolPath && mount.Type === 'volume')?.Source;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    if (!mountpoint) return null;
    try {
      // the tool runner is there once the sandbox's files are in: the mount is this host's
      await lstat(join(mountpoint, 'run-tool.py'));
      return mountpoint;
    } catch {
      return null;
    }
  }

  async function waitForSocket(socketPath: string, exec: Dockerode.Exec, ms: number): Promise<string | null> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      try {
        if ((await lstat(socketPath)).isSocket()) return null;
      } catch {
        // not yet
      }
      const state = await exec.inspect();
      if (!state.Running && state.ExitCode !== null) return `the executor exited with status ${state.ExitCode}`;
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 10));
    }
    return `the executor's socket did not appear within ${ms} ms`;
  }

  async function startExecutor(containerName: string): Promise<{ channel: ExecutorChannel | null; reason?: string }> {
    const spoolDir = await hostSpoolDir(containerName);
    if (!spoolDir) {
      remember(containerName, null);
      return { channel: null, reason: "the sandbox's spool volume is not on this worker's host" };
    }
    const socketPath = join(spoolDir, controlFolder, socketName);
    if (socketPath.length > maxSocketPath) {
      remember(containerName, null);
      return { channel: null, reason: `the socket path ${socketPath} is longer than a unix socket allows` };
    }
    // a socket left by an executor that died would look ready before the new one binds
    await rm(socketPath, { force: true });
    const exec = await docker.getContainer(containerName).exec({
      Cmd: executorCommand(uid, options.warmPython ?? true),
      User: '0:0',
      WorkingDir: '/',
      AttachStdout: false,
      AttachStderr: false,
    });
    // detached, the answer is an empty stream: closed now, or its connection would hold the process open
    const answer = (await exec.start({ Detach: true })) as unknown as { destroy?: () => void } | undefined;
    answer?.destroy?.();
    const failed = await waitForSocket(socketPath, exec, 10_000);
    if (failed) {
      remember(containerName, null);
      return { channel: null, reason: failed };
    }
    return { channel: remember(containerName, { spoolDir, socketPath }) };
  }

  const executor = {
    /**
     * Starts the sandbox's executor (a detached exec as root) and waits for its socket; the channel, or null with the
     * reason when this sandbox cannot have one (its calls then go through `docker exec`).
     */
    async start(containerName: string): Promise<{ channel: ExecutorChannel | null; reason?: string }> {
      try {
        return await startExecutor(containerName);
      } catch (error) {
        if (isNotFound(error)) throw error;
        remember(containerName, null);
        return { channel: null, reason: (error as Error).message };
      }
    },

    /**
     * The channel of a sandbox: remembered, or found on this host (its executor's socket is there); null when calls to
     * it
     * go through `docker exec` (no executor, or one this worker cannot reach).
     */
    async channelOf(containerName: string): Promise<ExecutorChannel | null> {
      if (channels.has(containerName)) return channels.get(containerName)!;
      const spoolDir = await hostSpoolDir(containerName);
      if (!spoolDir) return null;
      const socketPath = join(spoolDir, controlFolder, socketName);
      try {
        const control = await lstat(join(spoolDir, controlFolder));
        if (!control.isDirectory() || control.uid !== 0) return remember(containerName, null);
      } catch {
        // a sandbox made without an executor (sandbox.executor: exec, or before there was one)
        return remember(containerName, null);
      }
      return remember(containerName, { spoolDir, socketPath });
    },

    /** A sandbox renamed (claimed from the warm pool, pool.ts): its channel goes with it. */
    rename(from: string, to: string): void {
      const channel = channels.get(from);
      channels.delete(from);
      if (channel !== undefined) remember(to, channel);
      else channels.delete(to);
    },

    /** Forgets what is known of a sandbox (it was released, or its executor must be started again). */
    forget(containerName: string): void {
      channels.delete(containerName);
    },

    /**
     * Tells the executor its sandbox is seeded: it starts its warm interpreter now (sandbox/warm-python.py), so that
     * the first call finds it ready. False when the executor did not answer.
     */
    async ping(containerName: string): Promise<boolean> {
      const channel = await executor.channelOf(containerName);
      if (!channel) return false;
      return new Promise((resolvePing) => {
        const socket = createConnection(channel.socketPath);
        const timer = setTimeout(() => socket.destroy(), 5_000);
        let answer = '';
        socket.on('connect', () => socket.write('{"ping": true}\n'));
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolvePing(answer.startsWith('{"pong": true}'));
        });
      });
    },

    /** Sends one call over a new connection and waits for its line (the call's own timeout is enforced inside). */
    call(channel: ExecutorChannel, request: ExecutorRequest, waitMs: number): Promise<ExecutorReply> {
      return new Promise((resolveReply) => {
        const socket = createConnection(channel.socketPath);
        const chunks: Buffer[] = [];
        let connected = false;
        let settled = false;
        const settle = (reply: ExecutorReply) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          socket.destroy();
          resolveReply(reply);
        };
        const timer = setTimeout(() => settle({ ended: `no answer within ${waitMs} ms` }), waitMs);
        socket.on('connect', () => {
          connected = true;
          socket.write(`${JSON.stringify(request)}\n`);
        });
        socket.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          const text = Buffer.concat(chunks).toString('utf8');
          const end = text.indexOf('\n');
          if (end >= 0) settle({ line: text.slice(0, end) });
        });
        socket.on('error', (error: NodeJS.ErrnoException) => {
          if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED'))
            settle({ unreachable: error.code });
          else settle({ ended: error.code ?? error.message });
        });
        socket.on('close', () => settle({ ended: 'the connection closed without an answer' }));
      });
    },

    /**
     * A spool file read on this host: never through a link the agent planted (O_NOFOLLOW, regular files only), at most
     * `maxBytes`; null when absent.
     */
    async readSpool(channel: ExecutorChannel, name: string, maxBytes: number): Promise<Buffer | null> {
      let handle;
      try {
        handle = await open(
          join(channel.spoolDir, name),
          constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        );
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ELOOP') return null;
        throw error;
      }
      try {
        const info = await handle.stat();
        if (!info.isFile()) return null;
        if (info.size > maxBytes) throw new SpoolFileTooLarge(name, info.size);
        const data = Buffer.alloc(info.size);
        const { bytesRead } = await handle.read(data, 0, info.size, 0);
        return data.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
  return executor;
}

export class SpoolFileTooLarge extends Error {
  override name = 'SpoolFileTooLarge';
  constructor(name: string, size: number) {
    super(`spool file ${name} is ${size} bytes`);
  }
}

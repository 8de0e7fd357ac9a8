import { PassThrough, type Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { extract, pack } from 'tar-stream';
import { gatewayDirOf, removeGatewayDir } from '../gateway/mounts';

export interface TarEntry {
  path: string;
  content: Buffer;
  mode?: number;
  uid?: number;
  gid?: number;
}

/** Builds an uncompressed tar archive in memory; parent folders get the same owner as the files. */
export async function buildTar(
  entries: readonly TarEntry[],
  defaults: { uid: number; gid: number; dirMode?: number },
): Promise<Buffer> {
  const archive = pack();
  const seenDirs = new Set<string>();
  for (const entry of entries) {
    const parts = entry.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (seenDirs.has(dir)) continue;
      seenDirs.add(dir);
      archive.entry({
        name: dir,
        type: 'directory',
        mode: defaults.dirMode ?? 0o755,
        uid: defaults.uid,
        gid: defaults.gid,
      });
    }
    archive.entry(
      { name: entry.path, mode: entry.mode ?? 0o644, uid: entry.uid ?? defaults.uid, gid: entry.gid ?? defaults.gid },
      entry.content,
    );
  }
  archive.finalize();
  return streamToBuffer(archive as unknown as NodeJS.ReadableStream);
}

export interface ArchiveEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  content: Buffer;
  linkTarget?: string;
  mode: number;
}

/** Reads every entry of a tar stream; `stripFirst` drops the leading folder docker adds. */
export async function readTar(
  stream: Readable,
  options: { stripFirst?: boolean; maxBytes?: number } = {},
): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  const parser = extract();
  let total = 0;
  const done = new Promise<void>((resolveDone, reject) => {
    parser.on('entry', (header, body, next) => {
      // refuse before buffering: a sparse file can claim far more than the volume holds
      if (options.maxBytes !== undefined && total + (header.size ?? 0) > options.maxBytes) {
        parser.destroy(
          new ArchiveTooLargeError(`archive is larger than ${options.maxBytes} bytes (at ${header.name})`),
        );
        return;
      }
      const chunks: Buffer[] = [];
      body.on('data', (data: unknown) => {
        const chunk = data as Buffer;
        total += chunk.length;
        if (options.maxBytes !== undefined && total > options.maxBytes) {
          parser.destroy(new ArchiveTooLargeError(`archive is larger than ${options.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      body.on('end', () => {
        let path = header.name.replace(/\/+$/, '');
        if (options.stripFirst) path = path.split('/').slice(1).join('/');
        if (path) {
          const type =
            header.type === 'file' || header.type === 'contiguous-file'
              ? 'file'
              : header.type === 'directory'
                ? 'directory'
                : header.type === 'symlink'
                  ? 'symlink'
                  : 'other';
          entries.push({
            path,
            type,
            content: Buffer.concat(chunks),
            mode: header.mode ?? 0o644,
            ...(header.linkname ? { linkTarget: header.linkname } : {}),
          });
        }
        next();
      });
      body.resume();
    });
    parser.on('finish', resolveDone);
    parser.on('error', (error) => {
      stream.destroy();
      reject(error);
    });
  });
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);
  await done;
  return entries;
}

export class ArchiveTooLargeError extends Error {
  override name = 'ArchiveTooLargeError';
}

/**
 * Collects a stream; with `maxBytes`, the bound is checked as the bytes arrive and the stream is
 * ended as soon as it is passed (ArchiveTooLargeError), so nothing larger is ever held.
 */
export async function streamToBuffer(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += data.length;
    if (size > maxBytes) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new ArchiveTooLargeError(`the archive is larger than ${maxBytes} bytes`);
    }
    chunks.push(data);
  }
  return Buffer.concat(chunks);
}

export interface ExecResult {
  /** null when not inspected (see `inspectExitCode`) */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  inspectExitCode(): Promise<number | null>;
}

/** Runs a command in a container and collects its demultiplexed output. */
export async function execCollect(
  docker: Dockerode,
  container: Dockerode.Container,
  cmd: string[],
  options: { user?: string; workingDir?: string; env?: string[]; inspect?: boolean; maxBytes?: number } = {},
): Promise<ExecResult> {
  const exec = await container.exec({
    Cmd: cmd,
    AttachStdout: true,
    AttachStderr: true,
    ...(options.user ? { User: options.user } : {}),
    ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
    ...(options.env ? { Env: options.env } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  // output beyond the cap is dropped: the process inside may write without limit
  const limit = options.maxBytes ?? 64 * 1024 * 1024;
  const out = boundedBuffer(stdout, limit);
  const err = boundedBuffer(stderr, limit);
  docker.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolveEnd, reject) => {
    stream.on('end', resolveEnd);
    stream.on('close', resolveEnd);
    stream.on('error', reject);
  });
  stdout.end();
  stderr.end();
  const inspectExitCode = async () => (await exec.inspect()).ExitCode ?? null;
  // skipping the inspection saves a round trip when the output alone tells the result
  const exitCode = options.inspect === false ? null : await inspectExitCode();
  return { exitCode, stdout: (await out).toString('utf8'), stderr: (await err).toString('utf8'), inspectExitCode };
}

/** Collects at most `limit` bytes of a stream and drains the rest. */
async function boundedBuffer(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (size < limit) chunks.push(data.subarray(0, limit - size));
    size += data.length;
  }
  return Buffer.concat(chunks);
}

/** Reads one file out of a container through the archive API (no program runs inside it). */
export async function readContainerFile(
  container: Dockerode.Container,
  path: string,
  maxBytes = 16 * 1024 * 1024,
): Promise<Buffer | null> {
  try {
    const stream = (await container.getArchive({ path })) as unknown as Readable;
    const entries = await readTar(stream, { maxBytes });
    return entries.find((entry) => entry.type === 'file')?.content ?? null;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

/** An image's inspection, or null when the host does not have it. */
export async function inspectImage(docker: Dockerode, name: string): Promise<Dockerode.ImageInspectInfo | null> {
  try {
    return await docker.getImage(name).inspect();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** True when docker reported that the object does not exist. */
export function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/**
 * Removes a container with its anonymous volumes and, for an agent's container, its gateway folder on this host.
 * Absent is fine; when another caller is already removing it (docker answers 409), waits until it is gone, so its
 * volumes can be removed next. True when this call removed it.
 */
export async function removeContainer(docker: Dockerode, idOrName: string, waitMs = 60_000): Promise<boolean> {
  try {
    const container = docker.getContainer(idOrName);
    const gatewayDir = gatewayDirOf(await container.inspect());
    await container.remove({ force: true, v: true });
    removeGatewayDir(gatewayDir);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    if (!(
      (error as { statusCode?: number }).statusCode === 409 &&
      /removal .* already in progress/.test(String((error as Error).message))
    ))
      throw error;
  }
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      await docker.getContainer(idOrName).inspect();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    if (Date.now() > until)
      throw new Error(`container ${idOrName}: another removal did not finish within ${waitMs} ms`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

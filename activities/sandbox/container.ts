/**
 * The hardened container of an episode and what goes into it: names, labels, volumes, the helper
 * scripts, the starting repository; the identity of a sandbox host. Used by the lifecycle activities,
 * the checker's graders and the reaper.
 */
import { agentBinds } from '../gateway/mounts';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { promisify } from 'node:util';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../../shared/contracts/config';
import { atomicWrite } from '../store/files';
import { buildTar, isNotFound, removeContainer, type TarEntry } from './docker';
import { checkerScript, graderPackageFiles, graderScripts } from '../checker/scripts';

/** The scripts copied into containers (tool runner, grade harness, tamper detector). */
export const sandboxDir = resolve(__dirname, '..', '..', 'sandbox');
/** Container and volume labels; `episode` holds the deployment, so a reaper touches only its own. */
export const labels = {
  episode: 'agentrl.episode',
  workflowId: 'agentrl.workflow-id',
  episodeId: 'agentrl.episode-id',
  role: 'agentrl.role',
  runId: 'agentrl.run-id',
  /** a warm pool's container (role `pool`): its pool's key (pool.ts); its claim record says whose it became */
  pool: 'agentrl.pool',
} as const;
export const spoolPath = '/run/agentrl';
export const repoPath = '/work';

/**
 * Stable identity of a sandbox host, usable in a task-queue name: the Docker daemon's id with the
 * worker's state folder (which holds the tool-call journal), so a worker restarted on the same host
 * and folder serves the same queue, and two deployments on one host never share a journal.
 */
export async function dockerHostId(docker: Dockerode, stateDir: string): Promise<string> {
  const info = (await docker.info()) as { ID?: string; Name?: string };
  const id = info.ID ?? info.Name ?? 'unknown';
  return createHash('sha256').update(id).update('\0').update(resolve(stateDir)).digest('hex').slice(0, 16);
}

/** The deployment a worker serves (server, namespace, base task queue): sandboxes are named and reaped within it. */
export function deploymentId(address: string, namespace: string, taskQueue: string): string {
  return `${address}/${namespace}/${taskQueue}`;
}

/**
 * Container name of an episode's sandbox; a retried acquire finds the same one. The episode id is the
 * workflow id with its first run id, so a later workflow reusing the id never finds this sandbox.
 */
export function sandboxName(
  deployment: string,
  episodeId: string,
  role: 'agent' | 'grader' | 'audit' = 'agent',
): string {
  const hash = createHash('sha256').update(deployment).update('\0').update(episodeId).digest('hex').slice(0, 20);
  return role === 'agent' ? `agentrl-ep-${hash}` : `agentrl-ep-${hash}-${role}`;
}

export interface ContainerOptions {
  name: string;
  deployment: string;
  image: string;
  workflowId: string;
  episodeId: string;
  runId: string;
  /** `pool`: an agent's container made ahead of need (pool.ts), labelled with no episode until one claims it */
  role: 'agent' | 'grader' | 'audit' | 'pool';
  sandbox: AgentrlConfig['sandbox'];
  /** more labels (a pool container's key) */
  extraLabels?: Record<string, string>;
  /** a pool container made for this role (a grader's: its repository root's, the two capabilities) */
  poolFor?: 'agent' | 'grader' | 'audit';
  /**
   * the repository root's owner and bits (a restored sandbox keeps its snapshot's); @default the agent's uid (root for
   * graders), 0755
   */
  workRoot?: { uid: number; gid: number; mode: number };
  /** more tmpfs volumes (a Harbor verifier's /tests and /logs), named `<name>-<suffix>` and removed with the sandbox */
  extraVolumes?: readonly { suffix: string; target: string; uid: number; mode: number; sizeMb?: number }[];
}

/** Creates the two tmpfs volumes (repository, spool) and a hardened container; nothing is started. */
export async function createHardenedContainer(
  docker: Dockerode,
  options: ContainerOptions,
): Promise<{ container: Dockerode.Container; volumes: string[] }> {
  const { sandbox } = options;
  const commonLabels = {
    [labels.episode]: options.deployment,
    [labels.workflowId]: options.workflowId,
    [labels.episodeId]: options.episodeId,
    [labels.role]: options.role,
    [labels.runId]: options.runId,
    ...options.extraLabels,
  };
  const workVolume = `${options.name}-work`;
  const spoolVolume = `${options.name}-spool`;
  const role = options.role === 'pool' ? (options.poolFor ?? 'agent') : options.role;
  const grader = role === 'grader' || role === 'audit';
  // tmpfs-backed volumes: the disk-write limit, and the archive API can read and write them;
  // a grader's repository belongs to root, so the tests' user can read it but not change it
  const owner = grader ? 0 : sandbox.uid;
  const root = options.workRoot ?? { uid: owner, gid: owner, mode: 0o755 };
  await docker.createVolume({
    Name: workVolume,
    Driver: 'local',
    Labels: commonLabels,
    DriverOpts: {
      type: 'tmpfs',
      device: 'tmpfs',
      o: `size=${sandbox.workDiskMb}m,uid=${root.uid},gid=${root.gid},mode=${octalMode(root.mode)}`,
    },
  });
  // the spool is writable but not listable by the agent (mode 1733, owned by root)
  await docker.createVolume({
    Name: spoolVolume,
    Driver: 'local',
    Labels: commonLabels,
    DriverOpts: { type: 'tmpfs', device: 'tmpfs', o: 'size=64m,mode=1733' },
  });
  const extra = options.extraVolumes ?? [];
  for (const volume of extra)
    await docker.createVolume({
      Name: `${options.name}-${volume.suffix}`,
      Driver: 'local',
      Labels: commonLabels,
      DriverOpts: {
        type: 'tmpfs',
        device: 'tmpfs',
        o: `size=${volume.sizeMb ?? 64}m,uid=${volume.uid},gid=${volume.uid},mode=${octalMode(volume.mode)}`,
      },
    });
  const container = await docker.createContainer({
    name: options.name,
    Image: options.image,
    Cmd: ['sleep', 'infinity'],
    // the main process runs as root without capabilities, so the agent's uid cannot signal it and stop
    // the container; tool calls run as the agent's uid; the grader, and the agent's container when its
    // tool calls go through the executor (executor.ts), keep the two capabilities root needs to drop to
    // that uid (a process that drops loses them, and no-new-privileges keeps them lost)
    User: '0:0',
    WorkingDir: repoPath,
    Env: ['HOME=/tmp', 'LANG=C.UTF-8', 'PYTHONDONTWRITEBYTECODE=1'],
    Labels: commonLabels,
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      ...(grader || sandbox.executor === 'server' ? { CapAdd: ['SETUID', 'SETGID'] } : {}),
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Init: true,
      Memory: sandbox.memoryMb * 1024 * 1024,
      MemorySwap: sandbox.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(sandbox.cpus * 1e9),
      PidsLimit: sandbox.pidsLimit,
      ShmSize: 16 * 1024 * 1024,
      Tmpfs: { '/tmp': `size=${sandbox.tmpDiskMb}m,mode=1777`, '/var/tmp': `size=${sandbox.tmpDiskMb}m,mode=1777` },
      // an agent's way to the model gateway and the installed harnesses (gateway/mounts.ts); never a grader's
      ...(grader ? {} : { Binds: agentBinds(options.name) }),
      Mounts: [
        { Type: 'volume', Source: workVolume, Target: repoPath },
        { Type: 'volume', Source: spoolVolume, Target: spoolPath },
        ...extra.map((volume) => ({
          Type: 'volume' as const,
          Source: `${options.name}-${volume.suffix}`,
          Target: volume.target,
        })),
      ],
    },
  });
  return {
    container,
    volumes: [workVolume, spoolVolume, ...extra.map((volume) => `${options.name}-${volume.suffix}`)],
  };
}

/** The named volumes a container mounts (an episode's own, or the pool's it was claimed from). */
export function mountedVolumes(info: Dockerode.ContainerInspectInfo): string[] {
  return (info.Mounts ?? []).flatMap((mount) => (mount.Type === 'volume' && mount.Name ? [mount.Name] : []));
}

/** The container limits of a task: the worker's sandbox settings with what the task asks for (a Harbor task.toml). */
export function sandboxFor(
  sandbox: AgentrlConfig['sandbox'],
  resources: Partial<Pick<AgentrlConfig['sandbox'], 'cpus' | 'memoryMb' | 'workDiskMb'>> | undefined,
): AgentrlConfig['sandbox'] {
  return { ...sandbox, ...(resources ?? {}) };
}

/** Removes a container and its volumes; absent ones are fine. */
export async function removeSandbox(
  docker: Dockerode,
  containerName: string,
  volumes: readonly string[],
): Promise<void> {
  await removeContainer(docker, containerName);
  for (const volume of volumes) {
    try {
      await docker.getVolume(volume).remove();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** Removes every container and volume labelled with the episode, whatever its role or attempt. */
export async function removeEpisodeSandboxes(docker: Dockerode, deployment: string, episodeId: string): Promise<void> {
  const filters = { label: [`${labels.episode}=${deployment}`, `${labels.episodeId}=${episodeId}`] };
  for (const info of await docker.listContainers({ all: true, filters })) {
    await removeContainer(docker, info.Id);
  }
  for (const volume of (await docker.listVolumes({ filters })).Volumes ?? []) {
    try {
      await docker.getVolume(volume.Name).remove();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/**
 * Puts files into a container's volume as root's, read-only for other users (a scoring container's tree): written
 * through the volume's folder on this host when there is one (`hostDir`, a fresh volume no agent has touched: new
 * files only, never through a link), else through Docker's archive API at `target`.
 */
export async function writeTree(
  container: Dockerode.Container,
  hostDir: string | null,
  target: string,
  entries: readonly TarEntry[],
): Promise<void> {
  if (!hostDir) {
    await container.putArchive(await buildTar(entries, { uid: 0, gid: 0 }), { path: target });
    return;
  }
  const made = new Set<string>();
  for (const entry of entries) {
    const path = join(hostDir, entry.path);
    if (!resolve(path).startsWith(resolve(hostDir) + '/')) throw new Error(`${entry.path} leaves the tree`);
    const folder = dirname(path);
    if (!made.has(folder)) {
      await mkdir(folder, { recursive: true, mode: 0o755 });
      made.add(folder);
    }
    const handle = await open(
      path,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      entry.mode ?? 0o644,
    );
    try {
      await handle.writeFile(entry.content);
      // the mode as given, whatever the umask
      await handle.chmod(entry.mode ?? 0o644);
    } finally {
      await handle.close();
    }
  }
}

/**
 * The sandbox's helper scripts (the tool runner, the checker's graders, and the package files the grade
 * harness imports, in their folders beside it), owned by root and read-only for the agent.
 */
export function spoolTar(): Promise<Buffer> {
  const files = [
    join(sandboxDir, 'run-tool.py'),
    join(sandboxDir, 'warm-python.py'),
    ...graderScripts.map(checkerScript),
  ];
  return buildTar(
    [
      ...files.map((path) => ({ path: basename(path), content: readFileSync(path), mode: 0o555 })),
      ...graderPackageFiles().map((name) => ({ path: name, content: readFileSync(checkerScript(name)), mode: 0o444 })),
    ],
    { uid: 0, gid: 0 },
  );
}

/**
 * The starting repository as a tar: a git repository with exactly one commit, no other refs and no reflog.
 * The commit is deterministic (fixed author and date), so the same snapshot always gives the same commit id.
 */
export async function repositoryTar(
  files: Record<string, Buffer>,
  uid: number,
  cacheDir: string,
  cacheKey: string,
  /** files to mark executable (a Harbor task's scripts, as its image had them) */
  executables: readonly string[] = [],
): Promise<Buffer> {
  const cached = join(cacheDir, 'repos', `${cacheKey.replace(/[^a-z0-9]/gi, '_')}.tar`);
  if (existsSync(cached)) return readFileSync(cached);
  const work = mkdtempSync(join(tmpdir(), 'agentrl-repo-'));
  try {
    const executable = new Set(executables);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content, { mode: executable.has(path) ? 0o755 : 0o644 });
    }
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'agentrl',
      GIT_AUTHOR_EMAIL: 'agentrl@localhost',
      GIT_COMMITTER_NAME: 'agentrl',
      GIT_COMMITTER_EMAIL: 'agentrl@localhost',
      GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: work,
    };
    // asynchronous: a blocked event loop would stop every activity's heartbeats
    const git = (...args: string[]) =>
      promisify(execFile)('git', ['-c', 'core.logAllRefUpdates=false', ...args], { cwd: work, env });
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '--allow-empty', '-m', 'Starting repository');
    rmSync(join(work, '.git', 'logs'), { recursive: true, force: true });
    rmSync(join(work, '.git', 'hooks'), { recursive: true, force: true });
    rmSync(join(work, '.git', 'COMMIT_EDITMSG'), { force: true });
    const entries: TarEntry[] = [];
    const walk = (dir: string, prefix: string): void => {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        const rel = prefix ? `${prefix}/${name}` : name;
        if (statSync(full).isDirectory()) walk(full, rel);
        else
          entries.push({
            path: rel,
            content: readFileSync(full),
            ...(executable.has(rel) ? { mode: 0o755 } : {}),
          });
      }
    };
    walk(work, '');
    const tar = await buildTar(entries, { uid, gid: uid });
    await atomicWrite(cached, tar);
    return tar;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Decodes a snapshot's base64 file map. */
export function decodeFiles(files: Record<string, string>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(files).map(([path, b64]) => [path, Buffer.from(b64, 'base64')]));
}

/** A file mode's permission bits as four octal digits (a tmpfs mount's mode= option). */
function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

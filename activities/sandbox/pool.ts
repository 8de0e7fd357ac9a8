/**
 * The warm sandbox pool of one worker: agent containers made, started and seeded ahead of need (the task's repository
 * in, the executor listening), kept per recipe (image, starting repository, limits) at a configured size, refilled in
 * the background. An episode's acquire claims one when there is one: its claim record (the episode's ids, root's file
 * in the spool, which the agent cannot change) goes in, then the container is renamed to the episode's sandbox name,
 * which is atomic in Docker. Retries, release and parking then find it by that name as they find any sandbox; the
 * reaper reads the claim record (Docker labels cannot change after creation, so a pool container keeps role `pool`).
 * A pool container is used by one episode at most: it is never returned to the pool.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { z } from 'zod';
import type { AgentrlConfig } from '../../shared/contracts/config';
import { buildTar, isNotFound, readContainerFile } from './docker';
import {
  createHardenedContainer,
  labels,
  mountedVolumes,
  removeSandbox,
  repoPath,
  spoolPath,
  spoolTar,
} from './container';

/** Name prefix of a pool container that no episode has claimed. */
export const poolNamePrefix = 'agentrl-pool-';
/** The claim record, in the sandbox's spool: whose episode the container became. */
export const claimFile = '.claim';
export const PoolClaim = z.object({ workflowId: z.string(), episodeId: z.string(), runId: z.string() });
export type PoolClaim = z.infer<typeof PoolClaim>;

export type PoolSettings = AgentrlConfig['sandbox']['pool'];

/**
 * How to make one container of a recipe: created with role `pool` and `labels.pool` set to `poolLabel`, started,
 * seeded.
 */
export interface PoolRecipe {
  /** the recipe's identity: same image, starting repository and limits, same key */
  key: string;
  /** creates, starts and seeds a container of this recipe under `name`; removes what it made when it fails */
  make(name: string, poolLabel: string): Promise<void>;
}

export interface PoolCounts {
  /** containers ready to be claimed */
  ready: number;
  /** containers being made */
  filling: number;
  /** recipes asked for within `idleS` */
  recipes: number;
  /** acquisitions served from the pool, and those that found it empty, since the worker started */
  claimed: number;
  missed: number;
  /** containers that could not be made */
  failed: number;
}

export type SandboxPool = ReturnType<typeof createSandboxPool>;

/** A container ready to be claimed: its id and volumes, and its spool's folder when it is on this worker's host. */
interface Ready {
  name: string;
  containerId: string;
  volumes: string[];
  spoolDir: string | null;
  /** the repository volume's folder on this host (null: not this worker's to write) */
  workDir: string | null;
}

/** What an acquire gets from the pool: the claimed container, now under the episode's sandbox name. */
export interface Claimed {
  poolName: string;
  containerId: string;
  volumes: string[];
  /** the spool and repository volumes' folders on this host, when the worker can write there (root, same host) */
  spoolDir: string | null;
  workDir: string | null;
}

/** The value of `labels.pool` on this host's containers of one recipe. */
const poolLabelOf = (hostId: string, key: string) => `${hostId}:${key}`;

export function createSandboxPool(
  docker: Dockerode,
  options: { deployment: string; hostId: string; settings: PoolSettings; log?: (message: string) => void },
) {
  const { settings, deployment, hostId } = options;
  const log = options.log ?? ((message: string) => console.error(message));
  const ready = new Map<string, Ready[]>();
  const filling = new Map<string, number>();
  const recipes = new Map<string, { recipe: PoolRecipe; lastUsedMs: number; failedUntilMs: number }>();
  const counts = { claimed: 0, missed: 0, failed: 0 };
  const running = new Set<Promise<void>>();
  let stopped = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let refill: NodeJS.Timeout | undefined;

  const readyCount = () => [...ready.values()].reduce((sum, names) => sum + names.length, 0);
  const fillingCount = () => [...filling.values()].reduce((sum, n) => sum + n, 0);
  const volumesOf = (name: string) => [`${name}-work`, `${name}-spool`];

  async function discard(name: string): Promise<void> {
    await removeSandbox(docker, name, volumesOf(name)).catch((error: Error) =>
      log(`sandbox pool: could not remove ${name}: ${error.message}`),
    );
  }

  /** The recipe that most lacks containers, while the pool is under its total. */
  function nextRecipe(): PoolRecipe | null {
    if (stopped || readyCount() + fillingCount() >= settings.maxContainers) return null;
    const now = Date.now();
    let best: { recipe: PoolRecipe; deficit: number } | null = null;
    for (const [key, entry] of recipes) {
      if (entry.failedUntilMs > now) continue;
      const deficit = settings.size - (ready.get(key)?.length ?? 0) - (filling.get(key) ?? 0);
      if (deficit > 0 && (!best || deficit > best.deficit)) best = { recipe: entry.recipe, deficit };
    }
    return best?.recipe ?? null;
  }

  async function fillOne(recipe: PoolRecipe): Promise<void> {
    const name = `${poolNamePrefix}${hostId.slice(0, 8)}-${randomBytes(6).toString('hex')}`;
    filling.set(recipe.key, (filling.get(recipe.key) ?? 0) + 1);
    try {
      await recipe.make(name, poolLabelOf(hostId, recipe.key));
      const info = await docker.getContainer(name).inspect();
      const folder = (target: string) =>
        info.Mounts?.find((mount) => mount.Destination === target && mount.Type === 'volume')?.Source;
      const spool = folder(spoolPath);
      // the claim (and a scoring container's files) go in through the volumes' folders when this worker sees them
      // and writes as root: no archive call into the container
      const local = spool !== undefined && process.getuid?.() === 0 && (await isLocalSpool(spool));
      const entry: Ready = {
        name,
        containerId: info.Id,
        volumes: mountedVolumes(info),
        spoolDir: local ? spool : null,
        workDir: local ? (folder(repoPath) ?? null) : null,
      };
      if (stopped || !recipes.has(recipe.key)) await discard(name);
      else ready.set(recipe.key, [...(ready.get(recipe.key) ?? []), entry]);
    } catch (error) {
      counts.failed += 1;
      const entry = recipes.get(recipe.key);
      // a recipe that cannot be made now (its image went away, the host is full) is tried again later
      if (entry) entry.failedUntilMs = Date.now() + 30_000;
      log(`sandbox pool: could not make a container: ${(error as Error).message}`);
      await discard(name);
    } finally {
      filling.set(recipe.key, (filling.get(recipe.key) ?? 1) - 1);
    }
  }

  /** Starts fillers up to `fillConcurrency` while some recipe lacks containers. */
  function kick(): void {
    while (running.size < settings.fillConcurrency) {
      const recipe = nextRecipe();
      if (!recipe) return;
      const task: Promise<void> = fillOne(recipe).finally(() => {
        running.delete(task);
        kick();
      });
      running.add(task);
    }
  }

  /** Drops the recipes nobody asked for within `idleS`, with their containers. */
  async function dropIdle(): Promise<void> {
    const cutoff = Date.now() - settings.idleS * 1000;
    for (const [key, entry] of recipes) {
      if (entry.lastUsedMs >= cutoff) continue;
      recipes.delete(key);
      const entries = ready.get(key) ?? [];
      ready.delete(key);
      await Promise.all(entries.map((entry) => discard(entry.name)));
    }
  }

  return {
    settings,

    /** Removes this host's pool containers left by an earlier worker process (fresh ones are made on demand). */
    async start(): Promise<void> {
      const left = await docker.listContainers({
        all: true,
        filters: { label: [`${labels.episode}=${deployment}`, `${labels.role}=pool`] },
      });
      for (const info of left) {
        const name = info.Names[0]?.replace(/^\//, '') ?? '';
        if (name.startsWith(poolNamePrefix) && (info.Labels[labels.pool] ?? '').startsWith(`${hostId}:`))
          await discard(name);
      }
      idleTimer = setInterval(() => void dropIdle(), Math.min(60_000, settings.idleS * 1000));
      idleTimer.unref();
    },

    /**
     * Asks for a recipe (again): the pool keeps `size` containers of it from now on, made in the background. Called
     * once
     * the recipe's image is on this host.
     */
    want(recipe: PoolRecipe): void {
      if (stopped || settings.size === 0) return;
      const entry = recipes.get(recipe.key);
      recipes.set(recipe.key, { recipe, lastUsedMs: Date.now(), failedUntilMs: entry?.failedUntilMs ?? 0 });
      // refills start once acquisitions and gradings have paused for a moment: making a container costs the host CPU
      // that the episode which just claimed one needs now
      clearTimeout(refill);
      refill = setTimeout(kick, settings.refillDelayMs);
      refill.unref();
    },

    /**
     * Claims a ready container of the recipe for an episode: its claim record (and the seeded mark the acquire checks)
     * goes in, then it is renamed to `name`. Null when the pool has none of the recipe.
     */
    async claim(key: string, name: string, claim: PoolClaim): Promise<Claimed | null> {
      if (stopped || settings.size === 0) return null;
      const entries = ready.get(key) ?? [];
      const record = [
        { path: claimFile, content: Buffer.from(JSON.stringify(PoolClaim.parse(claim))) },
        { path: '.seeded', content: Buffer.from(claim.episodeId) },
      ];
      while (entries.length) {
        const entry = entries.shift()!;
        const container = docker.getContainer(entry.name);
        try {
          if (!(entry.spoolDir && (await writeRecord(entry.spoolDir, record))))
            await container.putArchive(
              await buildTar(
                record.map((file) => ({ ...file, mode: 0o444 })),
                { uid: 0, gid: 0 },
              ),
              { path: spoolPath },
            );
          await container.rename({ name });
          counts.claimed += 1;
          return {
            poolName: entry.name,
            containerId: entry.containerId,
            volumes: entry.volumes,
            spoolDir: entry.spoolDir,
            workDir: entry.workDir,
          };
        } catch (error) {
          // the name is taken: another attempt of this acquire made or claimed the episode's sandbox meanwhile
          if ((error as { statusCode?: number }).statusCode === 409) {
            await discard(entry.name);
            throw error;
          }
          if (!isNotFound(error)) log(`sandbox pool: ${entry.name} not usable: ${(error as Error).message}`);
          await discard(entry.name);
        }
      }
      counts.missed += 1;
      return null;
    },

    counts(): PoolCounts {
      return { ready: readyCount(), filling: fillingCount(), recipes: recipes.size, ...counts };
    },

    /** Stops refilling and removes every container not claimed (those being made are removed when they are done). */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(idleTimer);
      clearTimeout(refill);
      await Promise.all([...running]);
      const entries = [...ready.values()].flat();
      ready.clear();
      await Promise.all(entries.map((entry) => discard(entry.name)));
    },
  };
}

/** The spool folder is this host's (the helper scripts are in it), so files can be written there directly. */
async function isLocalSpool(dir: string): Promise<boolean> {
  try {
    return (await lstat(join(dir, 'run-tool.py'))).isFile();
  } catch {
    return false;
  }
}

/**
 * Writes root's read-only files into a spool folder on this host: new files only, never through a link (no agent has
 * run in a pool container, and O_EXCL|O_NOFOLLOW holds even so). False when this worker may not write there.
 */
async function writeRecord(dir: string, files: readonly { path: string; content: Buffer }[]): Promise<boolean> {
  try {
    for (const file of files) {
      const handle = await open(
        join(dir, file.path),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o444,
      );
      try {
        await handle.writeFile(file.content);
      } finally {
        await handle.close();
      }
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES' || (error as NodeJS.ErrnoException).code === 'EPERM')
      return false;
    throw error;
  }
}

/** The claim record of a pool container (null: not claimed, or not a pool container). */
export async function readClaim(container: Dockerode.Container): Promise<PoolClaim | null> {
  const content = await readContainerFile(container, `${spoolPath}/${claimFile}`, 4096);
  if (!content) return null;
  try {
    const parsed = PoolClaim.safeParse(JSON.parse(content.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The pool's recipe of a scoring container (a grader's or an audit's): hardened as the checker makes them, started,
 * the helper scripts in, nothing of any episode; `prepare` does what else a fresh one needs before it is claimed.
 */
export function scoringRecipe(
  docker: Dockerode,
  options: {
    deployment: string;
    image: string;
    sandbox: AgentrlConfig['sandbox'];
    role: 'grader' | 'audit';
    prepare?: (container: Dockerode.Container, name: string) => Promise<void>;
  },
): PoolRecipe {
  const { pool: _pool, ...limits } = options.sandbox;
  return {
    key: createHash('sha256')
      .update(JSON.stringify(['scoring', options.role, options.image, limits]))
      .digest('hex')
      .slice(0, 24),
    async make(name, poolLabel) {
      const { container, volumes } = await createHardenedContainer(docker, {
        name,
        deployment: options.deployment,
        image: options.image,
        workflowId: '',
        episodeId: '',
        runId: '',
        role: 'pool',
        poolFor: options.role,
        sandbox: options.sandbox,
        extraLabels: { [labels.pool]: poolLabel },
      });
      try {
        await container.start();
        await container.putArchive(await spoolTar(), { path: spoolPath });
        await options.prepare?.(container, name);
      } catch (error) {
        await removeSandbox(docker, name, volumes).catch(() => undefined);
        throw error;
      }
    },
  };
}

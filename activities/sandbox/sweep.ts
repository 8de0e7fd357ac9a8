/**
 * The sweep of the agent's processes, run from the host after every tool call and before scoring.
 *
 * The in-sandbox runner kills what a call started, but it runs as the agent's uid: the agent can kill
 * it first (`kill -9 $PPID`), or fill the pids limit so nothing new can start, and root inside the
 * container holds no capability to signal another uid. The sweep therefore never runs inside: it
 * freezes the container's cgroup, reads the container's processes from the host, SIGKILLs every one
 * owned by the agent's uid, and thaws. Frozen processes cannot fork or exit, so the list it reads is
 * complete and the kill reaches all of them; the container's root init stays.
 *
 * The freeze is the cgroup's own file (cgroup v1 `freezer.state`, v2 `cgroup.freeze`), written from the
 * host: what Docker's pause does, without the API round trips (the container's id is remembered by
 * name). Where this worker cannot see the container's cgroup, it uses Docker's pause and unpause.
 *
 * It needs the worker on the Docker host with the right to signal the agent's uid (root, as the
 * sandbox workers run); a worker without it fails the activity with the reason, never silently.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { isNotFound } from './docker';

export interface SweepResult {
  /** processes of the agent's uid that were killed */
  killed: number;
}

export class SweepError extends Error {
  override name = 'SweepError';
}

/** Container ids by name, as last inspected (a name reused by a new container is found by its missing cgroup). */
const containerIds = new Map<string, string>();
const maxRemembered = 4096;

/** Kills every process of `uid` in a running container from outside it; a stopped or missing container has none. */
export async function sweepAgentProcesses(
  docker: Dockerode,
  containerName: string,
  uid: number,
  /** `docker`: Docker's pause and unpause, as before the cgroup files were used (sandbox.executor: exec) */
  freeze: 'cgroup' | 'docker' = 'cgroup',
): Promise<SweepResult> {
  const known = freeze === 'cgroup' ? containerIds.get(containerName) : undefined;
  if (known) {
    const fast = await sweepThroughCgroup(known, uid);
    if (fast) return fast;
    containerIds.delete(containerName);
  }
  const container = docker.getContainer(containerName);
  let info: Dockerode.ContainerInspectInfo;
  try {
    info = await container.inspect();
  } catch (error) {
    if (isNotFound(error)) return { killed: 0 };
    throw error;
  }
  if (!info.State.Running) return { killed: 0 };
  if (!info.State.Paused && freeze === 'cgroup') {
    const fast = await sweepThroughCgroup(info.Id, uid);
    if (fast) {
      containerIds.set(containerName, info.Id);
      if (containerIds.size > maxRemembered) containerIds.delete(containerIds.keys().next().value!);
      return fast;
    }
  }
  // a container found paused was left so by a sweep whose worker died: this sweep thaws it too
  if (!info.State.Paused) await container.pause();
  const killed: number[] = [];
  try {
    await killOwned(await containerPids(container, info.Id), uid, killed);
  } finally {
    await container.unpause().catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  await waitForDeath(killed, uid);
  return { killed: killed.length };
}

/** SIGKILLs the processes of `uid` among `pids` (of a frozen container), adding each one killed to `killed`. */
async function killOwned(pids: number[], uid: number, killed: number[]): Promise<void> {
  for (const pid of pids) {
    if ((await ownerOf(pid)) !== uid) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') continue;
      throw new SweepError(
        `cannot kill the agent's process ${pid} from the host (${code}): ` +
          'the worker must run on the Docker host as root',
      );
    }
  }
}

/** A frozen task dies once thawed; waits for it so that the next call or the grader never meets it. */
async function waitForDeath(killed: number[], uid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (killed.length > 0 && Date.now() < deadline) {
    const alive = (await Promise.all(killed.map(async (pid) => (await ownerOf(pid)) === uid))).some(Boolean);
    if (!alive) break;
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 5));
  }
}

/** A container's freezer on this host: cgroup v1 (cgroupfs or systemd driver) or v2. */
interface Freezer {
  /** the file to write, and what freezes and thaws */
  control: string;
  freeze: string;
  thaw: string;
  /** the file that says when the freeze is complete, and what it then reads */
  state: string;
  frozen: RegExp;
  procs: string;
}

async function freezerOf(id: string): Promise<Freezer | null> {
  const v1 = [`/sys/fs/cgroup/freezer/docker/${id}`, `/sys/fs/cgroup/freezer/system.slice/docker-${id}.scope`];
  for (const dir of v1)
    if (await exists(`${dir}/freezer.state`))
      return {
        control: `${dir}/freezer.state`,
        freeze: 'FROZEN',
        thaw: 'THAWED',
        state: `${dir}/freezer.state`,
        frozen: /^FROZEN/,
        procs: `${dir}/cgroup.procs`,
      };
  const v2 = [`/sys/fs/cgroup/system.slice/docker-${id}.scope`, `/sys/fs/cgroup/docker/${id}`];
  for (const dir of v2)
    if (await exists(`${dir}/cgroup.freeze`))
      return {
        control: `${dir}/cgroup.freeze`,
        freeze: '1',
        thaw: '0',
        state: `${dir}/cgroup.events`,
        frozen: /^frozen 1$/m,
        procs: `${dir}/cgroup.procs`,
      };
  return null;
}

/**
 * The sweep by the container's cgroup files: freeze, list, kill the uid's processes, thaw. Null when this worker does
 * not see the container's cgroup (it is gone, or the daemon's cgroups are elsewhere): the caller asks Docker.
 */
async function sweepThroughCgroup(id: string, uid: number): Promise<SweepResult | null> {
  const freezer = await freezerOf(id);
  if (!freezer) return null;
  const killed: number[] = [];
  try {
    await writeFile(freezer.control, freezer.freeze);
    // freezing takes until every task has stopped (cgroup v1 reads FREEZING meanwhile)
    const deadline = Date.now() + 10_000;
    while (!freezer.frozen.test(await readFile(freezer.state, 'utf8'))) {
      if (Date.now() > deadline) throw new SweepError(`the container's cgroup did not freeze within 10 s`);
      await new Promise((resolveSleep) => setImmediate(resolveSleep));
    }
    await killOwned((await readFile(freezer.procs, 'utf8')).split('\n').filter(Boolean).map(Number), uid, killed);
  } catch (error) {
    // the container stopped meanwhile: its cgroup went with it
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { killed: killed.length };
    throw error;
  } finally {
    await writeFile(freezer.control, freezer.thaw).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  await waitForDeath(killed, uid);
  return { killed: killed.length };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Host pids of a container's processes: its cgroup (v1 or v2, cgroupfs or systemd driver), else `docker top`. */
async function containerPids(container: Dockerode.Container, id: string): Promise<number[]> {
  const candidates = [
    `/sys/fs/cgroup/pids/docker/${id}/cgroup.procs`,
    `/sys/fs/cgroup/freezer/docker/${id}/cgroup.procs`,
    `/sys/fs/cgroup/pids/system.slice/docker-${id}.scope/cgroup.procs`,
    `/sys/fs/cgroup/system.slice/docker-${id}.scope/cgroup.procs`,
    `/sys/fs/cgroup/docker/${id}/cgroup.procs`,
  ];
  for (const path of candidates) {
    try {
      return (await readFile(path, 'utf8')).split('\n').filter(Boolean).map(Number);
    } catch {
      // not this layout
    }
  }
  // dockerode types top()'s answer as any: its shape is Docker's API's
  const { Titles, Processes } = (await container.top({ ps_args: '-o pid' })) as {
    Titles: string[];
    Processes: string[][];
  };
  const column = Titles.indexOf('PID');
  return Processes.map((row) => Number(row[column]));
}

/** The real uid of a host process, or null once it is gone. */
async function ownerOf(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const line = status.split('\n').find((entry) => entry.startsWith('Uid:'));
    // a zombie keeps its status until reaped; it runs nothing
    if (/^State:\s+Z/m.test(status)) return null;
    return line ? Number(line.split(/\s+/)[1]) : null;
  } catch {
    return null;
  }
}

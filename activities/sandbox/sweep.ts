/**
 * The sweep of the agent's processes, run from the host after every tool call and before scoring.
 *
 * The in-sandbox runner kills what a call started, but it runs as the agent's uid: the agent can kill
 * it first (`kill -9 $PPID`), or fill the pids limit so nothing new can start, and root inside the
 * container holds no capability to signal another uid. The sweep therefore never runs inside: it
 * freezes the container's cgroup (Docker's pause), reads the container's processes from the host,
 * SIGKILLs every one owned by the agent's uid, and thaws. Frozen processes cannot fork or exit, so the
 * list it reads is complete and the kill reaches all of them; the container's root init stays.
 *
 * It needs the worker on the Docker host with the right to signal the agent's uid (root, as the
 * sandbox workers run); a worker without it fails the activity with the reason, never silently.
 */
import { readFile } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import { isNotFound } from './docker';

export interface SweepResult {
  /** processes of the agent's uid that were killed */
  killed: number;
}

export class SweepError extends Error {
  override name = 'SweepError';
}

/** Kills every process of `uid` in a running container from outside it; a stopped or missing container has none. */
export async function sweepAgentProcesses(docker: Dockerode, containerName: string, uid: number): Promise<SweepResult> {
  const container = docker.getContainer(containerName);
  let info: Dockerode.ContainerInspectInfo;
  try {
    info = await container.inspect();
  } catch (error) {
    if (isNotFound(error)) return { killed: 0 };
    throw error;
  }
  if (!info.State.Running) return { killed: 0 };
  // a container found paused was left so by a sweep whose worker died: this sweep thaws it too
  if (!info.State.Paused) await container.pause();
  const killed: number[] = [];
  try {
    for (const pid of await containerPids(container, info.Id)) {
      if ((await ownerOf(pid)) !== uid) continue;
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ESRCH') continue;
        throw new SweepError(
          `cannot kill the agent's process ${pid} from the host (${code}): the worker must run on the Docker ` +
            `host as root`,
        );
      }
    }
  } finally {
    await container.unpause().catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  // a frozen task dies once thawed; wait for it so that the next call or the grader never meets it
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const alive = (await Promise.all(killed.map(async (pid) => (await ownerOf(pid)) === uid))).some(Boolean);
    if (!alive) break;
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 20));
  }
  return { killed: killed.length };
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
  const top = await container.top({ ps_args: '-o pid' });
  const column = top.Titles.indexOf('PID');
  return (top.Processes as string[][]).map((row) => Number(row[column]));
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

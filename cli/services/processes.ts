import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * Processes and ports as the services see them: whether a pid still names the process a record was
 * written for, stopping one, and whether a port answers.
 */

/** What tells a process from a later one given the same pid. */
export interface ProcessIdentity {
  /** when it started, as the kernel counts (boot id and clock ticks on Linux; `ps`'s start time elsewhere) */
  start: string;
  /** its command line, arguments separated by spaces */
  command: string;
}

/** The identity of a running process, or null when none has this pid (or it cannot be read). */
export function processIdentity(pid: number): ProcessIdentity | null {
  if (!isAlive(pid)) return null;
  try {
    return linuxIdentity(pid);
  } catch {
    // no /proc (macOS): ps answers the same two questions, to the second
    try {
      const start = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim();
      const command = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
      return start ? { start, command } : null;
    } catch {
      return null;
    }
  }
}

function linuxIdentity(pid: number): ProcessIdentity {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name, which is in parentheses and may hold spaces or parentheses itself;
  // the start time is field 22 of the line, the 20th after the name
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  if (!ticks) throw new Error(`/proc/${pid}/stat: no start time`);
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
  return { start: `${boot}:${ticks}`, command };
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, and SIGKILL after 20 s: a graceful shutdown lets running activities finish. */
export async function stopProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && isAlive(pid)) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** True when something accepts TCP connections at host:port. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolveCheck) => {
    const socket = connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolveCheck(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

export function splitAddress(address: string): [string, number] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index), Number(address.slice(index + 1))];
}

export const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

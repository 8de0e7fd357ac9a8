import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type Dockerode from 'dockerode';

/**
 * Where an agent's sandbox meets the model gateway and the harnesses. Every agent container gets two bind mounts:
 *
 *   /run/agentrl-gateway    its own folder on the host, where the gateway listens on `gateway.sock` while a harness of
 *                           that container's episode runs (no other container sees this folder, so no other session)
 *   /opt/agentrl/harnesses  the installed harnesses, read-only (scripts/build-harnesses.sh), when this host has them
 *
 * The container keeps NetworkMode none: the socket is its only way out, and it leads to one session of the gateway.
 */
export const gatewayMountPath = '/run/agentrl-gateway';
export const gatewaySocketName = 'gateway.sock';
export const harnessMountPath = '/opt/agentrl/harnesses';

/**
 * The host folder of a container's gateway socket: short (a socket path holds at most 107 bytes), from the name the
 * container was created with (a pool container keeps its folder when an episode claims it).
 */
export function gatewayDirFor(containerName: string): string {
  return join(gatewayRoot(), createHash('sha256').update(containerName).digest('hex').slice(0, 16));
}

/** The host folder that holds every container's gateway folder. */
function gatewayRoot(): string {
  return resolve(process.env.AGENTRL_GATEWAY_DIR || join(tmpdir(), 'agentrl-gateway'));
}

/** The gateway folder an agent's container binds, if it has one under this host's gateway root. */
export function gatewayDirOf(info: Dockerode.ContainerInspectInfo): string | undefined {
  const source = info.Mounts?.find((mount) => mount.Destination === gatewayMountPath)?.Source;
  return source && dirname(resolve(source)) === gatewayRoot() ? resolve(source) : undefined;
}

/** Removes a removed container's gateway folder (and a socket a gateway may still hold open in it). */
export function removeGatewayDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Makes a container's gateway folder (the agent's uid connects to the socket in it). */
export function makeGatewayDir(containerName: string): string {
  const dir = gatewayDirFor(containerName);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/**
 * The installed harnesses: AGENTRL_HARNESSES, else the checkout's `.agentrl/harnesses`, which
 * scripts/build-harnesses.sh fills (hard links into the machine's harness cache, with this checkout's launcher and
 * registry).
 */
export function harnessRoot(): string {
  if (process.env.AGENTRL_HARNESSES) return process.env.AGENTRL_HARNESSES;
  return resolve(__dirname, '..', '..', '.agentrl', 'harnesses');
}

/** The bind mounts of an agent's container. */
export function agentBinds(containerName: string): string[] {
  const binds = [`${makeGatewayDir(containerName)}:${gatewayMountPath}`];
  if (existsSync(harnessRoot())) binds.push(`${harnessRoot()}:${harnessMountPath}:ro`);
  return binds;
}

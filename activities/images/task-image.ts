/**
 * Task images: a task whose `task.yaml` has an `environment` runs in an image built from its base image
 * (by default the offline base) with the Debian packages it names (apt, from the Debian mirror) and the
 * PyPI packages it names (downloaded here with pip, which uses this host's index and certificates, as
 * wheels only, then installed offline in the build). No registry is involved. The image's name is the
 * digest of what it is built from, and it carries the id of the base it was built on: a host that
 * lacks it, or holds one built on another base, builds it on demand.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type Dockerode from 'dockerode';
import { parse as parseToml } from 'smol-toml';
import type { TaskSpec } from '../../shared/contracts/task-spec';
import { decodeFiles } from '../sandbox/container';
import { buildTar, inspectImage } from '../sandbox/docker';

type Environment = NonNullable<TaskSpec['environment']>;

/** The label holding the id of the base image a task image was built on. */
export const baseLabel = 'agentrl.base-image-id';

/**
 * The name of the image built from `base` with `environment`: the digest of both, and with an install
 * step of the repository it installs (`repoDigest`, repositoryDigest()).
 */
export function taskImageName(base: string, environment: Environment, repoDigest?: string): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify({ base, environment, builder: 1, ...(environment.install ? { repo: repoDigest ?? '' } : {}) }),
    )
    .digest('hex')
    .slice(0, 16);
  return `agentrl-env:${digest}`;
}

/** The digest of a repository's files (path → base64 or bytes), in path order. */
export function repositoryDigest(files: Record<string, string | Buffer>): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(files).sort()) {
    const content = files[path]!;
    const bytes = typeof content === 'string' ? Buffer.from(content, 'base64') : content;
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

/**
 * What installing a repository needs from PyPI, as its pyproject.toml says: the build backend
 * (`[build-system] requires`, setuptools and wheel when absent), what hatchling and setuptools ask for
 * at build time (editables, wheel), and `[project] dependencies`. Anything else the install needs
 * (a dynamic dependency list, another backend's hooks) is named in the environment's `pypi`.
 */
export function installRequirements(files: Record<string, Buffer>): string[] {
  const pyproject = files['pyproject.toml'];
  const legacy = ['setuptools>=40.8.0', 'wheel'];
  if (!pyproject) return files['setup.py'] || files['setup.cfg'] ? legacy : [];
  let parsed: { 'build-system'?: { requires?: unknown }; project?: { dependencies?: unknown } };
  try {
    parsed = parseToml(pyproject.toString('utf8'));
  } catch (error) {
    throw new TaskImageError(
      `the repository's pyproject.toml is not valid TOML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
  const requires = parsed['build-system'] ? strings(parsed['build-system'].requires) : legacy;
  // what the common backends ask for at build time beyond their static list (an editable build's hooks)
  const dynamic = requires.flatMap((requirement) => {
    const name = /^[A-Za-z0-9._-]+/.exec(requirement)?.[0].toLowerCase().replace(/_/g, '-');
    return name === 'hatchling' ? ['editables'] : name === 'setuptools' ? ['wheel'] : [];
  });
  return [...new Set([...requires, ...dynamic, ...strings(parsed.project?.dependencies)])];
}

export class TaskImageError extends Error {
  override name = 'TaskImageError';
}

/** pip offline, from the wheels handed to a build at /tmp/agentrl-wheels (the install step's, a Harbor build's). */
export const offlinePip = [
  'PIP_NO_INDEX=1',
  'PIP_FIND_LINKS=/tmp/agentrl-wheels',
  'PIP_BREAK_SYSTEM_PACKAGES=1',
  'PIP_ROOT_USER_ACTION=ignore',
  'PIP_DISABLE_PIP_VERSION_CHECK=1',
  'PIP_NO_CACHE_DIR=1',
];

/** A build step that gives an image without pip the pip of the wheels at /tmp/agentrl-wheels. */
export function pipBootstrap(pipWheel: string): string {
  return (
    `RUN python3 -m pip --version >/dev/null 2>&1 || python3 /tmp/agentrl-wheels/${pipWheel}/pip install ` +
    '--no-index --find-links /tmp/agentrl-wheels --break-system-packages --no-cache-dir ' +
    '--disable-pip-version-check --root-user-action=ignore pip'
  );
}

/** The Dockerfile of a task image (with an install step, the context holds the repository under repo/). */
export function taskDockerfile(base: string, environment: Environment, pipWheel: string | null): string {
  const lines = [`FROM ${base}`, 'USER root'];
  if (environment.debian?.length)
    lines.push(
      'RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ' +
        `${environment.debian.join(' ')} && rm -rf /var/lib/apt/lists/*`,
    );
  if (environment.pypi?.length && pipWheel)
    lines.push(
      'COPY wheels /tmp/agentrl-wheels',
      `RUN python3 /tmp/agentrl-wheels/${pipWheel}/pip install --no-index --find-links /tmp/agentrl-wheels ` +
        `--break-system-packages --no-cache-dir --disable-pip-version-check --root-user-action=ignore ` +
        environment.pypi.map((req) => `'${req}'`).join(' ') +
        (environment.install ? '' : ' && rm -rf /tmp/agentrl-wheels'),
    );
  if (environment.install) {
    if (!environment.pypi?.length && pipWheel) lines.push('COPY wheels /tmp/agentrl-wheels');
    // pip itself stays in the image (the install command names it), then the repository is installed
    // where the sandbox mounts it: an editable install finds the episode's files there
    if (pipWheel) lines.push(pipBootstrap(pipWheel));
    lines.push(
      'COPY repo /work',
      `RUN ${JSON.stringify(['env', ...offlinePip, 'sh', '-c', `cd /work && ${environment.install}`])}`,
      'RUN rm -rf /tmp/agentrl-wheels',
    );
  }
  lines.push('USER agent', 'WORKDIR /work');
  return `${lines.join('\n')}\n`;
}

/**
 * The wheels of the requirements and of pip itself, downloaded here, as build-context files under
 * `folder/`; `pipWheel` names pip's (to install the others with where the image has no pip).
 */
export async function wheelContext(
  requirements: readonly string[],
  folder: string,
): Promise<{ files: { path: string; content: Buffer; mode: number }[]; pipWheel: string }> {
  const dest = mkdtempSync(join(tmpdir(), 'agentrl-wheels-'));
  try {
    await downloadWheels(requirements, dest);
    const names = readdirSync(dest);
    const pipWheel = names.find((name) => /^pip-[^-]+-py3-none-any\.whl$/.test(name));
    if (!pipWheel) throw new TaskImageError('pip download brought no pip wheel to install the packages with');
    const files = names.map((name) => ({
      path: `${folder}/${name}`,
      content: readFileSync(join(dest, name)),
      mode: 0o644,
    }));
    return { files, pipWheel };
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}

/**
 * The wheels of the requirements (and pip itself, to install them), for CPython 3.11 on this machine's architecture.
 */
async function downloadWheels(requirements: readonly string[], dest: string): Promise<void> {
  const machine = arch() === 'arm64' ? 'aarch64' : 'x86_64';
  const args = ['-m', 'pip', 'download', '--disable-pip-version-check', '--dest', dest, '--only-binary=:all:'];
  args.push('--python-version', '3.11', '--implementation', 'cp', '--abi', 'cp311', '--abi', 'abi3', '--abi', 'none');
  args.push('--platform', `manylinux_2_36_${machine}`, '--platform', `manylinux2014_${machine}`);
  try {
    await promisify(execFile)('python3', [...args, 'pip', ...requirements], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message);
    throw new TaskImageError(
      `the PyPI packages ${requirements.join(', ')} could not be downloaded as wheels for Python 3.11 ` +
        `(pip download): ${stderr.trim().split('\n').slice(-3).join(' ')}`,
    );
  }
}

/**
 * Makes sure the task's image is on this host: a plain image must exist (the base is built by
 * scripts/build-base-image.sh); an environment's image is built when missing or built on another base.
 */
export async function ensureTaskImage(
  docker: Dockerode,
  spec: { image: string; baseImage?: string; environment?: Environment },
  onProgress: (line: string) => void = () => undefined,
  /** the starting repository (path → base64), which an install step installs */
  repo: Record<string, string> = {},
): Promise<'present' | 'built'> {
  const inspect = (name: string) => inspectImage(docker, name);
  if (!spec.environment || !spec.baseImage) {
    if (await inspect(spec.image)) return 'present';
    throw new TaskImageError(
      `task image ${spec.image} is not on this host; build the base image with scripts/build-base-image.sh (or ` +
        `build the task's image)`,
    );
  }
  const base = await inspect(spec.baseImage);
  if (!base)
    throw new TaskImageError(
      `the base image ${spec.baseImage} of ${spec.image} is not on this host; ` +
        'build it with scripts/build-base-image.sh',
    );
  const existing = await inspect(spec.image);
  if (existing && existing.Config?.Labels?.[baseLabel] === base.Id) return 'present';
  onProgress(`building ${spec.image} from ${spec.baseImage}`);
  let pipWheel: string | null = null;
  const files: { path: string; content: Buffer }[] = [];
  const repoFiles = decodeFiles(repo);
  const requirements = [
    ...(spec.environment.pypi ?? []),
    ...(spec.environment.install ? installRequirements(repoFiles) : []),
  ];
  if (spec.environment.install) {
    if (Object.keys(repoFiles).length === 0)
      throw new TaskImageError(`${spec.image}: an install step needs the task's repository`);
    for (const [path, content] of Object.entries(repoFiles)) files.push({ path: `repo/${path}`, content });
  }
  if (requirements.length || spec.environment.install) {
    onProgress(`downloading ${requirements.join(', ') || 'pip'}`);
    const wheels = await wheelContext(requirements, 'wheels');
    files.push(...wheels.files);
    pipWheel = wheels.pipWheel;
  }
  files.push({
    path: 'Dockerfile',
    content: Buffer.from(taskDockerfile(spec.baseImage, spec.environment, pipWheel)),
  });
  await buildImage(docker, files, spec.image, { [baseLabel]: base.Id }, onProgress);
  onProgress(`built ${spec.image}`);
  return 'built';
}

/**
 * Builds an image from a context of files (with its Dockerfile) on the local engine, progress line by
 * line; a failed step, or a build past `timeoutMs`, is a TaskImageError naming the image.
 */
export async function buildImage(
  docker: Dockerode,
  files: readonly { path: string; content: Buffer; mode?: number }[],
  tag: string,
  imageLabels: Record<string, string>,
  onProgress: (line: string) => void,
  timeoutMs = 3_600_000,
): Promise<void> {
  const stream = await docker.buildImage(Readable.from([await buildTar(files, { uid: 0, gid: 0 })]), {
    t: tag,
    labels: imageLabels,
    rm: true,
    forcerm: true,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      new Promise<void>((resolveBuild, reject) => {
        docker.modem.followProgress(
          stream,
          (error: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => {
            const failed = error?.message ?? output.find((entry) => entry.error)?.error;
            if (failed) reject(new TaskImageError(`building ${tag} failed: ${failed.trim()}`));
            else resolveBuild();
          },
          (event: { stream?: string }) => {
            const line = event.stream?.trim();
            if (line) onProgress(line);
          },
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          (stream as unknown as { destroy?: () => void }).destroy?.();
          reject(new TaskImageError(`building ${tag} took longer than ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

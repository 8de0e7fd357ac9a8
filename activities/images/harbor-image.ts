/**
 * A Harbor task's image, built on the local engine from its `environment/` folder with no registry. The
 * build context is sent from memory, the folder as the loaders read it, so a tree that base.yaml names
 * (activities/tasks/task-base.ts) is in the context as if the folder held it. Its Dockerfile may start
 * only from images this host has (the offline base, or one built or loaded here). `pip install` steps
 * are served offline: the packages they name are downloaded here as wheels (pip, with this host's index
 * and certificates) and handed to the build, with pip itself where the image has none. Then a second
 * layer makes the Dockerfile's WORKDIR a link to the sandbox's repository (/work), and the WORKDIR's
 * files, read out of the first image, are the task's starting repository. Both images are named by the
 * digest of the folder and rebuilt when an image they start from changes.
 */
import { createHash } from 'node:crypto';
import { dirname, join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import type { HarborFolder } from '../tasks/harbor';
import { inspectImage, isNotFound, readTar, removeContainer } from '../sandbox/docker';
import { buildImage, offlinePip, pipBootstrap, TaskImageError, wheelContext } from './task-image';
import { cacheFolders } from '../../shared/paths/repo-paths';
import { repoPath } from '../sandbox/container';

const builderVersion = 1;
/** Labels of a built Harbor image: the ids of the images its Dockerfile starts from, and of its source image. */
export const harborLabels = { from: 'agentrl.harbor-from', source: 'agentrl.harbor-source' } as const;

/** The images of a Harbor folder: the Dockerfile's own build (`source`) and the one episodes run in. */
export function harborImageNames(folder: Pick<HarborFolder, 'environment'>): { source: string; image: string } {
  const hash = createHash('sha256').update(`harbor-builder ${builderVersion}\0`);
  for (const file of [...folder.environment].sort((a, b) => a.path.localeCompare(b.path)))
    hash.update(`${file.path}\0${file.mode}\0${file.content.length}\0`).update(file.content);
  const digest = hash.digest('hex').slice(0, 16);
  return { source: `agentrl-harbor-src:${digest}`, image: `agentrl-harbor:${digest}` };
}

/** A Dockerfile's logical lines (continuations joined, comments and blanks dropped) as [instruction, rest]. */
function instructions(dockerfile: string): [string, string][] {
  const result: [string, string][] = [];
  let current = '';
  for (const line of dockerfile.split(/\r?\n/)) {
    if (!current && /^\s*(#|$)/.test(line)) continue;
    if (/\\\s*$/.test(line)) {
      current += `${line.replace(/\\\s*$/, '')} `;
      continue;
    }
    current += line;
    const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(current);
    if (match) result.push([match[1]!.toUpperCase(), match[2]!.trim()]);
    current = '';
  }
  if (current.trim()) {
    const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(current);
    if (match) result.push([match[1]!.toUpperCase(), match[2]!.trim()]);
  }
  return result;
}

/**
 * The images a Dockerfile's stages start from (ARG defaults before the first FROM substituted), earlier stages left
 * out.
 */
export function dockerfileBaseImages(dockerfile: string): string[] {
  const args: Record<string, string> = {};
  const stages = new Set<string>();
  const bases: string[] = [];
  let seenFrom = false;
  for (const [instruction, rest] of instructions(dockerfile)) {
    if (instruction === 'ARG' && !seenFrom) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(rest);
      if (match) args[match[1]!] = (match[2] ?? '').replace(/^["']|["']$/g, '');
    }
    if (instruction !== 'FROM') continue;
    seenFrom = true;
    const words = rest.split(/\s+/).filter((word) => !word.startsWith('--'));
    const image = (words[0] ?? '').replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args[name] ?? '');
    if (!image) throw new TaskImageError(`a FROM without an image: FROM ${rest}`);
    if (!stages.has(image.toLowerCase()) && image !== 'scratch') bases.push(image);
    if (words[1]?.toLowerCase() === 'as' && words[2]) stages.add(words[2].toLowerCase());
  }
  if (!seenFrom) throw new TaskImageError('the Dockerfile has no FROM');
  return [...new Set(bases)];
}

/** Splits a shell command line into words (quotes honoured) and control operators. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  let hasWord = false;
  const flush = () => {
    if (hasWord) words.push(word);
    word = '';
    hasWord = false;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === quote) quote = null;
      else word += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      hasWord = true;
    } else if (/\s/.test(char)) flush();
    else if (';&|()'.includes(char)) {
      flush();
      words.push(char);
    } else {
      word += char;
      hasWord = true;
    }
  }
  flush();
  return words;
}

/** pip options that take a value (their value is not a requirement). */
const valueOptions = new Set([
  '-i',
  '--index-url',
  '--extra-index-url',
  '-f',
  '--find-links',
  '-t',
  '--target',
  '--prefix',
  '--root',
  '--platform',
  '--python-version',
  '--implementation',
  '--abi',
  '--trusted-host',
  '--cache-dir',
  '--progress-bar',
  '--src',
  '--upgrade-strategy',
  '--only-binary',
  '--no-binary',
  '--config-settings',
  '-C',
]);

/**
 * The requirements the `pip install` commands of a Dockerfile's RUN steps name: arguments, and the lines
 * of requirement files (`-r FILE`, read from the build context). Local paths and editable installs are
 * left out (they need no download); a requirement file missing from the context is an error.
 */
export function pipRequirements(dockerfile: string, context: Record<string, Buffer>): string[] {
  const requirements: string[] = [];
  const fromFile = (name: string) => {
    const key = posix.normalize(name.replace(/^\/+/, ''));
    const candidates = [key, ...Object.keys(context).filter((path) => path.endsWith(`/${posix.basename(key)}`))];
    const found = candidates.find((path) => context[path]);
    if (!found) throw new TaskImageError(`pip install -r ${name}: the file is not in environment/`);
    for (const raw of context[found]!.toString('utf8').split(/\r?\n/)) {
      const line = raw.replace(/(^|\s)#.*$/, '').trim();
      if (!line) continue;
      if (line.startsWith('-r ') || line.startsWith('--requirement ')) fromFile(line.split(/\s+/)[1]!);
      else if (!line.startsWith('-')) requirements.push(line);
    }
  };
  for (const [instruction, rest] of instructions(dockerfile)) {
    if (instruction !== 'RUN') continue;
    const words = shellWords(rest.startsWith('[') ? safeJsonCommand(rest) : rest);
    for (let i = 0; i < words.length; i++) {
      // a command word: first, after an operator, or after a word that runs the next one
      const commandPosition =
        i === 0 ||
        ';&|('.includes(words[i - 1]!) ||
        ['sudo', 'exec', 'then', 'do', 'uv', 'env'].includes(words[i - 1]!);
      const isPip =
        (commandPosition && /^(pip|pip3|pip3\.\d+)$/.test(posix.basename(words[i]!))) ||
        (words[i] === '-m' && words[i + 1] === 'pip' && /python/.test(words[i - 1] ?? ''));
      if (!isPip) continue;
      const start = words[i] === '-m' ? i + 2 : i + 1;
      if (words[start] !== 'install') continue;
      for (let j = start + 1; j < words.length && !';&|()'.includes(words[j]!); j++) {
        const word = words[j]!;
        if (word === '-r' || word === '--requirement' || word === '-c' || word === '--constraint') {
          if (word === '-r' || word === '--requirement') fromFile(words[j + 1] ?? '');
          j++;
        } else if (word.startsWith('--requirement=')) fromFile(word.slice('--requirement='.length));
        else if (word === '-e' || word === '--editable') j++;
        else if (valueOptions.has(word)) j++;
        else if (word.startsWith('-')) continue;
        else if (word.startsWith('.') || word.startsWith('/') || word.includes('://') || word.startsWith('$')) continue;
        else requirements.push(word);
      }
    }
  }
  return [...new Set(requirements)];
}

function safeJsonCommand(rest: string): string {
  try {
    const parsed = JSON.parse(rest) as unknown;
    return Array.isArray(parsed) ? parsed.map(String).join(' ') : rest;
  } catch {
    return rest;
  }
}

/** Working directories that cannot be the repository (system folders, the sandbox's own mounts). */
function workdirProblem(workdir: string): string | null {
  const path = posix.normalize(workdir || '/');
  if (path === '/') return 'the Dockerfile sets no WORKDIR; the working directory is the repository the agent changes';
  if (path.startsWith(`${repoPath}/`))
    return `WORKDIR ${path} lies inside ${repoPath}, where the sandbox mounts the repository`;
  for (const prefix of ['/tmp', '/var/tmp', '/run', '/proc', '/sys', '/dev'])
    if (path === prefix || path.startsWith(`${prefix}/`))
      return `WORKDIR ${path} lies in ${prefix}, which the sandbox mounts`;
  if (
    ['/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/var', '/boot', '/opt', '/home', '/srv', '/mnt'].includes(path)
  )
    return `WORKDIR ${path} is a system folder`;
  return null;
}

export interface HarborImage {
  image: string;
  workdir: string;
  /** the files of the WORKDIR in the built image: the task's starting repository */
  tree: Record<string, Buffer>;
  /** those of its files that are executable there */
  executables: string[];
  built: boolean;
}

const treeCache = new Map<string, { tree: Record<string, Buffer>; executables: string[] }>();

/**
 * Makes sure the Harbor task's image is on this host (built when missing or when an image it starts from
 * changed) and reads its starting repository. `baseImage` is the offline base, named in errors.
 */
export async function ensureHarborImage(
  docker: Dockerode,
  folder: Pick<HarborFolder, 'dir' | 'environment' | 'buildTimeoutMs'>,
  baseImage: string,
  onProgress: (line: string) => void = () => undefined,
): Promise<HarborImage> {
  const names = harborImageNames(folder);
  const dockerfilePath = join(folder.dir, 'environment', 'Dockerfile');
  const dockerfile = folder.environment.find((file) => file.path === 'Dockerfile')!.content.toString('utf8');
  const inspect = (name: string) => inspectImage(docker, name);
  let bases: string[];
  try {
    bases = dockerfileBaseImages(dockerfile);
  } catch (error) {
    throw new TaskImageError(`${dockerfilePath}: ${(error as Error).message}`);
  }
  const baseIds: string[] = [];
  for (const base of bases) {
    const found = await inspect(base);
    if (!found)
      throw new TaskImageError(
        `${dockerfilePath}: FROM ${base}: no such image on this host, and images are never pulled (there is no ` +
          `registry); start from the offline base ${baseImage}, or build or load ${base} on this host first`,
      );
    baseIds.push(found.Id);
  }
  const fromLabel = baseIds.join(',');
  let source = await inspect(names.source);
  let built = false;
  if (!source || source.Config?.Labels?.[harborLabels.from] !== fromLabel) {
    onProgress(`building ${names.source} from ${dockerfilePath}`);
    await buildSource(docker, folder, dockerfile, names.source, fromLabel, onProgress);
    source = await inspect(names.source);
    if (!source) throw new TaskImageError(`building ${names.source} left no image`);
    built = true;
  }
  const workdir = posix.normalize(source.Config?.WorkingDir || '/');
  const problem = workdirProblem(workdir);
  if (problem) throw new TaskImageError(`${dockerfilePath}: ${problem}`);
  const image = await inspect(names.image);
  if (!image || image.Config?.Labels?.[harborLabels.source] !== source.Id) {
    const link =
      workdir === repoPath
        ? []
        : [`RUN rm -rf ${workdir} && mkdir -p ${dirname(workdir)} && ln -s ${repoPath} ${workdir}`];
    const lines = [
      `FROM ${names.source}`,
      'USER root',
      'RUN command -v python3 >/dev/null || { echo "a Harbor task image needs python3 (the sandbox runs its tools ' +
        'with it); start from the offline base" >&2; exit 1; }',
      ...link,
      `WORKDIR ${repoPath}`,
    ];
    await buildImage(
      docker,
      [{ path: 'Dockerfile', content: Buffer.from(`${lines.join('\n')}\n`) }],
      names.image,
      { [harborLabels.from]: fromLabel, [harborLabels.source]: source.Id },
      onProgress,
      folder.buildTimeoutMs,
    );
    built = true;
  }
  let read = treeCache.get(source.Id);
  if (!read) {
    read = await readWorkdir(docker, names.source, workdir);
    treeCache.set(source.Id, read);
  }
  if (built) onProgress(`built ${names.image} (repository ${workdir}: ${Object.keys(read.tree).length} files)`);
  return { image: names.image, workdir, ...read, built };
}

/** The Dockerfile's own build, `pip install` served from wheels downloaded here. */
async function buildSource(
  docker: Dockerode,
  folder: Pick<HarborFolder, 'dir' | 'environment' | 'buildTimeoutMs'>,
  dockerfile: string,
  tag: string,
  fromLabel: string,
  onProgress: (line: string) => void,
): Promise<void> {
  let requirements: string[];
  try {
    requirements = pipRequirements(
      dockerfile,
      Object.fromEntries(folder.environment.map((file) => [file.path, file.content])),
    );
  } catch (error) {
    throw new TaskImageError(`${join(folder.dir, 'environment', 'Dockerfile')}: ${(error as Error).message}`);
  }
  const files = folder.environment.filter((file) => !file.path.startsWith('.agentrl-wheels/'));
  const prelude = ['USER root'];
  if (requirements.length) {
    onProgress(`downloading ${requirements.join(', ')} for the pip install steps`);
    const wheels = await wheelContext(requirements, '.agentrl-wheels');
    files.push(...wheels.files);
    prelude.push(
      'COPY .agentrl-wheels /tmp/agentrl-wheels',
      `ENV ${offlinePip.join(' ')}`,
      pipBootstrap(wheels.pipWheel),
    );
  }
  // every stage starts as root (Harbor's Dockerfiles assume it), with the wheels at hand
  const rewritten = dockerfile
    .split(/\r?\n/)
    .flatMap((line) => (/^\s*FROM\s/i.test(line) ? [line, ...prelude] : [line]))
    .join('\n');
  const context = [
    ...files.filter((file) => file.path !== 'Dockerfile'),
    { path: 'Dockerfile', content: Buffer.from(rewritten), mode: 0o644 },
  ];
  await buildImage(docker, context, tag, { [harborLabels.from]: fromLabel }, onProgress, folder.buildTimeoutMs);
}

/** The regular files under a folder of an image (no container is started); caches and .git are left out. */
async function readWorkdir(
  docker: Dockerode,
  image: string,
  workdir: string,
): Promise<{ tree: Record<string, Buffer>; executables: string[] }> {
  const container = await docker.createContainer({ Image: image, Cmd: ['true'], NetworkDisabled: true });
  try {
    return await readFolderFiles(container, workdir, 256 * 1024 * 1024);
  } finally {
    await removeContainer(docker, container.id);
  }
}

/**
 * The regular files under a folder of a container (through the archive API: nothing runs inside), with
 * those that are executable; caches and .git are left out (shared/paths/repo-paths.ts), a missing folder is empty.
 */
export async function readFolderFiles(
  container: Dockerode.Container,
  folder: string,
  maxBytes: number,
): Promise<{ tree: Record<string, Buffer>; executables: string[] }> {
  let entries;
  try {
    const stream = (await container.getArchive({ path: folder })) as unknown as Readable;
    entries = await readTar(stream, { stripFirst: true, maxBytes });
  } catch (error) {
    if (isNotFound(error)) return { tree: {}, executables: [] };
    throw error;
  }
  const tree: Record<string, Buffer> = {};
  const executables: string[] = [];
  for (const entry of entries) {
    if (entry.type !== 'file' || entry.path.split('/').some((part) => cacheFolders.has(part))) continue;
    tree[entry.path] = entry.content;
    if (entry.mode & 0o111) executables.push(entry.path);
  }
  return { tree, executables: executables.sort() };
}

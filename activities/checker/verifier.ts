/**
 * A Harbor task's verifier: `tests/test.sh` run in a fresh hardened container of the task's image, on the graded
 * tree, with the tests at /tests (they never enter the agent's container) and an empty /logs/verifier, where the
 * script writes `reward.txt` (one number) or `reward.json` (`{"reward": x, ...}`: the other keys are metrics). The
 * script runs as the sandbox's unprivileged uid, with no network, within the task's verifier timeout.
 *
 * The candidate's code runs inside that script's process tree, as the same uid, so everything the script leaves is
 * within its reach. What decides is therefore read after the candidate's processes are gone, by root, from a place
 * the tests' uid cannot replace: every process of that uid is killed from the host when test.sh ends (a run that
 * something outlived gives no reward), /logs/verifier is root's with the sticky bit (the uid can create files there
 * but can neither replace the folder nor change its mode), and root inspects each reward file without following a
 * link: one that is not a regular file, is linked elsewhere, was made unwritable (so the script's own write failed),
 * or is not a file this verifier writes (task validate records which) is a `verifier_output` finding. The value
 * itself is still the script's: where it comes from a process that ran the candidate's code, the grade harness's
 * run of the verifier's tests, with canary twins, decides how far it is believed (harbor-verifier.ts).
 */
import type Dockerode from 'dockerode';
import { z } from 'zod';
import type { AgentrlConfig } from '../../shared/contracts/config';
import type { HarborVerifier } from '../../shared/contracts/task-spec';
import { parseRewardFile, rewardFileNames, type RewardFileName } from '../tasks/harbor';
import { createHardenedContainer, removeSandbox, repoPath, sandboxFor } from '../sandbox/container';
import { buildTar, execCollect, readContainerFile } from '../sandbox/docker';
import { sweepAgentProcesses } from '../sandbox/sweep';
import { verifierTestsPath, verifierTestsVolume } from './grading';

export interface VerifierResult {
  /** the reward file's value; null when the script wrote none that reads as a number, or the channel was tampered */
  reward: number | null;
  /** reward.json's other numeric keys */
  metrics: Record<string, number>;
  rewardFile: RewardFileName | null;
  /** the reward files found in /logs/verifier after the run */
  rewardFiles: RewardFileName[];
  /** why there is no reward, when there is none */
  problem: string | null;
  /**
   * what was wrong with the output channel (each a `verifier_output` finding): a reward file replaced, linked away, ...
   */
  channel: string[];
  exitCode: number | null;
  timedOut: boolean;
  /** the script's last 16 KiB of output */
  output: string;
  durationMs: number;
  /** processes of the verifier's uid still running when test.sh ended (killed before the reward was read) */
  lingering: number;
}

export interface RunVerifierOptions {
  docker: Dockerode;
  sandbox: AgentrlConfig['sandbox'];
  name: string;
  deployment: string;
  image: string;
  workflowId: string;
  episodeId: string;
  runId: string;
  /** the graded tree (placed at the repository, which the task image links its WORKDIR to) */
  files: Record<string, Buffer>;
  verifier: Pick<HarborVerifier, 'workdir' | 'timeoutSec' | 'env' | 'resources' | 'executables'>;
  tests: Record<string, Buffer>;
  /** the reward files this verifier writes (task validate's record): another one found is the candidate's */
  rewardFiles?: readonly RewardFileName[];
  /** TEST ONLY: read the reward as before the channel checks (the first file of Docker's archive, no inspection) */
  unsafeChannel?: boolean;
}

/** Where a Harbor verifier writes its reward; the folder is root's (mode 1777) and emptied for every run. */
export const verifierLogs = '/logs/verifier';

/**
 * The environment a Harbor task's scripts (test.sh, solve.sh) run with: a plain PATH, HOME in /tmp, and the task's own
 * variables.
 */
export function scriptEnvironment(variables: Record<string, string>): string[] {
  return [
    'HOME=/tmp',
    'LANG=C.UTF-8',
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ...Object.entries(variables).map(([key, value]) => `${key}=${value}`),
  ];
}

/** Runs the verifier once on a tree; the container and its volumes are removed whatever happens. */
export async function runVerifier(options: RunVerifierOptions): Promise<VerifierResult> {
  const { docker, name, verifier } = options;
  const sandbox = sandboxFor(options.sandbox, verifier.resources);
  const uid = sandbox.uid;
  await removeSandbox(docker, name, [`${name}-work`, `${name}-spool`, `${name}-tests`, `${name}-logs`]);
  const { container, volumes } = await createHardenedContainer(docker, {
    name,
    deployment: options.deployment,
    image: options.image,
    workflowId: options.workflowId,
    episodeId: options.episodeId,
    runId: options.runId,
    role: 'grader',
    sandbox,
    // the verifier may write in the repository (build outputs), as Harbor's does
    workRoot: { uid, gid: uid, mode: 0o755 },
    extraVolumes: [verifierTestsVolume, { suffix: 'logs', target: '/logs', uid: 0, mode: 0o755, sizeMb: 64 }],
  });
  const started = Date.now();
  try {
    await container.start();
    await placeVerifierFiles(container, options, uid);
    // TEST_DIR: where Terminal-Bench's scripts look for their tests
    const env = scriptEnvironment({ TEST_DIR: verifierTestsPath, ...verifier.env });
    const seconds = Math.max(1, Math.ceil(verifier.timeoutSec));
    const exec = await execCollect(
      docker,
      container,
      ['timeout', '-s', 'KILL', String(seconds), 'bash', `${verifierTestsPath}/test.sh`],
      { user: `${uid}:${uid}`, workingDir: verifier.workdir, env, maxBytes: 1024 * 1024 },
    );
    // nothing the script (or the code it ran) left behind may write the reward file from now on
    const { killed } = await sweepAgentProcesses(docker, name, uid);
    await ensureAlive(container, exec.exitCode);
    const timedOut = exec.exitCode === 124 || exec.exitCode === 137;
    const base = {
      exitCode: exec.exitCode,
      timedOut,
      output: `${exec.stdout}${exec.stderr}`.slice(-16 * 1024),
      durationMs: Date.now() - started,
      lingering: killed,
      metrics: {},
      rewardFiles: [],
      channel: [],
      rewardFile: null,
      reward: null,
    };
    const problem = runProblem(exec.exitCode, timedOut, seconds, killed);
    if (problem) return { ...base, problem };
    return { ...base, ...(await readReward(container, options, uid)) };
  } finally {
    await removeSandbox(docker, name, volumes);
  }
}

/**
 * The graded tree at the repository (the tests' uid's), the tests at /tests (root's), /logs/verifier empty and root's.
 */
async function placeVerifierFiles(container: Dockerode.Container, options: RunVerifierOptions, uid: number) {
  const executable = new Set(options.verifier.executables ?? []);
  const entries = Object.entries(options.files).map(([path, content]) => ({
    path,
    content,
    ...(executable.has(path) ? { mode: 0o755 } : {}),
  }));
  await container.putArchive(await buildTar(entries, { uid, gid: uid }), { path: repoPath });
  // the tests belong to root and cannot be changed by what they run
  const tests = Object.entries(options.tests).map(([path, content]) => ({
    path,
    content,
    mode: path.endsWith('.sh') ? 0o755 : 0o644,
  }));
  await container.putArchive(await buildTar(tests, { uid: 0, gid: 0 }), { path: verifierTestsPath });
  // sticky and root's: the tests' uid can write its files there, never replace the folder or change its mode
  const made = await execCollect(options.docker, container, ['mkdir', '-m', '1777', verifierLogs, '/logs/agent'], {
    user: '0:0',
    workingDir: '/',
  });
  if (made.exitCode !== 0) throw new Error(`could not prepare ${verifierLogs}: ${made.stderr.slice(-300)}`);
}

/** Why a run gives no reward whatever its files say: killed, past its time, or outlived by a process. */
function runProblem(exitCode: number | null, timedOut: boolean, seconds: number, killed: number): string | null {
  if (timedOut) return `test.sh was killed or ran past its ${seconds} s timeout`;
  if (exitCode !== null && exitCode > 128) return `test.sh was killed by signal ${exitCode - 128}`;
  // a process that outlives the verifier could write its reward file after it: a verifier's own runs end with it
  if (killed > 0) return `${killed} process(es) outlived test.sh; a reward written beside them is not trusted`;
  return null;
}

/**
 * The container must have lived through the run: an exec that broke off (no exit status) or a container gone for a
 * reason other than its own memory limit is the infrastructure's failure, retried, never a reward of 0.
 */
async function ensureAlive(container: Dockerode.Container, exitCode: number | null): Promise<void> {
  const state = (await container.inspect()).State;
  if (state.Running && exitCode !== null) return;
  if (state.OOMKilled) return;
  throw new Error(
    `the verifier's container ${state.Running ? 'lost its exec' : `stopped (${state.Status})`}: ` +
      'an infrastructure failure',
  );
}

const Inspected = z.object({
  dir: z.object({ type: z.string(), uid: z.number(), mode: z.number() }).nullable(),
  entries: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      uid: z.number(),
      mode: z.number(),
      nlink: z.number(),
      size: z.number(),
      content: z.string().nullable(),
    }),
  ),
});

/**
 * Root's look at /logs/verifier once the tests' processes are gone: each entry as lstat sees it, and the reward files'
 * contents read without following a link (O_NOFOLLOW, O_NONBLOCK against a fifo), a regular file only, 1 MiB at most.
 */
const inspectorSource = String.raw`
import base64, json, os, stat, sys
def kind(m):
    for name, test in (
        ("file", stat.S_ISREG), ("dir", stat.S_ISDIR), ("symlink", stat.S_ISLNK), ("fifo", stat.S_ISFIFO),
        ("socket", stat.S_ISSOCK), ("device", stat.S_ISCHR), ("device", stat.S_ISBLK),
    ):
        if test(m):
            return name
    return "other"
root, names, out = sys.argv[1], sys.argv[2].split(","), {"dir": None, "entries": []}
try:
    st = os.lstat(root)
    out["dir"] = {"type": kind(st.st_mode), "uid": st.st_uid, "mode": st.st_mode & 0o7777}
    listed = sorted(os.listdir(root))[:256] if stat.S_ISDIR(st.st_mode) else []
except OSError:
    listed = []
for name in listed:
    path = os.path.join(root, name)
    st = os.lstat(path)
    entry = {
        "name": name, "type": kind(st.st_mode), "uid": st.st_uid, "mode": st.st_mode & 0o7777,
        "nlink": st.st_nlink, "size": st.st_size, "content": None,
    }
    if name in names and stat.S_ISREG(st.st_mode) and st.st_size <= 1 << 20:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                entry["content"] = base64.b64encode(os.read(fd, (1 << 20) + 1)).decode()
        finally:
            os.close(fd)
    out["entries"].append(entry)
print(json.dumps(out))
`;

/** The reward as root finds it after the run, with what is wrong with its channel. */
async function readReward(
  container: Dockerode.Container,
  options: RunVerifierOptions,
  uid: number,
): Promise<Pick<VerifierResult, 'reward' | 'metrics' | 'rewardFile' | 'rewardFiles' | 'problem' | 'channel'>> {
  const exec = await execCollect(
    options.docker,
    container,
    ['python3', '-I', '-S', '-c', inspectorSource, verifierLogs, rewardFileNames.join(',')],
    { user: '0:0', workingDir: '/', maxBytes: 4 * 1024 * 1024 },
  );
  if (exec.exitCode !== 0) throw new Error(`could not inspect ${verifierLogs}: ${exec.stderr.slice(-300)}`);
  const inspected = Inspected.parse(JSON.parse(exec.stdout));
  // in the order they decide: reward.txt, then reward.json
  const present = rewardFileNames.flatMap((name) => inspected.entries.filter((entry) => entry.name === name));
  const rewardFiles = present.map((entry) => entry.name as RewardFileName);
  if (options.unsafeChannel) return { ...(await readRewardUnchecked(container)), rewardFiles, channel: [] };
  const channel = channelProblems(inspected, present, uid, options.rewardFiles);
  const none = { reward: null, metrics: {}, rewardFile: null, rewardFiles };
  if (channel.length > 0) return { ...none, channel, problem: channel.join('; ') };
  for (const entry of present) {
    const file = entry.name as RewardFileName;
    if (entry.content === null)
      return { ...none, channel, rewardFile: file, problem: `${file} is not a readable regular file of at most 1 MiB` };
    return { ...parsedReward(file, Buffer.from(entry.content, 'base64')), rewardFiles, channel };
  }
  return { ...none, channel, problem: `test.sh wrote neither ${verifierLogs}/reward.txt nor reward.json` };
}

/** One reward file's value, or why it has none. */
function parsedReward(
  file: RewardFileName,
  content: Buffer,
): Pick<VerifierResult, 'reward' | 'metrics' | 'rewardFile' | 'problem'> {
  try {
    const value = parseRewardFile(file, content.toString('utf8'));
    return { reward: value.reward, metrics: value.metrics, rewardFile: file, problem: null };
  } catch (error) {
    return { reward: null, metrics: {}, rewardFile: file, problem: (error as Error).message };
  }
}

/** TEST ONLY (unsafeDisable `verifier-channel`): the reward read as it was before the channel checks. */
async function readRewardUnchecked(
  container: Dockerode.Container,
): Promise<Pick<VerifierResult, 'reward' | 'metrics' | 'rewardFile' | 'problem'>> {
  for (const file of rewardFileNames) {
    const content = await readContainerFile(container, `${verifierLogs}/${file}`, 1024 * 1024);
    if (content !== null) return parsedReward(file, content);
  }
  return { reward: null, metrics: {}, rewardFile: null, problem: 'no reward file' };
}

/** What the inspection shows was done to the verifier's output channel. */
function channelProblems(
  inspected: z.infer<typeof Inspected>,
  present: z.infer<typeof Inspected>['entries'],
  uid: number,
  expected: readonly RewardFileName[] | undefined,
): string[] {
  const problems: string[] = [];
  const dir = inspected.dir;
  if (!dir || dir.type !== 'dir' || dir.uid !== 0 || dir.mode !== 0o1777)
    problems.push(`${verifierLogs} was replaced or its owner or mode changed`);
  for (const entry of present) {
    const at = `${verifierLogs}/${entry.name}`;
    if (entry.type !== 'file') problems.push(`${at} is a ${entry.type}, not a regular file`);
    else if (entry.nlink !== 1) problems.push(`${at} has ${entry.nlink} hard links`);
    else if (entry.uid !== uid) problems.push(`${at} belongs to uid ${entry.uid}, not the verifier's`);
    else if ((entry.mode & 0o200) === 0)
      problems.push(`${at} was made unwritable (mode ${entry.mode.toString(8)}), so a later write of it failed`);
    if (expected && expected.length > 0 && !expected.includes(entry.name as RewardFileName))
      problems.push(`${at} is not a reward file this verifier writes (task validate saw ${expected.join(', ')})`);
  }
  return problems;
}

/** Paths and words by which changed code could reach a Harbor verifier's reward file. */
const verifierOutputPattern = /\/logs\/verifier|reward\.(txt|json)|\/logs['"\s]*\)|['"]\/logs['"]/;

/**
 * The changed files that name the verifier's output: in a Harbor task the candidate's code runs inside the verifier,
 * and code that writes the reward file would forge it (a second layer: the channel checks above hold without it).
 */
export function verifierOutputFindings(
  changed: readonly { path: string; content: Buffer }[],
): { kind: 'verifier_output'; path: string; detail: string }[] {
  return changed
    .filter((file) => verifierOutputPattern.test(file.content.toString('latin1')))
    .map((file) => ({
      kind: 'verifier_output' as const,
      path: file.path,
      detail: "names the verifier's output (/logs/verifier, reward.txt or reward.json)",
    }));
}

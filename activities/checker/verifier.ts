/**
 * A Harbor task's verifier: `tests/test.sh` run in a fresh hardened container of the task's image, on
 * the graded tree, with the tests at /tests (they never enter the agent's container) and an empty
 * /logs/verifier, where the script writes `reward.txt` (one number) or `reward.json` (`{"reward": x}`).
 * The script runs as the sandbox's unprivileged uid, with no network, within the task's verifier
 * timeout; every process of that uid is killed from the host before the reward file is read, and a run
 * that something outlived, or whose script was killed, gives no reward: a process the candidate's code
 * left running could otherwise write the file after the script did. What this does not give (the candidate's code runs inside
 * the verifier's own process tree, so no report channel, canary twin or audit protects a test.sh) is in
 * docs/checker.md.
 */
import type Dockerode from 'dockerode';
import type { AgentrlConfig } from '../../shared/config';
import type { HarborVerifier } from '../../shared/task-spec';
import { parseRewardFile } from '../tasks/harbor';
import { createHardenedContainer, removeSandbox, repoPath, sandboxFor } from '../sandbox/container';
import { buildTar, execCollect, readContainerFile } from '../sandbox/docker';
import { sweepAgentProcesses } from '../sandbox/sweep';

export interface VerifierResult {
  /** the reward file's value; null when the script wrote none that reads as a number (scored 0) */
  reward: number | null;
  rewardFile: 'reward.txt' | 'reward.json' | null;
  /** why there is no reward, when there is none */
  problem: string | null;
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
}

/** The environment a Harbor task's scripts (test.sh, solve.sh) run with: a plain PATH, HOME in /tmp, and the task's own variables. */
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
  const extraVolumes = [
    { suffix: 'tests', target: '/tests', uid: 0, mode: 0o755, sizeMb: 256 },
    { suffix: 'logs', target: '/logs', uid, mode: 0o755, sizeMb: 64 },
  ];
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
    extraVolumes,
  });
  const started = Date.now();
  try {
    await container.start();
    const executable = new Set(verifier.executables ?? []);
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
    await container.putArchive(await buildTar(tests, { uid: 0, gid: 0 }), { path: '/tests' });
    const logs = ['verifier', 'agent'].map((dir) => ({ path: `${dir}/.keep`, content: Buffer.alloc(0) }));
    await container.putArchive(await buildTar(logs, { uid, gid: uid }), { path: '/logs' });
    // TEST_DIR: where Terminal-Bench's scripts look for their tests
    const env = scriptEnvironment({ TEST_DIR: '/tests', ...verifier.env });
    const seconds = Math.max(1, Math.ceil(verifier.timeoutSec));
    const exec = await execCollect(
      docker,
      container,
      ['timeout', '-s', 'KILL', String(seconds), 'bash', '/tests/test.sh'],
      { user: `${uid}:${uid}`, workingDir: verifier.workdir, env, maxBytes: 1024 * 1024 },
    );
    // nothing the script (or the code it ran) left behind may write the reward file from now on
    const { killed } = await sweepAgentProcesses(docker, name, uid);
    const timedOut = exec.exitCode === 124 || exec.exitCode === 137;
    const output = `${exec.stdout}${exec.stderr}`.slice(-16 * 1024);
    const base = { exitCode: exec.exitCode, timedOut, output, durationMs: Date.now() - started, lingering: killed };
    if (timedOut)
      return {
        ...base,
        reward: null,
        rewardFile: null,
        problem: `test.sh was killed or ran past its ${seconds} s timeout`,
      };
    if (exec.exitCode !== null && exec.exitCode > 128)
      return {
        ...base,
        reward: null,
        rewardFile: null,
        problem: `test.sh was killed by signal ${exec.exitCode - 128}`,
      };
    // a process that outlives the verifier could write its reward file after it: a verifier's own runs end with it
    if (killed > 0)
      return {
        ...base,
        reward: null,
        rewardFile: null,
        problem: `${killed} process(es) outlived test.sh; a reward written beside them is not trusted`,
      };
    for (const file of ['reward.txt', 'reward.json'] as const) {
      const content = await readContainerFile(container, `/logs/verifier/${file}`, 1024 * 1024);
      if (content === null) continue;
      try {
        return { ...base, reward: parseRewardFile(file, content.toString('utf8')), rewardFile: file, problem: null };
      } catch (error) {
        return { ...base, reward: null, rewardFile: file, problem: (error as Error).message };
      }
    }
    return {
      ...base,
      reward: null,
      rewardFile: null,
      problem: `test.sh (exit ${exec.exitCode}) wrote neither /logs/verifier/reward.txt nor reward.json`,
    };
  } finally {
    await removeSandbox(docker, name, volumes);
  }
}

/** Paths and words by which changed code could reach a Harbor verifier's reward file. */
const verifierOutputPattern = /\/logs\/verifier|reward\.(txt|json)|\/logs['"\s]*\)|['"]\/logs['"]/;

/**
 * The changed files that name the verifier's output: in a Harbor task the candidate's code runs
 * inside the verifier, and code that writes the reward file would forge it.
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

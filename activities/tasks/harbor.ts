/**
 * Harbor task folders (the format Terminal-Bench, SkyRL, verifiers, rLLM and NeMo Gym share):
 * `task.toml`, `instruction.md`, `environment/Dockerfile` (and its build context), `tests/test.sh` writing
 * `/logs/verifier/reward.txt` or `reward.json`, `solution/solve.sh`. This module reads the folder (no
 * Docker); activities/images/harbor-image.ts builds its image and reads the repository out of it, and
 * activities/checker/verifier.ts runs its verifier. docs/tasks.md says what of task.toml is honoured.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { describeIssues } from '../../shared/names/errors';
import { OracleFile, type HarborVerifier, type OracleCall } from '../../shared/contracts/task-spec';
import { readTaskBase, readTaskTree } from './task-base';

export class HarborTaskError extends Error {
  override name = 'HarborTaskError';
}

/** A memory or storage size as Harbor writes it ("2G", "512M", "1024K"), in MiB. */
function sizeMb(value: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$/i.exec(value);
  if (!match) return null;
  const scale = { '': 1 / (1024 * 1024), K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[match[2]!.toUpperCase()]!;
  return Math.max(1, Math.round(Number(match[1]) * scale));
}

const seconds = z.number().positive();
const envMap = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string());

/** `task.toml`: the sections agentrl reads; others (metadata, tags, future fields) are kept and ignored. */
export const HarborToml = z
  .object({
    version: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    verifier: z.object({ timeout_sec: seconds.optional(), env: envMap.optional() }).passthrough().optional(),
    agent: z.object({ timeout_sec: seconds.optional() }).passthrough().optional(),
    solution: z.object({ env: envMap.optional() }).passthrough().optional(),
    /**
     * agentrl's own keys: the survival bound over the deciding tests the task accepts (as task.yaml's acceptedBound)
     */
    agentrl: z
      .object({ accepted_bound: z.number().gt(0).max(1).optional() })
      .strict()
      .optional(),
    environment: z
      .object({
        build_timeout_sec: seconds.optional(),
        cpus: z.number().positive().optional(),
        memory: z.string().optional(),
        memory_mb: z.number().int().positive().optional(),
        storage: z.string().optional(),
        storage_mb: z.number().int().positive().optional(),
        gpus: z.number().int().min(0).optional(),
        allow_internet: z.boolean().optional(),
        mcp_servers: z.array(z.unknown()).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type HarborToml = z.infer<typeof HarborToml>;

export interface HarborFolder {
  dir: string;
  id: string;
  prompt: string;
  toml: HarborToml;
  /** environment/: the Dockerfile and its build context, path → content and permission bits */
  environment: { path: string; content: Buffer; mode: number }[];
  tests: Record<string, Buffer>;
  /** solution/: solve.sh and anything it uses (empty without one) */
  solution: Record<string, Buffer>;
  solveScript: string | null;
  solutionEnv: Record<string, string>;
  wrongFixPatch: string | null;
  oracleCalls: OracleCall[] | null;
  verifier: Omit<HarborVerifier, 'workdir' | 'tests'>;
  /** [agent] timeout_sec in milliseconds: the episode's deadline is the shorter of it and the run's */
  agentTimeoutMs: number | null;
  /** [agentrl] accepted_bound: the survival bound the task accepts (null: the default 1e-3) */
  acceptedBound: number | null;
  buildTimeoutMs: number;
}

/** True for a folder holding a Harbor task (task.toml and no task.yaml). */
export function isHarborFolder(dir: string): boolean {
  return existsSync(join(dir, 'task.toml')) && !existsSync(join(dir, 'task.yaml'));
}

/** A Harbor folder's id: its folder name, lower-cased, other characters as "-". */
export function harborTaskId(dir: string): string {
  const id = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return id || 'harbor-task';
}

/**
 * Reads a Harbor task folder; errors name the file and what is wrong. A task that asks for internet
 * access, GPUs or MCP servers is refused: sandboxes have no network and no GPU.
 */
export function readHarborFolder(dir: string): HarborFolder {
  const tomlPath = join(dir, 'task.toml');
  let raw: unknown;
  try {
    raw = parseToml(readFileSync(tomlPath, 'utf8'));
  } catch (error) {
    throw new HarborTaskError(`${tomlPath}: not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = HarborToml.safeParse(raw);
  if (!parsed.success) throw new HarborTaskError(describeIssues(tomlPath, parsed.error));
  const toml = parsed.data;
  const env = toml.environment ?? {};
  if (env.allow_internet === true)
    throw new HarborTaskError(
      `${tomlPath}: [environment] allow_internet = true, but sandboxes have no network; ` +
        'a task that needs the internet ' +
        `cannot run here (remove the line or set it to false if the task works offline)`,
    );
  if ((env.gpus ?? 0) > 0)
    throw new HarborTaskError(`${tomlPath}: [environment] gpus = ${env.gpus}, but sandboxes have no GPU`);
  if (env.mcp_servers?.length)
    throw new HarborTaskError(`${tomlPath}: [[environment.mcp_servers]] are not supported (sandboxes have no network)`);
  const instructionPath = join(dir, 'instruction.md');
  if (!existsSync(instructionPath) || !lstatSync(instructionPath).isFile())
    throw new HarborTaskError(`${instructionPath}: missing (a Harbor task needs instruction.md)`);
  const prompt = readFileSync(instructionPath, 'utf8').trim();
  if (!prompt) throw new HarborTaskError(`${instructionPath}: empty`);
  // the folders as the loaders read them: base.yaml may name a tree instead of the folder holding it
  const base = readTaskBase(dir);
  const tree = (folder: string) => readTaskTree(dir, folder, base) ?? {};
  // modes as git keeps them (a clone's umask must not change the image's name)
  const environment = Object.entries(tree('environment')).map(([path, file]) => ({ path, ...file }));
  if (!environment.some((file) => file.path === 'Dockerfile'))
    throw new HarborTaskError(
      `${join(dir, 'environment', 'Dockerfile')}: missing (a Harbor task needs environment/Dockerfile)`,
    );
  for (const compose of ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml'])
    if (environment.some((file) => file.path === compose))
      throw new HarborTaskError(
        `${join(dir, 'environment', compose)}: multi-container environments are not supported (one Dockerfile only)`,
      );
  const contents = (files: Record<string, { content: Buffer }>) =>
    Object.fromEntries(Object.entries(files).map(([path, file]) => [path, file.content]));
  const tests = contents(tree('tests'));
  if (!tests['test.sh'])
    throw new HarborTaskError(`${join(dir, 'tests', 'test.sh')}: missing (a Harbor task needs tests/test.sh)`);
  const solution = contents(tree('solution'));
  const optional = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : null);
  let oracleCalls: OracleCall[] | null = null;
  const oracleText = optional('oracle.json');
  if (oracleText !== null) {
    let oracleRaw: unknown;
    try {
      oracleRaw = JSON.parse(oracleText);
    } catch (error) {
      throw new HarborTaskError(`${join(dir, 'oracle.json')}: not valid JSON: ${(error as Error).message}`);
    }
    const oracle = OracleFile.safeParse(oracleRaw);
    if (!oracle.success) throw new HarborTaskError(describeIssues(join(dir, 'oracle.json'), oracle.error));
    oracleCalls = oracle.data.calls;
  }
  const memoryMb = env.memory_mb ?? (env.memory !== undefined ? sizeMb(env.memory) : undefined);
  if (memoryMb === null) throw new HarborTaskError(`${tomlPath}: [environment] memory = "${env.memory}" is not a size`);
  const storageMb = env.storage_mb ?? (env.storage !== undefined ? sizeMb(env.storage) : undefined);
  if (storageMb === null)
    throw new HarborTaskError(`${tomlPath}: [environment] storage = "${env.storage}" is not a size`);
  return {
    dir,
    id: harborTaskId(dir),
    prompt,
    toml,
    environment,
    tests,
    solution,
    solveScript: solution['solve.sh']?.toString('utf8') ?? null,
    solutionEnv: toml.solution?.env ?? {},
    wrongFixPatch: optional('wrong-fix.patch'),
    oracleCalls,
    verifier: {
      timeoutSec: toml.verifier?.timeout_sec ?? 600,
      env: toml.verifier?.env ?? {},
      resources: {
        ...(env.cpus !== undefined ? { cpus: env.cpus } : {}),
        ...(memoryMb !== undefined ? { memoryMb } : {}),
        ...(storageMb !== undefined ? { workDiskMb: storageMb } : {}),
      },
    },
    agentTimeoutMs: toml.agent?.timeout_sec !== undefined ? Math.round(toml.agent.timeout_sec * 1000) : null,
    acceptedBound: toml.agentrl?.accepted_bound ?? null,
    buildTimeoutMs: Math.round((env.build_timeout_sec ?? 600) * 1000),
  };
}

/** The files a verifier may write its reward to, in the order they decide (reward.txt first, as Harbor reads them). */
export const rewardFileNames = ['reward.txt', 'reward.json'] as const;
export type RewardFileName = (typeof rewardFileNames)[number];

/**
 * The value of a verifier's reward file: reward.txt holds one number; reward.json a number, or an object whose
 * `reward` key scores and whose other numeric keys are metrics (an object without `reward` and exactly one numeric
 * key: that key scores).
 */
export function parseRewardFile(
  name: RewardFileName,
  content: string,
): { reward: number; metrics: Record<string, number> } {
  if (name === 'reward.txt') {
    const text = content.trim();
    const value = Number(text);
    if (text === '' || !Number.isFinite(value))
      throw new Error(`reward.txt holds "${text.slice(0, 80)}", not a number`);
    return { reward: value, metrics: {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (error) {
    throw new Error(`reward.json is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed === 'number' && Number.isFinite(parsed)) return { reward: parsed, metrics: {} };
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const numbers = Object.entries(parsed as Record<string, unknown>).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
    );
    const reward = numbers.find(([key]) => key === 'reward');
    if (reward) return { reward: reward[1], metrics: Object.fromEntries(numbers.filter(([key]) => key !== 'reward')) };
    if (!('reward' in parsed) && numbers.length === 1) return { reward: numbers[0]![1], metrics: {} };
  }
  throw new Error('reward.json has no finite "reward" number (nor exactly one numeric field)');
}

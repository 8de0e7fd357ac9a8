import { z } from 'zod';
import type { GatewayApi } from '../contracts/gateway';
import registry from '../harnesses.json';

/**
 * The agent harnesses a sandbox can run against the model gateway (shared/harnesses.json, read by
 * scripts/build-harnesses.sh, which installs them, and by sandbox/harness-launch.py, which starts them;
 * docs/harnesses.md).
 */

/** What the launcher fills into a harness's command, environment, stdin and files. */
export const harnessPlaceholders = ['dir', 'home', 'task', 'task_file', 'base_url', 'port', 'model', 'key'] as const;
/** The APIs a harness may speak: the gateway's, less the bare completions no harness uses. */
export const harnessApis = ['chat-completions', 'responses', 'messages'] as const satisfies readonly GatewayApi[];

const template = z.string().superRefine((text, context) => {
  for (const [, name] of text.matchAll(/\{([a-z_]+)\}/g))
    if (!(harnessPlaceholders as readonly string[]).includes(name!))
      context.addIssue({
        code: 'custom',
        message: `unknown placeholder {${name}}; known: ${harnessPlaceholders.map((known) => `{${known}}`).join(', ')}`,
      });
});

const PypiSource = z.strictObject({
  registry: z.literal('pypi'),
  /** `name==version`: the harness's own pin */
  package: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][A-Za-z0-9.+!-]*$/, 'must pin one version: name==version'),
  /** the requirements file (repository-relative) pinning every package installed, each with its hash */
  lock: z.string().regex(/^sandbox\/harness-locks\/[^/]+\.txt$/, 'must name a file in sandbox/harness-locks/'),
});

const NpmSource = z.strictObject({
  registry: z.literal('npm'),
  /** `name@version` (a platform build's version carries its platform: `0.171.0-linux-x64`) */
  package: z
    .string()
    .regex(/^(@[a-z0-9-]+\/)?[a-z0-9._-]+@[0-9][A-Za-z0-9.+-]*$/, 'must pin one version: name@version'),
  /** the tarball's integrity as npm gives it; the build refuses a download that differs */
  integrity: z.string().regex(/^sha512-[A-Za-z0-9+/]{86}==$/, 'must be an npm sha512 integrity'),
  /** executables linked into the harness's bin/, by name: their paths in the unpacked tarball */
  bin: z.record(z.string(), z.string().regex(/^package\/[^\s]+$/, 'must be a path under package/')),
});

export const HarnessEntry = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'must be lowercase letters, digits, "." or "-"'),
    version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, 'must be an exact version (major.minor.patch)'),
    source: z.discriminatedUnion('registry', [PypiSource, NpmSource]),
    api: z.enum(harnessApis),
    /** the command line, run in the repository root; the first word the harness's own executable */
    command: z.array(template).min(1),
    /** a file the harness reads as its stdin (else /dev/null) */
    stdin: template.optional(),
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name'), template),
    /** configuration files, written under HOME before the harness starts */
    files: z.array(
      z.strictObject({
        path: z.string().regex(/^(?!\/)(?!.*\.\.)./, 'must be relative to HOME, without ".."'),
        content: template,
      }),
    ),
    /** a command that proves the installed harness starts (run by the build in a sandbox-like container) */
    check: z.array(template).min(1),
  })
  .superRefine((entry, context) => {
    // a package that pins nothing is refused by its own pattern above
    const pinned = entry.source.package.split(entry.source.registry === 'pypi' ? '==' : /@(?=[0-9])/)[1];
    if (pinned && pinned !== entry.version && !pinned.startsWith(`${entry.version}-`))
      context.addIssue({
        code: 'custom',
        path: ['source', 'package'],
        message: `pins ${pinned}, not the harness's version ${entry.version}`,
      });
    if (!entry.command[0]!.startsWith('{dir}/'))
      context.addIssue({ code: 'custom', path: ['command', 0], message: 'must be an executable under {dir}/' });
    const words = [...entry.command, entry.stdin ?? ''];
    if (!words.some((word) => word.includes('{task}') || word.includes('{task_file}')))
      context.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'the task never reaches the harness: use {task} or {task_file} in the command or stdin',
      });
  });
export type HarnessEntry = z.infer<typeof HarnessEntry>;

export const HarnessRegistry = z
  .strictObject({ $comment: z.string().optional(), harnesses: z.array(HarnessEntry).min(1) })
  .superRefine((parsed, context) => {
    const names = parsed.harnesses.map((entry) => entry.name);
    for (const [index, name] of names.entries())
      if (names.indexOf(name) !== index)
        context.addIssue({ code: 'custom', path: ['harnesses', index, 'name'], message: `${name} is listed twice` });
  });

export const harnesses = HarnessRegistry.parse(registry).harnesses;
export const harnessNames = harnesses.map((entry) => entry.name);

/** The entry of a harness name; an unknown name throws with the known ones. */
export function knownHarness(name: string): HarnessEntry {
  const entry = harnesses.find((candidate) => candidate.name === name);
  if (!entry) throw new Error(`unknown harness ${JSON.stringify(name)}; known: ${harnessNames.join(', ')}`);
  return entry;
}

/** Where a harness lies in a sandbox: the harness root is mounted read-only at /opt/agentrl/harnesses. */
export const harnessMount = '/opt/agentrl/harnesses';
export const harnessDir = (entry: HarnessEntry) => `${harnessMount}/${entry.name}-${entry.version}`;

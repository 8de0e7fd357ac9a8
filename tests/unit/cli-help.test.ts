// The CLI's help agrees with itself and with the README; bad values are refused before anything starts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { commands } from '../../cli/commands';
import { durationFlag } from '../../cli/command';
import { projectRoot } from '../../workers/config';

const state = mkdtempSync(join(tmpdir(), 'agentrl-help-'));
const configPath = join(state, 'temporal.yaml');
// an address nothing listens on: no command here may start or find a server
writeFileSync(
  configPath,
  `temporal:\n  address: 127.0.0.1:17299\n  uiPort: 18299\nstateDir: ${state}\nartifactsDir: ${state}/artifacts\n`,
);

function agentrl(...args: string[]) {
  const result = spawnSync(process.execPath, [join(projectRoot, 'bin', 'agentrl.js'), ...args], {
    env: { ...process.env, AGENTRL_CONFIG: configPath },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const flagsOf = (text: string) => [...text.matchAll(/(?<![\w-])(--[a-z][a-z-]*|-k)\b/g)].map((match) => match[1]!);

describe('the CLI and its help', () => {
  test('every option a command takes is in its --help, with the default of each option that has one', () => {
    for (const [name, command] of Object.entries(commands)) {
      for (const [option, spec] of Object.entries(command.options)) {
        const flag = spec.short ? `-${spec.short}` : `--${option}`;
        assert.ok(command.usage.includes(flag), `${name} --help does not mention ${flag}`);
      }
      for (const flag of flagsOf(command.usage)) {
        assert.ok(
          flag === '--help' || flag === '-k' || flag.slice(2) in command.options || command.positionals,
          `${name} --help names ${flag}, which it does not take`,
        );
      }
    }
    assert.match(commands.eval!.usage, /-k N .*default: 1/);
    assert.match(commands.eval!.usage, /--samples N .*default: k/);
    assert.match(commands['task validate']!.usage, /npx agentrl task validate --all/);
  });

  test("the README's command table lists every command with flags it takes", () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `npx agentrl '));
    const names = Object.keys(commands).sort((a, b) => b.length - a.length);
    const listed = new Set<string>();
    for (const row of rows) {
      const usage = row.split('`')[1]!.slice('npx agentrl '.length);
      const name = names.find((known) => usage === known || usage.startsWith(`${known} `));
      assert.ok(name, `README lists an unknown command: ${usage}`);
      listed.add(name);
      for (const flag of flagsOf(usage))
        assert.ok(commands[name]!.usage.includes(flag), `README gives ${name} ${flag}, which its --help does not know`);
    }
    assert.deepEqual([...listed].sort(), Object.keys(commands).sort());
  });

  test('the top help names train the main job, as the README does; a group answers its --help', () => {
    const top = agentrl('--help');
    assert.equal(top.code, 0);
    assert.match(top.stdout, /The main job is `npx agentrl train`/);
    assert.match(top.stdout, /^ {2}train\s+the main job/m);
    assert.doesNotMatch(top.stdout, /examples .*main job/);
    assert.match(readFileSync(join(projectRoot, 'README.md'), 'utf8'), /npm run train +# the main job/);
    const group = agentrl('task', '--help');
    assert.equal(group.code, 0, group.stderr);
    assert.match(group.stdout, /^ {2}validate\s+prove tasks sound/m);
    const bare = agentrl('task');
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /agentrl task: name a subcommand/);
    const wrong = agentrl('task', 'check');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /unknown subcommand "check"/);
  });

  test('a duration needs its unit: a bare number is refused, not read as milliseconds', () => {
    assert.equal(durationFlag('--timeout', '90s'), 90_000);
    assert.equal(durationFlag('--timeout', '1.5m'), 90_000);
    assert.throws(
      () => durationFlag('--timeout', '60'),
      /--timeout: give a unit, e\.g\. 60s or 60m \(ms, s, m or h\), got "60"/,
    );
    assert.throws(() => durationFlag('--timeout', '0s'), /expected a duration/);
    const run = agentrl('episode', '--timeout', '60');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /--timeout: give a unit/);
    assert.doesNotMatch(run.stderr, /starting/, 'nothing starts on a bad flag');
  });

  test('train refuses a bad input before anything starts, naming the field in its block', () => {
    const input = join(state, 'run.json');
    const train = (fields: object, ...flags: string[]) => {
      writeFileSync(input, JSON.stringify(fields));
      const run = agentrl('train', '--input', input, ...flags);
      assert.equal(run.code, 1, run.stderr);
      assert.doesNotMatch(run.stderr, /starting/, 'nothing starts on a bad input');
      return run.stderr;
    };
    assert.match(
      train({ offPolicy: 'tis', loss: { offPolicy: 'none' } }),
      /--input .*run\.json: offPolicy is the former name of loss\.offPolicy, which is given too: give only loss\.offPolicy/,
    );
    // a flat field of before and an option setting its block are one input
    assert.match(train({ maxStaleness: 1 }, '--segment-turns', '2'), /training input: async: only for mode "async"/);
    assert.match(train({ loss: { offPolicy: 'ppo' } }), /training input: loss\.offPolicy: Invalid option/);
  });

  test('server status tells a server that does not run from one this project did not start', () => {
    const status = agentrl('server', 'status');
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^server: not running at 127\.0\.0\.1:17299/m);
    assert.match(status.stdout, /^worker: none on this host$/m);
  });
});

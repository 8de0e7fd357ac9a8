// The agent harnesses (shared/harnesses.json): every entry pins what it installs, speaks an API the gateway knows, and
// hands the harness its task; the requests recorded from each real harness are in the shape of the API its entry names;
// and the build's stamp, which lets a second build do nothing, moves whenever the registry does.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { projectRoot } from '../../workers/config';
import { HarnessRegistry, harnesses, knownHarness } from '../../shared/names/harnesses';

const registryPath = join(projectRoot, 'shared', 'harnesses.json');
const registryText = readFileSync(registryPath, 'utf8');
const issues = (registry: unknown) => {
  const parsed = HarnessRegistry.safeParse(registry);
  assert.equal(parsed.success, false, `expected ${JSON.stringify(registry).slice(0, 200)} to be refused`);
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};
const withEntry = (change: (entry: Record<string, unknown>) => void) => {
  const registry = JSON.parse(registryText) as { harnesses: Record<string, unknown>[] };
  change(registry.harnesses[0]!);
  return registry;
};

describe('the harness registry', () => {
  test('names mini-swe-agent on Chat Completions and Codex on Responses, each pinned to one version', () => {
    assert.deepEqual(
      harnesses.map((entry) => [entry.name, entry.version, entry.api, entry.source.package]),
      [
        ['mini-swe-agent', '2.4.6', 'chat-completions', 'mini-swe-agent==2.4.6'],
        ['codex', '0.171.0', 'responses', '@openai/codex@0.171.0-linux-x64'],
      ],
    );
    assert.throws(() => knownHarness('claude-code'), /unknown harness "claude-code"; known: mini-swe-agent, codex/);
  });

  test('a loose pin, an unknown API or placeholder, or a task that never reaches the harness is refused', () => {
    assert.deepEqual(
      issues(
        withEntry((entry) => {
          entry.version = '2.4';
          entry.api = 'completions';
          entry.command = ['{dir}/bin/mini', '--model', '{model_name}'];
        }),
      ),
      [
        'harnesses.0.version: must be an exact version (major.minor.patch)',
        'harnesses.0.api: Invalid option: expected one of "chat-completions"|"responses"|"messages"',
        'harnesses.0.command.2: unknown placeholder {model_name}; known: {dir}, {home}, {task}, {task_file}, ' +
          '{base_url}, {port}, {model}, {key}',
      ],
    );
    assert.deepEqual(
      issues(
        withEntry((entry) => {
          entry.source = { registry: 'pypi', package: 'mini-swe-agent>=2', lock: 'sandbox/harness-locks/x.txt' };
          entry.command = ['mini', '--yolo'];
        }),
      ),
      [
        'harnesses.0.source.package: must pin one version: name==version',
        'harnesses.0.command.0: must be an executable under {dir}/',
        'harnesses.0.command: the task never reaches the harness: use {task} or {task_file} in the command or stdin',
      ],
    );
    assert.deepEqual(
      issues(
        withEntry((entry) => {
          (entry.source as { package: string }).package = 'mini-swe-agent==2.4.5';
        }),
      ),
      ["harnesses.0.source.package: pins 2.4.5, not the harness's version 2.4.6"],
    );
  });

  test("a PyPI harness's lock file pins every package it installs, the harness's own version among them", () => {
    for (const entry of harnesses) {
      if (entry.source.registry !== 'pypi') continue;
      const lines = readFileSync(join(projectRoot, entry.source.lock), 'utf8')
        .split('\n')
        .filter((line) => line && !line.startsWith('#'));
      for (const line of lines) assert.match(line, /^[a-z0-9._-]+==[^\s]+ --hash=sha256:[0-9a-f]{64}$/, line);
      assert.ok(
        lines.some((line) => line.startsWith(`${entry.source.package} `)),
        `${entry.name} is not in its lock`,
      );
    }
  });

  test("each harness's recorded request is in the shape of its API, with the model name as it was given", () => {
    // tests/fixtures/gateway/ holds what the real harnesses sent through the launcher, with model name "policy"
    for (const entry of harnesses) {
      const request = JSON.parse(
        readFileSync(join(projectRoot, 'tests', 'fixtures', 'gateway', `${entry.name}-request-1.json`), 'utf8'),
      ) as Record<string, unknown>;
      assert.equal(request.model, 'policy', entry.name);
      if (entry.api === 'chat-completions') {
        const messages = request.messages as { role: string }[];
        assert.deepEqual(
          messages.map((message) => message.role),
          ['system', 'user'],
        );
        const tools = request.tools as { type: string; function: { name: string } }[];
        assert.deepEqual(
          tools.map((tool) => [tool.type, tool.function.name]),
          [['function', 'bash']],
        );
      } else {
        assert.equal(entry.api, 'responses');
        assert.equal(request.stream, true);
        const input = request.input as { type: string; role: string }[];
        assert.deepEqual(input.at(-1), {
          type: 'message',
          id: (input.at(-1) as unknown as { id: string }).id,
          role: 'user',
          content: [{ type: 'input_text', text: 'Fix add() in calc.py: it subtracts.\n' }],
        });
        const tools = request.tools as { type: string; name: string }[];
        assert.ok(tools.some((tool) => tool.type === 'function' && tool.name === 'exec_command'));
      }
    }
  });
});

describe("the build's stamp", () => {
  const folder = mkdtempSync(join(tmpdir(), 'harness-stamp-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const stampOf = (text: string) => {
    const path = join(folder, 'harnesses.json');
    writeFileSync(path, text);
    const done = spawnSync('bash', [join(projectRoot, 'scripts', 'build-harnesses.sh'), '--stamp'], {
      env: { ...process.env, AGENTRL_HARNESS_REGISTRY: path },
      encoding: 'utf8',
    });
    assert.equal(done.status, 0, done.stderr);
    return done.stdout.trim();
  };

  test('is the same for the same registry and changes with a pin or a setting', () => {
    const stamp = stampOf(registryText);
    assert.match(stamp, /^[0-9a-f]{16}$/);
    assert.equal(stampOf(registryText), stamp);
    assert.notEqual(stampOf(registryText.replace('"0.171.0"', '"0.172.0"')), stamp);
    assert.notEqual(stampOf(registryText.replace('"MSWEA_CONFIGURED": "true"', '"MSWEA_CONFIGURED": "1"')), stamp);
  });

  test('refuses a registry whose entry it cannot install, naming the entry', () => {
    const path = join(folder, 'harnesses.json');
    writeFileSync(path, registryText.replace('"registry": "npm"', '"registry": "cargo"'));
    const done = spawnSync('bash', [join(projectRoot, 'scripts', 'build-harnesses.sh'), '--stamp'], {
      env: { ...process.env, AGENTRL_HARNESS_REGISTRY: path },
      encoding: 'utf8',
    });
    assert.notEqual(done.status, 0);
    assert.match(done.stderr, /harness codex: unknown registry 'cargo' \(pypi or npm\)/);
  });
});

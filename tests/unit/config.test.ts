// Inputs and configuration: durations, the episode input's defaults, temporal.yaml and its overrides.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseDurationMs } from '../../shared/math/duration';
import { EpisodeInput } from '../../shared/contracts/episode-input';
import { loadConfig, temporalConnection } from '../../workers/config';

describe('durations', () => {
  test('parse units and milliseconds', () => {
    assert.equal(parseDurationMs('60s'), 60_000);
    assert.equal(parseDurationMs('1.5m'), 90_000);
    assert.equal(parseDurationMs('250ms'), 250);
    assert.equal(parseDurationMs('2h'), 7_200_000);
    assert.equal(parseDurationMs(1234), 1234);
    assert.equal(parseDurationMs('soon'), null);
    assert.equal(parseDurationMs(-1), null);
  });
});

describe('episode input', () => {
  test('{} has a default for every field and runs a bundled example', () => {
    const input = EpisodeInput.parse({});
    assert.equal(input.task, 'tasks/wrong-comparison');
    assert.equal(input.checker, 'strict');
    assert.equal(input.budgets.deadlineMs, 600_000);
    assert.equal(input.timeouts.hostScheduleToStartMs, 60_000);
  });
  test('durations in the input accept strings', () => {
    assert.equal(EpisodeInput.parse({ budgets: { deadlineMs: '90s' } }).budgets.deadlineMs, 90_000);
    assert.equal(EpisodeInput.safeParse({ budgets: { deadlineMs: 'later' } }).success, false);
  });
});

describe('configuration', () => {
  test('temporal.yaml validates, and environment variables override it', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: '10.0.0.1:7233', AGENTRL_STATE_DIR: '/tmp/agentrl-x' });
    assert.equal(config.temporal.address, '10.0.0.1:7233');
    assert.equal(config.stateDir, '/tmp/agentrl-x');
    assert.equal(config.artifactsDir, '/tmp/agentrl-x/artifacts');
    assert.equal(config.sandbox.image, 'agentrl-base:latest');
  });
  test("tool calls go through the sandbox's executor unless AGENTRL_SANDBOX_EXECUTOR=exec restores docker exec", () => {
    assert.equal(loadConfig({}).sandbox.executor, 'server');
    assert.equal(loadConfig({ AGENTRL_SANDBOX_EXECUTOR: 'exec' }).sandbox.executor, 'exec');
    assert.throws(
      () => loadConfig({ AGENTRL_SANDBOX_EXECUTOR: 'ssh' }),
      /AGENTRL_SANDBOX_EXECUTOR: one of server, exec, not ssh/,
    );
  });
  test("simple python3 calls use the sandbox's warm interpreter unless AGENTRL_WARM_PYTHON=false", () => {
    assert.equal(loadConfig({}).sandbox.warmPython, true);
    assert.equal(loadConfig({ AGENTRL_WARM_PYTHON: 'false' }).sandbox.warmPython, false);
    assert.equal(loadConfig({ AGENTRL_WARM_PYTHON: '1' }).sandbox.warmPython, true);
    assert.throws(() => loadConfig({ AGENTRL_WARM_PYTHON: 'maybe' }), /AGENTRL_WARM_PYTHON: one of true, false, 1, 0/);
  });
  test('the warm sandbox pool is off unless sandbox.pool.size or AGENTRL_SANDBOX_POOL sets a size', () => {
    assert.equal(loadConfig({}).sandbox.pool.size, 0);
    const pool = loadConfig({ AGENTRL_SANDBOX_POOL: '4' }).sandbox.pool;
    assert.deepEqual(pool, { size: 4, maxContainers: 64, fillConcurrency: 2, refillDelayMs: 1000, idleS: 600 });
    assert.throws(() => loadConfig({ AGENTRL_SANDBOX_POOL: 'many' }), /AGENTRL_SANDBOX_POOL: not a whole number/);
    assert.throws(() => loadConfig({ AGENTRL_SANDBOX_POOL: '-1' }), /AGENTRL_SANDBOX_POOL: not a whole number/);
  });
  test('an invalid field is named with its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-config-'));
    writeFileSync(join(dir, 'bad.yaml'), 'sandbox:\n  memoryMb: lots\n');
    assert.throws(() => loadConfig({ AGENTRL_CONFIG: join(dir, 'bad.yaml') }), /bad\.yaml: sandbox\.memoryMb: /);
    writeFileSync(join(dir, 'typo.yaml'), 'temporall: {}\n');
    assert.throws(
      () => loadConfig({ AGENTRL_CONFIG: join(dir, 'typo.yaml') }),
      /typo\.yaml: \(root\): Unrecognized key: "temporall"/,
    );
    assert.throws(
      () => loadConfig({ AGENTRL_CONFIG: join(dir, 'missing.yaml') }),
      /AGENTRL_CONFIG points to .*missing\.yaml, which does not exist/,
    );
  });
  test("Temporal's own environment configuration: a profile file, TEMPORAL_* over it, TLS and an API key for connections", () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-envconfig-'));
    const file = join(dir, 'temporal.toml');
    writeFileSync(
      file,
      '[profile.default]\naddress = "127.0.0.1:7233"\n\n[profile.cloud]\naddress = "ns.acct.tmprl.cloud:7233"\n' +
        'namespace = "ns.acct"\napi_key = "secret-key"\n',
    );
    const cloud = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', AGENTRL_STATE_DIR: dir };
    const config = loadConfig(cloud);
    assert.deepEqual([config.temporal.address, config.temporal.namespace], ['ns.acct.tmprl.cloud:7233', 'ns.acct']);
    assert.deepEqual(temporalConnection(config, cloud), {
      address: 'ns.acct.tmprl.cloud:7233',
      apiKey: 'secret-key',
      tls: true,
    });
    // an environment variable wins over the profile; no profile and no variable leave temporal.yaml's
    assert.equal(loadConfig({ ...cloud, TEMPORAL_ADDRESS: '10.1.1.1:7233' }).temporal.address, '10.1.1.1:7233');
    assert.equal(
      loadConfig({ TEMPORAL_CONFIG_FILE: join(dir, 'none.toml'), AGENTRL_STATE_DIR: dir }).temporal.address,
      '127.0.0.1:7233',
    );
    assert.deepEqual(temporalConnection(loadConfig({ AGENTRL_STATE_DIR: dir }), {}), { address: '127.0.0.1:7233' });
    assert.throws(
      () => loadConfig({ ...cloud, TEMPORAL_PROFILE: 'nope' }),
      /Temporal connection profile: Profile 'nope' not found/,
    );
  });
});

// A task's own canaries (canary/): task validate proves, in real containers, that the reference
// solution fails every one of them, together with the generated twins.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { validateTask } from '../../activities/tasks/task-validation';
import { loadConfig } from '../../workers/config';
import { docker, task } from '../helpers/temporal';

const sandbox = loadConfig({}).sandbox;

function withCanary(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentrl-canary-'));
  cpSync(task('off-by-one-range'), dir, { recursive: true });
  mkdirSync(join(dir, 'canary', 'tests'), { recursive: true });
  writeFileSync(join(dir, 'canary', 'tests', 'test_canary_pager.py'), source);
  return dir;
}

test('canaries the reference solution fails are accepted beside the twins; one it passes makes the task invalid', async () => {
  const good = withCanary(
    'from pager import get_page\n\n\ndef test_short_page():\n    assert get_page([1, 2, 3], 1, 2) == [1]\n',
  );
  const bad = withCanary(
    'from pager import get_page\n\n\ndef test_short_page():\n    assert get_page([1, 2, 3], 1, 2) == [1, 2]\n',
  );
  const [accepted, refused] = await Promise.all([
    validateTask(good, { docker, sandbox }),
    validateTask(bad, { docker, sandbox }),
  ]);
  const twinCheck = (report: typeof accepted) =>
    report.checks.find((check) => check.name.startsWith('every canary twin fails'))!;
  assert.equal(accepted.ok, true, JSON.stringify(accepted.checks));
  assert.match(twinCheck(accepted).name, /and so does every canary\/ test/);
  assert.ok(
    (JSON.parse(readFileSync(join(good, 'expected-tests.json'), 'utf8')) as { twins: { count: number } }).twins.count >
      0,
  );
  assert.equal(refused.ok, false);
  assert.equal(twinCheck(refused).ok, false);
  assert.match(twinCheck(refused).detail, /not failed: .* passed/);
});

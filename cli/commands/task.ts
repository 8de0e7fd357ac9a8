import { join } from 'node:path';
import Dockerode from 'dockerode';
import { validateTask } from '../../activities/tasks/task-validation';
import { loadConfig, projectRoot } from '../../workers/config';
import type { Command } from '../command';
import { findTaskFolders } from '../evaluation';

export const taskValidate: Command = {
  summary: 'prove tasks sound in real containers and record their expected test ids',
  usage: [
    'Usage: npx agentrl task validate DIR [DIR...] [--check]',
    '       npx agentrl task validate --all [--check]',
    '',
    'In real containers: the starting repository must fail, solution.patch must pass visible, hidden and oracle tests,',
    'and wrong-fix.patch (if present) must pass the visible tests only. Writes expected-tests.json.',
    '',
    'Options:',
    '  --all      validate every task folder under tasks/ (any depth) instead of the named ones',
    '  --check    do not write; fail if expected-tests.json is missing or out of date',
  ].join('\n'),
  options: { check: { type: 'boolean' }, all: { type: 'boolean' } },
  positionals: true,
  async run(values, positionals) {
    const config = loadConfig();
    if (values.all && positionals.length) throw new Error('task validate: name task folders or give --all, not both');
    const dirs = values.all ? findTaskFolders(join(projectRoot, 'tasks')) : positionals;
    if (dirs.length === 0) throw new Error('task validate: name at least one task folder (or --all)');
    const docker = new Dockerode();
    let failed = 0;
    for (const dir of dirs) {
      const report = await validateTask(dir, { docker, sandbox: config.sandbox }, { check: Boolean(values.check) });
      console.log(`${report.ok ? 'ok  ' : 'FAIL'} ${report.taskId} (${report.dir})`);
      for (const check of report.checks) console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
      if (report.expected) console.log(`  expected tests: ${report.expected.visible.length} visible, ${report.expected.hidden.length} hidden, ${report.expected.oracle.length} oracle${report.recorded ? ' (recorded)' : ''}`);
      if (!report.ok) failed++;
    }
    return failed ? 1 : 0;
  },
};

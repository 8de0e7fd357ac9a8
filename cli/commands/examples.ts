import { loadConfig } from '../../workers/config';
import { log, type Command } from '../command';
import { connectWithWorker } from '../episode-runner';
import { runExamples } from '../examples';

export const examples: Command = {
  summary: 'run the scripted example episodes (fixes and reward hacks under both checkers) and print a table',
  usage: [
    'Usage: npx agentrl examples [--json]',
    '',
    'Runs every bundled task (tasks/*/) with its scripted fix, and reward-hacking scripts under the weak and the',
    'strict checker (starting the dev server and a worker when none runs), then prints one row per episode:',
    'outcome, reward, true success, turns and tamper findings.',
    '',
    'Options:',
    '  --json    print one JSON result per line instead of the table',
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  async run(values) {
    const config = loadConfig();
    const { client, close } = await connectWithWorker(config, log);
    try {
      return await runExamples(client, config, Boolean(values.json), log);
    } finally {
      await close();
    }
  },
};

import { parseArgs } from 'node:util';
import { commands } from './commands';

const topHelp = () =>
  [
    'agentrl: durable reinforcement learning for LLM agents on Temporal',
    '',
    'Usage: npx agentrl <command> [options]   (npx agentrl <command> --help for its options)',
    '',
    'The main job is `npx agentrl train` (a short training run on the embedded defaults).',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(16)} ${command.summary}`),
  ].join('\n');

/** The help of a command group (`task`): its subcommands. */
const groupHelp = (group: string, names: string[]) =>
  [
    `Usage: npx agentrl ${group} <subcommand> [options]   (npx agentrl ${group} <subcommand> --help for its options)`,
    '',
    'Subcommands:',
    ...names.map((name) => `  ${name.slice(group.length + 1).padEnd(14)} ${commands[name]!.summary}`),
  ].join('\n');

/** Parses the command line and runs one command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    console.log(topHelp());
    return 0;
  }
  const twoWord = second !== undefined ? `${first} ${second}` : '';
  const name = twoWord in commands ? twoWord : first;
  const command = commands[name];
  if (!command) {
    const group = Object.keys(commands).filter((known) => known.startsWith(`${first} `));
    if (group.length > 0) {
      if (second === '--help' || second === '-h') {
        console.log(groupHelp(first, group));
        return 0;
      }
      console.error(
        `agentrl ${first}: ` +
          (second === undefined ? 'name a subcommand' : `unknown subcommand ${JSON.stringify(second)}`) +
          `\n\n${groupHelp(first, group)}`,
      );
      return 2;
    }
    console.error(`agentrl: unknown command ${JSON.stringify(first)}\n\n${topHelp()}`);
    return 2;
  }
  const args = name === twoWord ? rest : argv.slice(1);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: Boolean(command.positionals),
      strict: true,
    });
  } catch (error) {
    console.error(`agentrl ${name}: ${(error as Error).message}\n\n${command.usage}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(command.usage);
    return 0;
  }
  return command.run(parsed.values, parsed.positionals);
}

import type { Command } from '../command';
import { episode } from './episode';
import { episodeResume } from './episode-resume';
import { evaluate } from './eval';
import { examples } from './examples';
import { policyServer } from './policy-server';
import { reap } from './reap';
import { server } from './server';
import { taskBuild, taskImport, taskValidate } from './task';
import { status } from './status';
import { train } from './train';
import { up } from './up';
import { worker } from './worker';

/** Every command of `npx agentrl`, in the order `--help` lists them; a two-word name is a subcommand. */
export const commands: Record<string, Command> = {
  train,
  episode,
  'episode resume': episodeResume,
  examples,
  eval: evaluate,
  'task validate': taskValidate,
  'task import': taskImport,
  'task build': taskBuild,
  server,
  up,
  status,
  worker,
  'policy-server': policyServer,
  reap,
};

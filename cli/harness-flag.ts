import { harnessNames } from '../shared/names/harnesses';

/** A harness named on the command line: one of shared/harnesses.json. */
export function harnessFlag(name: string): string {
  if (!harnessNames.includes(name))
    throw new Error(`--harness: unknown harness ${JSON.stringify(name)}; known: ${harnessNames.join(', ')}`);
  return name;
}

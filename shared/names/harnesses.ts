import registry from '../harnesses.json';

/** The agent harnesses of shared/harnesses.json, by name: what a run's or an episode's `harness` may name. */
export const harnessNames: readonly string[] = registry.harnesses.map((harness) => harness.name);

/** The API a harness speaks (shared/contracts/gateway.ts GatewayApis). */
export function harnessApi(name: string): string | null {
  return registry.harnesses.find((harness) => harness.name === name)?.api ?? null;
}

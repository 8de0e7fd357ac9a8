import tamperKinds from '../tamper-kinds.json';

type KindInfo = { effect: 'forges_pass' | 'report_only'; description: string };
const kinds = (tamperKinds as { kinds: Record<string, KindInfo> }).kinds;

/** Kinds of tamper finding whose construct can forge a passing test report: they zero reward and true success. */
export function forgesPass(kind: string): boolean {
  return kinds[kind]?.effect === 'forges_pass';
}

/** Every known kind with its effect; the list lives in shared/tamper-kinds.json. */
export const tamperKindList: ReadonlyArray<{ kind: string } & KindInfo> = Object.entries(kinds).map(([kind, info]) => ({
  kind,
  ...info,
}));

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadWeights } from '../activities/policies/completions-client';
import { formatPolicySpec, parsePolicySpec } from '../shared/contracts/policy-spec';
import type { LoadedConfig } from '../workers/config';
import { ensurePolicyServer } from './services/serving';
import { servingPorts } from '../shared/names/serving-ports';

/** The port of the embedded policy server that serves an `.onnx` given to --policy. */

/**
 * A --policy value as a workflow takes it: a scripted file made absolute (the worker's directory is
 * not the caller's), an `.onnx` file served by an embedded policy server and pinned to its version.
 */
export async function policyFlag(config: LoadedConfig, value: string, log: (line: string) => void): Promise<string> {
  const parsed = parsePolicySpec(value);
  if (!parsed.ok) throw new Error(`--policy: ${parsed.error}`);
  const spec = parsed.spec;
  if (spec.kind === 'scripted') {
    const file = resolve(spec.file);
    if (!existsSync(file)) throw new Error(`--policy: ${file} does not exist`);
    return formatPolicySpec({ kind: 'scripted', file });
  }
  if (spec.kind === 'tokens' || spec.kind === 'replies') {
    const file = resolve(spec.file);
    if (!existsSync(file)) throw new Error(`--policy: ${file} does not exist`);
    return formatPolicySpec({ kind: spec.kind, file });
  }
  if (spec.kind === 'onnx') {
    const model = resolve(spec.file);
    if (!existsSync(model)) throw new Error(`--policy: ${model} does not exist`);
    const url = await ensurePolicyServer(config, servingPorts.exportedPolicy, log);
    const version = await loadWeights(url, model);
    log(`serving ${version} at ${url}`);
    return formatPolicySpec({ kind: 'completions', url, version });
  }
  return value;
}

import { parsePolicyServerArgs, policyServerUsage, runPolicyServer } from '../servers/policy-server';
import type { Command } from '../command';

export const policyServer: Command = {
  summary: "serve an ONNX policy behind vLLM's /v1/completions (token ids in, token ids and log-probs out)",
  usage: policyServerUsage,
  options: {
    model: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    state: { type: 'string' },
    'max-loaded': { type: 'string' },
  },
  async run(values) {
    const args = Object.entries(values).flatMap(([key, value]) =>
      typeof value === 'string' ? [`--${key}`, value] : [],
    );
    await runPolicyServer(parsePolicyServerArgs(args));
    return 0;
  },
};

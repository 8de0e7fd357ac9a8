/**
 * The ports the embedded servers listen on unless a flag says otherwise: their one home (the
 * CLI's defaults, its help texts and the run's default policy server all read them).
 */
export const servingPorts: Readonly<Record<'policyServer' | 'trainingPolicy' | 'exportedPolicy' | 'model', number>> = {
  /** `npx agentrl policy-server` started by hand */
  policyServer: 8000,
  /** the toy model's policy server a training run starts (`train --policy-port`) */
  trainingPolicy: 8100,
  /** the exported ONNX policy `episode` and `eval` serve (`--policy FILE.onnx`) */
  exportedPolicy: 8101,
  /** a real model's embedded server (`--model-port`) */
  model: 8102,
};

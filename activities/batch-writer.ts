import { padRows, tokenAdvantages, type BatchCounts, type BatchRow } from '../shared/batch';
import { writeSafetensors } from './safetensors';

/**
 * Writes a training batch as safetensors (the trainer's `load_batch` reads it):
 * input_ids I64 (B,T), loss_mask F32 (B,T), advantages F32 (B,), token_advantages F32 (B,T),
 * behaviour_logprobs F32 (B,T), policy_versions I64 (B,T), and with a constrained sampler
 * allowed_mask BOOL (B,T,V): the ids allowed when token t was drawn; metadata values are JSON text.
 */
export async function writeBatch(
  path: string,
  rows: readonly BatchRow[],
  info: { counts: BatchCounts; estimator: string; truncation: string; padId: number; allowedMask?: { data: Uint8Array; vocabSize: number } },
): Promise<void> {
  const padded = padRows(rows, info.padId);
  const shape = [rows.length, padded.length];
  await writeSafetensors(
    path,
    {
      input_ids: { dtype: 'I64', shape, data: padded.tokenIds.flat() },
      loss_mask: { dtype: 'F32', shape, data: padded.lossMask.flat() },
      advantages: { dtype: 'F32', shape: [rows.length], data: rows.map((row) => row.advantage) },
      token_advantages: { dtype: 'F32', shape, data: padded.lossMask.flatMap((mask, index) => tokenAdvantages({ advantage: rows[index]!.advantage, lossMask: mask, decisionAdvantages: rows[index]!.decisionAdvantages })) },
      behaviour_logprobs: { dtype: 'F32', shape, data: padded.behaviourLogprobs.flat() },
      policy_versions: { dtype: 'I64', shape, data: padded.policyVersions.flat() },
      ...(info.allowedMask ? { allowed_mask: { dtype: 'BOOL' as const, shape: [...shape, info.allowedMask.vocabSize], data: info.allowedMask.data } } : {}),
    },
    {
      episodeIds: JSON.stringify(rows.map((row) => row.episodeId)),
      groupIds: JSON.stringify(rows.map((row) => row.groupId)),
      rewards: JSON.stringify(rows.map((row) => row.reward)),
      counts: JSON.stringify(info.counts),
      estimator: JSON.stringify(info.estimator),
      truncation: JSON.stringify(info.truncation),
    },
  );
}

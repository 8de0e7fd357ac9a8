import { padRows, tokenAdvantages, type BatchCounts, type BatchRow } from '../../shared/math/batch';
import { BatchFileHeader } from '../../shared/contracts/batch-file';
import { writeSafetensors, type Tensor } from './safetensors';

/** Distinct allowed-id masks (row-major (P,V), row 0 all allowed) and each token's row, (B,T) row-major. */
export interface AllowedPatterns {
  patterns: Uint8Array;
  index: number[];
  vocabSize: number;
}

/**
 * The allowed ids of each row's mask-1 tokens as distinct patterns; every other position (prompt,
 * observations, padding, unconstrained tokens) points at row 0, which allows everything.
 */
export function allowedPatterns(
  rows: readonly { episodeId: string; lossMask: readonly number[] }[],
  allowedByEpisode: ReadonlyMap<string, readonly (readonly number[] | null)[]>,
  length: number,
  vocabSize: number,
): AllowedPatterns {
  const rowsByKey = new Map<string, number>();
  const patterns: Uint8Array[] = [new Uint8Array(vocabSize).fill(1)];
  const index = new Array<number>(rows.length * length).fill(0);
  rows.forEach((row, b) => {
    (allowedByEpisode.get(row.episodeId) ?? []).forEach((ids, t) => {
      if (!ids || row.lossMask[t] !== 1) return;
      const key = [...ids].sort((x, y) => x - y).join(',');
      let pattern = rowsByKey.get(key);
      if (pattern === undefined) {
        const mask = new Uint8Array(vocabSize);
        for (const id of ids) mask[id] = 1;
        pattern = patterns.push(mask) - 1;
        rowsByKey.set(key, pattern);
      }
      index[b * length + t] = pattern;
    });
  });
  const flat = new Uint8Array(patterns.length * vocabSize);
  patterns.forEach((mask, p) => flat.set(mask, p * vocabSize));
  return { patterns: flat, index, vocabSize };
}

/**
 * Writes a training batch as safetensors, the file shared/contracts/batch-file.ts describes (its one home):
 * the tensors the trainer reads, and with a constrained sampler the ids allowed when each token was
 * drawn as distinct patterns and each token's row (a grammar has few states, so this is a small
 * fraction of the (B,T,V) mask the trainer expands it to); metadata values are JSON text.
 */
export async function writeBatch(
  path: string,
  rows: readonly BatchRow[],
  info: {
    counts: BatchCounts;
    estimator: string;
    truncation: string;
    padId: number;
    allowed?: AllowedPatterns;
    baseStep?: number;
  },
): Promise<void> {
  const padded = padRows(rows, info.padId);
  const shape = [rows.length, padded.length];
  if (info.allowed && info.allowed.index.length !== rows.length * padded.length)
    throw new Error(
      `allowed.index holds ${info.allowed.index.length} positions, the batch ${rows.length} x ${padded.length}`,
    );
  const tensors: Record<string, Tensor> = {
    input_ids: { dtype: 'I64', shape, data: padded.tokenIds.flat() },
    loss_mask: { dtype: 'F32', shape, data: padded.lossMask.flat() },
    advantages: { dtype: 'F32', shape: [rows.length], data: rows.map((row) => row.advantage) },
    token_advantages: {
      dtype: 'F32',
      shape,
      data: padded.lossMask.flatMap((mask, index) =>
        tokenAdvantages({
          advantage: rows[index]!.advantage,
          lossMask: mask,
          decisionAdvantages: rows[index]!.decisionAdvantages,
          turnAdvantages: rows[index]!.turnAdvantages,
        }),
      ),
    },
    behaviour_logprobs: { dtype: 'F32', shape, data: padded.behaviourLogprobs.flat() },
    rewards: { dtype: 'F32', shape: [rows.length], data: rows.map((row) => row.reward) },
    ...(rows.some((row) => row.bootstrap)
      ? { bootstrap: { dtype: 'F32' as const, shape: [rows.length], data: rows.map((row) => (row.bootstrap ? 1 : 0)) } }
      : {}),
    ...(padded.privileged
      ? { privileged: { dtype: 'F32' as const, shape: [...shape, 2], data: padded.privileged.flat(2) } }
      : {}),
    ...(padded.turnIds ? { turn_ids: { dtype: 'I64' as const, shape, data: padded.turnIds.flat() } } : {}),
    ...(padded.environmentMask
      ? { environment_mask: { dtype: 'F32' as const, shape, data: padded.environmentMask.flat() } }
      : {}),
    policy_versions: { dtype: 'I64', shape, data: padded.policyVersions.flat() },
    ...(info.allowed
      ? {
          allowed_patterns: {
            dtype: 'BOOL' as const,
            shape: [info.allowed.patterns.length / info.allowed.vocabSize, info.allowed.vocabSize],
            data: info.allowed.patterns,
          },
          allowed_index: { dtype: 'I64' as const, shape, data: info.allowed.index },
        }
      : {}),
  };
  const metadata = {
    episodeIds: rows.map((row) => row.episodeId),
    groupIds: rows.map((row) => row.groupId),
    rewards: rows.map((row) => row.reward),
    counts: info.counts,
    estimator: info.estimator,
    truncation: info.truncation,
    // the step whose weights the trainer starts from: policy_versions are measured against it
    ...(info.baseStep !== undefined ? { baseStep: info.baseStep } : {}),
  };
  // the header is the contract with the trainer (shared/contracts/batch-file.ts): checked here, and again where it is
  // read
  BatchFileHeader.parse({
    tensors: Object.fromEntries(Object.entries(tensors).map(([name, { dtype, shape }]) => [name, { dtype, shape }])),
    metadata,
  });
  await writeSafetensors(
    path,
    tensors,
    Object.fromEntries(Object.entries(metadata).map(([name, value]) => [name, JSON.stringify(value)])),
  );
}

import { z } from 'zod';

/**
 * A store reference: how contracts, records and the workflow name an object or folder of the
 * artifact store, never by a local path (a path means nothing on another host).
 *
 *   s3://BUCKET/KEY       an object, or the objects under KEY/ (an S3-compatible store)
 *   file:///ABSOLUTE/PATH a file or folder of a store on a local (or shared) folder
 *   model://NAME          a Hugging Face model's prepared ONNX folder in each host's own model cache
 *
 * Records written before references existed hold absolute paths: they are read as file:// references.
 * Resolving one to bytes is activities/store/local-copy.ts's job (trainer/agentrl_trainer/store.py in Python).
 */
export const storeRefPattern = '^(s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/.+|file:///.*|model://[A-Za-z0-9._-]+)$';

export const StoreRef = z.preprocess(
  (value) => (typeof value === 'string' && value.startsWith('/') ? `file://${value}` : value),
  z
    .string()
    .regex(new RegExp(storeRefPattern))
    .meta({ errorMessage: 'must be a store reference (s3://BUCKET/KEY, file:///PATH or model://NAME)' }),
);

/** The reference of an object under a folder reference. */
export const refUnder = (folder: string, name: string): string => `${folder.replace(/\/+$/, '')}/${name}`;

/**
 * The store reference of a record field that may predate references: `current` when present, else
 * the old field's absolute path as a file:// reference (an activity result recorded in a history of before).
 */
export function storeRefOf(current: string | undefined, old?: string): string {
  return StoreRef.parse(current ?? old);
}
